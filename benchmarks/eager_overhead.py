"""Measure what --jitcheck-eager costs on a real test suite (optax's tests by default).

Usage:
    python benchmarks/eager_overhead.py [--python PY] [--rounds N] [TEST_FILE ...]

TEST_FILEs are paths relative to the site-packages directory that holds optax (default:
``optax/losses``, the loss tests shipped in optax's wheel). PY is an interpreter that has
optax and this project installed, e.g. a scratch venv:

    python -m venv --system-site-packages /tmp/optax-venv
    /tmp/optax-venv/bin/pip install optax
    /tmp/optax-venv/bin/pip install --no-deps -e .
    python benchmarks/eager_overhead.py --python /tmp/optax-venv/bin/python

First it times the dispatch of a tiny jitted function natively and through the idle
wrapper (what every jitted call costs outside a checked test). Then the suite runs plain
and with ``--jitcheck-eager``, alternating, ``--rounds`` times each; the
fastest wall time of each mode is compared, so the ratio is measured in this run. It
then compares the outcome of every test between the two modes and prints the
``[jitcheck]`` message of each test that only the eager cross-check fails.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

DEFAULT_TESTS = ["optax/losses"]


def site_packages(python: str) -> Path:
    code = "import optax, pathlib; print(pathlib.Path(optax.__file__).parent.parent)"
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True)
    return Path(out.stdout.strip())


def run_suite(python, cwd, tests, extra, report):
    command = [python, "-m", "pytest", "-p", "no:cacheprovider", "-q", f"--junitxml={report}"]
    command += [*extra, *tests]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    return time.perf_counter() - start, done.stdout


def outcomes(report):
    """Return {test id: (outcome, message)} from a JUnit XML report."""
    result = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        test_id = f"{case.get('classname')}::{case.get('name')}"
        outcome, message = "passed", ""
        for tag in ("failure", "error", "skipped"):
            node = case.find(tag)
            if node is not None:
                outcome = tag
                message = (node.get("message") or "") + "\n" + (node.text or "")
        result[test_id] = (outcome, message)
    return result


def dispatch_overhead(calls=20000):
    """Return seconds per call of a jitted function: native, and wrapped but idle."""
    import jax
    import jax.numpy as jnp

    from pytest_jitcheck import eager

    native = jax.jit(lambda x: x + 1)
    eager.install()  # wraps jax.jit from now on; no test is being checked, so it is idle
    try:
        wrapped = jax.jit(lambda x: x + 1)
    finally:
        eager.uninstall()
    assert type(wrapped) is eager.EagerChecked
    x = jnp.ones(3)
    result = {}
    for name, fn in (("native", native), ("idle wrapper", wrapped)):
        fn(x).block_until_ready()
        best = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            for _ in range(calls):
                fn(x)
            best = min(best, (time.perf_counter() - start) / calls)
        result[name] = best
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("tests", nargs="*", default=DEFAULT_TESTS)
    args = parser.parse_args(argv)
    per_call = dispatch_overhead()
    print(
        f"dispatch of a tiny jitted function: native {per_call['native'] * 1e6:.2f} us, "
        f"idle --jitcheck-eager wrapper {per_call['idle wrapper'] * 1e6:.2f} us "
        f"({per_call['idle wrapper'] / per_call['native']:.2f}x)"
    )
    cwd = site_packages(args.python)
    print(f"suite: {' '.join(args.tests)}\n  in {cwd}")
    modes = {"plain": [], "--jitcheck-eager": ["--jitcheck-eager"]}
    times = {mode: [] for mode in modes}
    results = {}
    outputs = {}
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(args.rounds):
            for mode, extra in modes.items():
                report = Path(tmp) / f"{round_}-{len(extra)}.xml"
                seconds, stdout = run_suite(args.python, cwd, args.tests, extra, report)
                times[mode].append(seconds)
                outputs[mode] = stdout
                results[mode] = outcomes(report)
                print(f"  round {round_ + 1} {mode:<17} {times[mode][-1]:7.1f} s")
    plain, eager = min(times["plain"]), min(times["--jitcheck-eager"])
    print(f"\nplain {plain:.1f} s, --jitcheck-eager {eager:.1f} s: ratio {eager / plain:.2f}x")
    before, after = results["plain"], results["--jitcheck-eager"]
    counts = {
        mode: {o: sum(1 for v in res.values() if v[0] == o) for o in ("passed", "failure")}
        for mode, res in results.items()
    }
    print(f"outcomes: {counts}")
    summary = outputs["--jitcheck-eager"].partition("jitted functions not cross-checked")[2]
    skipped = [line for line in summary.splitlines() if ": not cross-checked, " in line]
    print(f"jitted functions not cross-checked under --jitcheck-eager: {len(skipped)}")
    for line in skipped:
        print(f"  {line}")
    missing = ("missing", "")
    changed = sorted(
        test_id
        for test_id in before.keys() | after.keys()
        if before.get(test_id, missing)[0] != after.get(test_id, missing)[0]
    )
    if not changed:
        print("same outcome for every test in both modes")
        return 0
    print(f"{len(changed)} test(s) with a different outcome under --jitcheck-eager:")
    for test_id in changed:
        old = before.get(test_id, missing)[0]
        new, message = after.get(test_id, missing)
        print(f"\n  {test_id}: {old} -> {new}")
        lines = [line for line in message.splitlines() if line.strip()]
        start = next((i for i, line in enumerate(lines) if "[jitcheck]" in line), 0)
        for line in lines[start : start + 8]:
            print(f"    {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
