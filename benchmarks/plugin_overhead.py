"""Measure what ``pytest --jitcheck`` costs on a real test suite (optax's loss tests).

Runs the same tests in each mode, interleaved, several times, and prints wall-time ratios
against the plain run measured in the same invocation. Also checks that every mode
passes and fails the same tests (a leak checker that changes outcomes is wrong).

Set-up (outside the repository, so nothing is vendored)::

    python3 -m venv --system-site-packages /work/scratch/optax-venv
    /work/scratch/optax-venv/bin/pip install optax
    /work/scratch/optax-venv/bin/pip install --no-deps -e .
    /work/scratch/optax-venv/bin/python benchmarks/plugin_overhead.py --repeats 3

By default it runs the fast files of ``optax/losses`` (the classification and
segmentation files take minutes each; pass ``--all`` to include them).
"""

from __future__ import annotations

import argparse
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


def run(python: str, args: list[str], tests: list[str], workdir: Path) -> tuple[float, dict]:
    junit = workdir / "junit.xml"
    cmd = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]
    cmd += ["-c", str(workdir / "pytest.ini"), "--rootdir", str(workdir)]
    cmd += [*args, f"--junitxml={junit}", *tests]
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        sys.exit(f"pytest failed to run ({proc.returncode}):\n{proc.stdout[-3000:]}")
    return elapsed, outcomes(junit)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable, help="interpreter with optax")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--all", action="store_true", help="all optax/losses test files")
    parser.add_argument("--modes", nargs="*", default=list(MODES), choices=list(MODES))
    opts = parser.parse_args()
    tests = optax_tests(opts.python, opts.all)
    print(f"tests: {len(tests)} files under {Path(tests[0]).parent}")
    times: dict[str, list[float]] = {m: [] for m in opts.modes}
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        (workdir / "pytest.ini").write_text("[pytest]\n")
        for i in range(opts.repeats):
            for mode in opts.modes:  # interleaved, so drift hits every mode alike
                elapsed, outcome = run(opts.python, MODES[mode], tests, workdir)
                times[mode].append(elapsed)
                results.setdefault(mode, outcome)
                print(f"  repeat {i + 1}: {mode:<36} {elapsed:7.2f} s", flush=True)
    base = results[opts.modes[0]]
    counts = {k: list(base.values()).count(k) for k in sorted(set(base.values()))}
    print(f"\n{len(base)} tests in the baseline run: {counts}")
    header = f"{'mode':<36} {'min s':>8} {'median s':>9} {'min ratio':>10} {'median ratio':>13}"
    print(f"{header}  same outcomes")
    base_min, base_med = min(times[opts.modes[0]]), statistics.median(times[opts.modes[0]])
    for mode in opts.modes:
        lo, med = min(times[mode]), statistics.median(times[mode])
        diff = {
            t for t in base.keys() | results[mode].keys() if base.get(t) != results[mode].get(t)
        }
        same = "yes" if not diff else f"NO: {sorted(diff)[:5]}"
        print(
            f"{mode:<36} {lo:8.2f} {med:9.2f} {lo / base_min:10.3f} {med / base_med:13.3f}  {same}"
        )


if __name__ == "__main__":
    main()
