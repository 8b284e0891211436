"""Time jitlint against flake8 and bare libcst parsing on the same real-world files.

Usage:
    python benchmarks/lint_speed.py --site-packages /path/to/site-packages \
        [--packages flax optax equinox numpyro diffrax] [--repeat 3]

In one run, over the same files, measures: jitlint cold (empty cache), jitlint warm (the
cache from the cold run), flake8 with its default checks, and single-process
`libcst.parse_module` of every file. Prints the best of `--repeat` wall times and the
ratios the project targets (cold <= 1.0x flake8, cold <= 1.5x parse, warm <= 0.05x cold),
plus the peak resident memory of the jitlint processes.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import libcst

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus_score import jitlint_command
from realworld_lint import DEFAULT_PACKAGES, count_lines, package_files

# Measure the tools as installed: with bytecode caches, even where the environment turns
# writing them off (PYTHONDONTWRITEBYTECODE makes every run recompile jitlint's modules).
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _run(cmd: list[str]) -> None:
    proc = subprocess.run(cmd, capture_output=True, check=False, env=_ENV)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"error: {cmd[0]} exited {proc.returncode}: {proc.stderr[-500:]!r}")


def _best(fn: Callable[[], None], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    """Run every measurement and print times and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site-packages", type=Path, required=True)
    parser.add_argument("--packages", nargs="+", default=DEFAULT_PACKAGES)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)

    files = package_files(args.site_packages, args.packages)
    paths = [str(p) for p in files]
    print(f"{len(files)} files, {count_lines(files)} lines, best of {args.repeat}")
    base = [*jitlint_command(), "--select", "ALL", "--exit-zero", "--output-format", "concise"]

    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp)

        def cold() -> None:
            shutil.rmtree(cache, ignore_errors=True)
            _run([*base, "--cache-dir", str(cache), *paths])

        def warm() -> None:
            _run([*base, "--cache-dir", str(cache), *paths])

        t_cold = _best(cold, args.repeat)
        warm()  # make sure the cache holds the last cold run's results
        t_warm = _best(warm, args.repeat)
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024

    # Without flake8 installed its "time" would be Python failing to start it.
    has_flake8 = importlib.util.find_spec("flake8") is not None
    t_flake8 = (
        _best(
            lambda: _run([sys.executable, "-m", "flake8", "--isolated", "--exit-zero", *paths]),
            args.repeat,
        )
        if has_flake8
        else 0.0
    )
    sources = [p.read_bytes() for p in files]

    def parse_all() -> None:
        for src in sources:
            libcst.parse_module(src)

    t_parse = _best(parse_all, args.repeat)

    print(f"jitlint cold     {t_cold:8.2f} s")
    print(f"jitlint warm     {t_warm:8.2f} s")
    if has_flake8:
        print(f"flake8           {t_flake8:8.2f} s")
    else:
        print("flake8           not installed (pip install flake8): no flake8 ratio")
    print(f"libcst parse     {t_parse:8.2f} s  (single process)")
    if has_flake8:
        print(f"cold / flake8    {t_cold / t_flake8:8.2f}   target <= 1.0")
    print(f"cold / parse     {t_cold / t_parse:8.2f}   target <= 1.5")
    print(f"warm / cold      {t_warm / t_cold:8.3f}   target <= 0.05")
    print(f"peak RSS (largest jitlint process) {peak_mb:.0f} MB   target < 500")
    return 0


if __name__ == "__main__":
    sys.exit(main())
