"""Run subsets of real libraries' test suites plain and under pytest-jitcheck.

Usage::

    python benchmarks/real_suites.py --python VENV/bin/python --src SRC_DIR [--eager]
        [--suite NAME ...]

VENV has jax, the libraries (flax optax equinox chex optimistix, cloudpickle for chex's
tests, diffrax and pytest-benchmark for optimistix's) and pytest-jitcheck installed;
SRC_DIR holds the unpacked sources of the suites that are not in their wheels
(``google+flax/tests/nnx``, ``patrick-kidger+equinox/tests``,
``google-deepmind+chex/chex/_src``, ``patrick-kidger+optimistix/tests``); optax's tests
ship in its wheel.

For each suite, each mode (plain, ``--jitcheck``, optionally ``--jitcheck-eager``) runs
in a fresh process with ``--junitxml``; the script prints the outcome of every test whose
outcome differs from the plain run, and the CPU-time ratio against the plain run of the
same suite in the same invocation.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

SUITES = {
    # name: (directory relative to SRC_DIR or "site:<package>", test paths)
    "optax-losses": ("site:optax", ["losses"]),
    "equinox": (
        "patrick-kidger+equinox",
        ["tests/test_jit.py", "tests/test_checkpoint.py", "tests/test_vmap.py"],
    ),
    "chex": (
        "google-deepmind+chex",
        ["chex/_src/dataclass_test.py", "chex/_src/asserts_chexify_test.py"],
    ),
    "flax-nnx": ("google+flax", ["tests/nnx/optimizer_test.py", "tests/nnx/rngs_test.py"]),
    # The files of optimistix's suite that run in minutes (test_minimise, test_root_find
    # and test_least_squares alone hold 719 of its 832 tests).
    "optimistix": (
        "patrick-kidger+optimistix",
        [
            "tests/test_ad.py",
            "tests/test_best_so_far.py",
            "tests/test_cauchy_point.py",
            "tests/test_compat.py",
            "tests/test_fixed_point.py",
            "tests/test_lbfgs_linear_operator.py",
            "tests/test_misc.py",
            "tests/test_solve.py",
        ],
    ),
}


def _outcomes(path: str) -> dict[str, str]:
    tree = ET.parse(path)
    result = {}
    for case in tree.iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = child.tag
        result[name] = outcome
    return result


def _run(python: str, cwd: str, paths: list[str], extra: list[str]) -> tuple[dict, float, str]:
    with tempfile.TemporaryDirectory() as tmp:
        xml = os.path.join(tmp, "out.xml")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.run(
            [
                python,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                f"--junitxml={xml}",
                *extra,
                *paths,
            ],
            cwd=cwd,
            capture_output=True,
            text=True,
            env={**os.environ, "JAX_PLATFORMS": "cpu"},
        )
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        outcomes = _outcomes(xml) if os.path.exists(xml) else {}
        return outcomes, cpu, proc.stdout[-3000:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--src", required=True)
    parser.add_argument("--eager", action="store_true", help="also run --jitcheck-eager")
    parser.add_argument("--suite", action="append", choices=sorted(SUITES))
    args = parser.parse_args(argv)
    modes = {"plain": [], "jitcheck": ["--jitcheck"]}
    if args.eager:
        modes["eager"] = ["--jitcheck-eager"]
    for name in args.suite or list(SUITES):
        where, paths = SUITES[name]
        if where.startswith("site:"):
            package = where.removeprefix("site:")
            found = subprocess.run(
                [
                    args.python,
                    "-c",
                    f"import {package}, os; print(os.path.dirname({package}.__file__))",
                ],
                capture_output=True,
                text=True,
                check=True,
            )
            cwd = found.stdout.strip()
        else:
            cwd = os.path.join(args.src, where)
        results = {mode: _run(args.python, cwd, paths, extra) for mode, extra in modes.items()}
        plain, plain_cpu, _ = results["plain"]
        counts = {o: list(plain.values()).count(o) for o in sorted(set(plain.values()))}
        print(f"== {name}: {len(plain)} tests plain {counts}, cpu {plain_cpu:.1f} s")
        for mode, (outcomes, cpu, tail) in results.items():
            if mode == "plain":
                continue
            changed = {t: (plain.get(t), o) for t, o in outcomes.items() if plain.get(t) != o}
            ratio = cpu / plain_cpu if plain_cpu else float("nan")
            print(
                f"   {mode}: {len(outcomes)} tests, {len(changed)} outcome(s) changed, "
                f"cpu ratio {ratio:.2f}x"
            )
            for test, (before, after) in sorted(changed.items()):
                print(f"     {test}: {before} -> {after}")
            if changed:
                print("     --- tail of output ---\n" + tail)
    return 0


if __name__ == "__main__":
    sys.exit(main())
