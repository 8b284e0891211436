"""Measure what ``pytest --jitcheck`` costs on a real test suite (optax's loss tests).

Runs the same tests in each mode, interleaved, several times, and prints wall-time ratios
against the plain run measured in the same invocation. Also checks that every mode
passes and fails the same tests (a leak checker that changes outcomes is wrong).

Set-up (outside the repository, so nothing is vendored)::

    python3 -m venv --system-site-packages /tmp/optax-venv
    /tmp/optax-venv/bin/pip install optax
    /tmp/optax-venv/bin/pip install --no-deps -e .
    /tmp/optax-venv/bin/python benchmarks/plugin_overhead.py --repeats 3

By default it runs the fast files of ``optax/losses`` (the classification and
segmentation files take minutes each; pass ``--all`` to include them).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

MODES = {
    "plain": ["-p", "no:jitcheck"],
    "--jitcheck": ["--jitcheck"],
    "--jitcheck --jitcheck-leaks=off": ["--jitcheck", "--jitcheck-leaks=off"],
    "--jitcheck --jitcheck-leaks=strict": ["--jitcheck", "--jitcheck-leaks=strict"],
}
SLOW_FILES = ("_classification_test.py", "_segmentation_test.py")


def optax_tests(python: str, include_all: bool) -> list[str]:
    out = subprocess.run(
        [python, "-c", "import optax, os; print(os.path.dirname(optax.__file__))"],
        check=True,
        capture_output=True,
        text=True,
    )
    folder = Path(out.stdout.strip()) / "losses"
    files = sorted(folder.glob("*_test.py"))
    return [str(f) for f in files if include_all or f.name not in SLOW_FILES]


def outcomes(junit: Path) -> dict[str, str]:
    result = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        kinds = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
        result[name] = kinds[0] if kinds else "passed"
    return result


def run(python: str, args: list[str], tests: list[str], workdir: Path) -> tuple[float, float, dict]:
    """Run pytest once; return wall seconds, CPU seconds (user+sys) and outcomes."""
    junit = workdir / "junit.xml"
    cmd = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]
    cmd += ["-c", str(workdir / "pytest.ini"), "--rootdir", str(workdir)]
    cmd += [*args, f"--junitxml={junit}", *tests]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode not in (0, 1):
        sys.exit(f"pytest failed to run ({proc.returncode}):\n{proc.stdout[-3000:]}")
    return elapsed, cpu, outcomes(junit)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable, help="interpreter with optax")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--all", action="store_true", help="all optax/losses test files")
    parser.add_argument("--modes", nargs="*", default=list(MODES), choices=list(MODES))
    opts = parser.parse_args()
    tests = optax_tests(opts.python, opts.all)
    print(f"tests: {len(tests)} files under {Path(tests[0]).parent}")
    wall: dict[str, list[float]] = {m: [] for m in opts.modes}
    cpu: dict[str, list[float]] = {m: [] for m in opts.modes}
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        (workdir / "pytest.ini").write_text("[pytest]\n")
        for i in range(opts.repeats):
            for mode in opts.modes:  # interleaved, so drift hits every mode alike
                elapsed, used, outcome = run(opts.python, MODES[mode], tests, workdir)
                wall[mode].append(elapsed)
                cpu[mode].append(used)
                results.setdefault(mode, outcome)
                print(
                    f"  repeat {i + 1}: {mode:<36} wall {elapsed:7.2f} s  cpu {used:7.2f} s",
                    flush=True,
                )
    base = results[opts.modes[0]]
    counts = {k: list(base.values()).count(k) for k in sorted(set(base.values()))}
    print(f"\n{len(base)} tests in the baseline run: {counts}")
    for label, data in (("wall", wall), ("cpu (user+sys)", cpu)):
        ref = data[opts.modes[0]]
        print(f"\n{label}: {'mode':<36} {'min s':>8} {'median s':>9} {'min x':>7} {'median x':>9}")
        for mode in opts.modes:
            lo, med = min(data[mode]), statistics.median(data[mode])
            ratios = f"{lo / min(ref):7.3f} {med / statistics.median(ref):9.3f}"
            print(f"{'':>{len(label) + 2}}{mode:<36} {lo:8.2f} {med:9.2f} {ratios}")
    print()
    for mode in opts.modes:
        other = results[mode]
        diff = {t for t in base.keys() | other.keys() if base.get(t) != other.get(t)}
        same = "same outcomes as plain" if not diff else f"DIFFERENT: {sorted(diff)[:5]}"
        print(f"{mode:<36} {same}")


if __name__ == "__main__":
    main()
