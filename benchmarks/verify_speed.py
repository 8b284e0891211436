"""Compare the CPU time of verifying corpus files in forks of a JAX-importing process
against fresh interpreters, in one run.

Usage:
    python benchmarks/verify_speed.py [--every N] [--jobs J]

Verifies every N-th file of `tests/lint/realworld` (default every 25th) twice, forked and
then with `--fresh`, and prints the CPU time (user + system of the child processes) of
each and their ratio. Both runs must verify the same files the same way.
"""

from __future__ import annotations

import argparse
import resource
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import verify_realworld as vr


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> int:
    """Print the forked and fresh CPU times of verifying a sample of the corpus."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=int, default=25, help="take every N-th file")
    parser.add_argument("--jobs", type=int, default=2, help="files run at once")
    args = parser.parse_args(argv)
    files = sorted(vr.DEFAULT_CORPUS.rglob("*.py"))[args.every - 1 :: args.every]
    times = {}
    verdicts = {}
    for fresh in (False, True):
        before = _children_cpu()
        outcomes = vr.verify(files, args.jobs, timeout=300, fresh=fresh)
        times[fresh] = _children_cpu() - before
        verdicts[fresh] = [(o.path.name, o.status) for o in outcomes]
    if verdicts[False] != verdicts[True]:
        print("error: forked and fresh runs judged files differently", file=sys.stderr)
        return 1
    print(f"{len(files)} files")
    print(f"forked: {times[False]:7.1f} s CPU")
    print(f"fresh:  {times[True]:7.1f} s CPU")
    print(f"forked / fresh: {times[False] / times[True]:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
