"""Check the fix invariants on real code: `jitlint --fix` over a copy of installed packages.

Usage:
    python benchmarks/fix_corpus.py --site-packages /path/to/site-packages \
        [--packages flax optax equinox numpyro diffrax] [--safe-only]

Copies the packages' Python files to a temporary directory, runs `jitlint --fix
--unsafe-fixes --select ALL` on the copy, then checks that every file still parses (libcst and
CPython), that fixing again changes nothing, and that a re-lint reports none of the fixed
findings. Prints what was fixed per rule; exits 1 if an invariant fails.
"""

from __future__ import annotations

import argparse
import ast
import json
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import libcst

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus_score import jitlint_command
from realworld_lint import DEFAULT_PACKAGES, package_files


def _findings(paths: list[str], cwd: Path) -> list[dict[str, object]]:
    cmd = [*jitlint_command(), "--select", "ALL", "--no-cache", "--output-format", "json"]
    proc = subprocess.run([*cmd, *paths], capture_output=True, text=True, cwd=cwd, check=False)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"jitlint exited {proc.returncode}: {proc.stderr[-2000:]}")
    found: list[dict[str, object]] = json.loads(proc.stdout)
    return found


def _fix(paths: list[str], cwd: Path, unsafe: bool) -> str:
    cmd = [*jitlint_command(), "--select", "ALL", "--fix", "--exit-zero", "--no-cache"]
    if unsafe:
        cmd.append("--unsafe-fixes")
    proc = subprocess.run([*cmd, *paths], capture_output=True, text=True, cwd=cwd, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"jitlint --fix exited {proc.returncode}: {proc.stderr[-2000:]}")
    return proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else ""


def check(files: list[Path], root: Path, unsafe: bool = True) -> list[str]:
    """Fix a copy of ``files`` (relative to ``root``); return the broken invariants."""
    problems: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        rel = [str(f.relative_to(root)) for f in files]
        for r, f in zip(rel, files, strict=True):
            (work / r).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, work / r)
        before = _findings(rel, work)
        fixable = [f for f in before if f["fix"] is not None]
        wanted = [f for f in fixable if unsafe or f["fix"]["applicability"] == "safe"]  # type: ignore[index]
        summary = _fix(rel, work, unsafe)
        changed = [
            r for r, f in zip(rel, files, strict=True) if (work / r).read_bytes() != f.read_bytes()
        ]
        for r in changed:
            source = (work / r).read_bytes()
            try:
                libcst.parse_module(source)
                ast.parse(source)
            except (libcst.ParserSyntaxError, SyntaxError) as err:
                problems.append(f"{r}: no longer parses: {err}")
        snapshot = {r: (work / r).read_bytes() for r in changed}
        _fix(rel, work, unsafe)
        problems += [
            f"{r}: second --fix changed it again"
            for r in changed
            if (work / r).read_bytes() != snapshot[r]
        ]
        after = _findings(rel, work)
        left = [
            f
            for f in after
            if f["fix"] is not None and (unsafe or f["fix"]["applicability"] == "safe")
        ]  # type: ignore[index]
        problems += [
            f"{f['filename']}:{f['location']}: {f['code']} still fixable after --fix" for f in left
        ]
        print(
            f"{len(files)} files; {len(before)} findings, {len(fixable)} with a fix, "
            f"{len(wanted)} applicable"
        )
        print(f"--fix: {summary}")
        print(f"{len(changed)} files changed; {len(after)} findings left")
        counts_before = Counter(str(f["code"]) for f in wanted)
        counts_after = Counter(str(f["code"]) for f in after)
        for code in sorted(counts_before):
            print(
                f"  {code}: {counts_before[code]} fixable before, "
                f"{counts_after[code]} findings after"
            )
    return problems


def main(argv: list[str] | None = None) -> int:
    """Run the check and print the result."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site-packages", type=Path, required=True)
    parser.add_argument("--packages", nargs="+", default=DEFAULT_PACKAGES)
    parser.add_argument("--safe-only", action="store_true")
    args = parser.parse_args(argv)
    files = package_files(args.site_packages, args.packages)
    problems = check(files, args.site_packages, unsafe=not args.safe_only)
    for p in problems:
        print("FAIL", p)
    print("all invariants hold" if not problems else f"{len(problems)} invariant failures")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
