"""Lint the installed sources of real JAX libraries and summarise what jitlint reports.

Usage:
    python benchmarks/realworld_lint.py --site-packages /path/to/site-packages \
        [--packages flax optax equinox numpyro diffrax] [--json-out findings.json]

`--site-packages` may be any folder holding the packages: for user-style code (examples,
tests, benchmarks) unpack an sdist (`pip download --no-binary :all: flax`) and pass e.g.
`--site-packages flax-0.12.8 --packages examples tests`. `--show CODE` prints each finding
with its source line, for review.

Prints the number of files and lines, findings per rule, and every internal error (a
JIT9xx finding, an exit code other than 0/1, or a traceback on stderr). Exits 1 when there
is an internal error, so the script doubles as a robustness check.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus_score import jitlint_command

DEFAULT_PACKAGES = ["flax", "optax", "equinox", "numpyro", "diffrax"]


def package_files(site_packages: Path, packages: list[str]) -> list[Path]:
    """Return the `.py` files of the given packages, sorted; exit if one is missing."""
    files: list[Path] = []
    for name in packages:
        root = site_packages / name
        if not root.is_dir():
            raise SystemExit(f"error: package {name!r} not found in {site_packages}")
        files += sorted(root.rglob("*.py"))
    return files


def count_lines(files: list[Path]) -> int:
    """Count the physical lines of `files`."""
    return sum(len(p.read_bytes().splitlines()) for p in files)


def lint(files: list[Path], extra: list[str]) -> tuple[int, list[dict[str, object]], str, float]:
    """Run jitlint once over `files`; return exit code, findings, stderr and seconds."""
    cmd = [*jitlint_command(), "--output-format", "json", "--select", "ALL", *extra]
    start = time.perf_counter()
    proc = subprocess.run([*cmd, *map(str, files)], capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    try:
        findings = json.loads(proc.stdout or "[]")
    except json.JSONDecodeError:
        findings = []
    return proc.returncode, findings, proc.stderr, seconds


def _describe(finding: dict[str, object]) -> str:
    """Render a finding with its source line, for review."""
    path = Path(str(finding["filename"]))
    location = finding["location"]
    assert isinstance(location, dict)
    row = int(location["row"])
    try:
        text = path.read_text(encoding="utf-8", errors="replace").splitlines()[row - 1].strip()
    except (OSError, IndexError):
        text = "?"
    return f"{path}:{row}: {finding['code']} {finding.get('message')}\n    {text}"


def main(argv: list[str] | None = None) -> int:
    """Lint the packages and print the summary; exit 1 on any internal error."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site-packages", type=Path, required=True)
    parser.add_argument("--packages", nargs="+", default=DEFAULT_PACKAGES)
    parser.add_argument("--json-out", type=Path, help="write every finding here")
    parser.add_argument("--jitlint-arg", action="append", default=[], help="extra CLI argument")
    parser.add_argument(
        "--show", action="append", default=[], help="print each finding of this code (or ALL)"
    )
    args = parser.parse_args(argv)

    files = package_files(args.site_packages, args.packages)
    rc, findings, stderr, seconds = lint(files, args.jitlint_arg)
    print(f"{len(files)} files, {count_lines(files)} lines, {seconds:.1f} s, exit code {rc}")

    by_rule = Counter(str(f["code"]) for f in findings)
    by_package: Counter[str] = Counter()
    for f in findings:
        rel = Path(str(f["filename"])).resolve().relative_to(args.site_packages.resolve())
        by_package[rel.parts[0]] += 1
    print("findings per rule:")
    for code, n in sorted(by_rule.items()):
        print(f"  {code}  {n}")
    print("findings per package:", dict(sorted(by_package.items())))

    internal = [f for f in findings if str(f["code"]).startswith("JIT9")]
    problems = [f"{f['filename']}: {f['code']} {f.get('message')}" for f in internal]
    if rc not in (0, 1):
        problems.append(f"exit code {rc}")
    if "Traceback" in stderr:
        problems.append("traceback on stderr:\n" + stderr[-3000:])
    print(f"internal errors: {len(problems)}")
    for p in problems:
        print("  " + p)
    for f in findings:
        if "ALL" in args.show or f["code"] in args.show:
            print(_describe(f))
    if args.json_out:
        args.json_out.write_text(json.dumps(findings, indent=1))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
