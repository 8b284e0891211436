"""The ``jitlint`` command line: ruff's conventions, so people's habits work."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from typing import NoReturn, TextIO

from jitlint import __version__
from jitlint.config import ConfigError, build_settings, find_pyproject, load
from jitlint.engine import Settings, discover, lint_file, lint_source
from jitlint.model import FileResult, Finding
from jitlint.rules import all_rules

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # One line, exit 2, like every other usage error of this tool.
        self.exit(EXIT_ERROR, f"jitlint: error: {message}\n")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="jitlint",
        description="Find jax.jit bugs statically. `jitlint rule CODE` explains a rule.",
    )
    p.add_argument("paths", nargs="*", default=["."], help="files or directories ('-' = stdin)")
    p.add_argument("--select", type=_csv, help="codes, prefixes, names or ALL (comma-separated)")
    p.add_argument("--extend-select", type=_csv, default=[], help="add to the selection")
    p.add_argument("--ignore", type=_csv, default=[], help="codes, prefixes or names to skip")
    p.add_argument("--output-format", choices=["concise", "json"], default="concise")
    p.add_argument("--statistics", action="store_true", help="count findings per rule")
    p.add_argument("--exit-zero", action="store_true", help="exit 0 even with findings")
    p.add_argument("--stdin-filename", help="name to report for source read from '-'")
    p.add_argument("--no-cache", action="store_true", help="accepted; there is no cache yet")
    p.add_argument("--cache-dir", help="accepted; there is no cache yet")
    p.add_argument("--version", action="version", version=f"jitlint {__version__}")
    return p


def _csv(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def main(argv: Sequence[str] | None = None) -> int:
    """Run jitlint; return the exit code (0 clean, 1 findings, 2 usage or internal error)."""
    try:
        return _main(argv)
    except BrokenPipeError:
        # Output piped into `head` and the like: stop quietly, like other CLI tools.
        sys.stderr.close()
        return EXIT_CLEAN


def _main(argv: Sequence[str] | None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["rule"]:
        return _rule_command(args_list[1:], sys.stdout)
    args = _parser().parse_args(args_list)
    try:
        cfg = load(
            find_pyproject([args.stdin_filename or "."] if args.paths == ["-"] else args.paths)
        )
        settings = build_settings(cfg, args.select, args.ignore, args.extend_select)
    except ConfigError as err:
        print(f"jitlint: error: {err}", file=sys.stderr)
        return EXIT_ERROR
    results = _lint(args.paths, settings, args.stdin_filename)
    findings = [f for r in results for f in r.findings]
    errors = [e for r in results for e in r.errors]
    for error in errors:
        print(f"jitlint: error: {error}", file=sys.stderr)
    out = sys.stdout
    if args.statistics:
        _statistics(findings, out)
    elif args.output_format == "json":
        json.dump([_json(f) for f in findings], out, indent=2)
        out.write("\n")
    else:
        for f in findings:
            fixable = " [*]" if f.fixable else ""
            out.write(
                f"{f.filename}:{f.location.row}:{f.location.column}: "
                f"{f.code}{fixable} {f.message}\n"
            )
    _summary(findings, len(errors))
    if errors:
        return EXIT_ERROR
    return EXIT_FINDINGS if findings and not args.exit_zero else EXIT_CLEAN


def _lint(paths: Sequence[str], settings: Settings, stdin_name: str | None) -> list[FileResult]:
    results: list[FileResult] = []
    for raw in paths:
        if raw == "-":
            name = stdin_name or "-"
            results.append(lint_source(name, sys.stdin.buffer.read(), settings))
            continue
        for path, error in discover([raw], settings):
            if error is not None:
                results.append(FileResult(path, errors=[error]))
            else:
                results.append(lint_file(path, settings))
    return results


def _json(f: Finding) -> dict[str, object]:
    fix = None
    if f.fix is not None:
        fix = {
            "message": f.fix.title,
            "applicability": f.fix.applicability.value,
            "edits": [
                {
                    "content": e.content,
                    "location": {"row": e.start.row, "column": e.start.column},
                    "end_location": {"row": e.end.row, "column": e.end.column},
                }
                for e in f.fix.edits
            ],
        }
    return {
        "code": f.code,
        "name": f.name,
        "message": f.message,
        "filename": f.filename,
        "location": {"row": f.location.row, "column": f.location.column},
        "end_location": {"row": f.end_location.row, "column": f.end_location.column},
        "fix": fix,
        "url": f.url,
    }


def _statistics(findings: list[Finding], out: TextIO) -> None:
    counts = Counter((f.code, f.name) for f in findings)
    fixable = {f.code for f in findings if f.fixable}
    for (code, name), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        mark = "[*]" if code in fixable else "[ ]"
        out.write(f"{n:>5}\t{code}\t{mark} {name}\n")


def _summary(findings: list[Finding], n_errors: int) -> None:
    if findings:
        n = len(findings)
        print(f"Found {n} error{'s' if n != 1 else ''}.", file=sys.stderr)
    elif not n_errors:
        print("All checks passed!", file=sys.stderr)


def _rule_command(args: Sequence[str], out: TextIO) -> int:
    rules = all_rules()
    if args in (["--all"], ["--list"]):
        for r in rules:
            out.write(f"{r.code}\t{r.name}\n")
        return EXIT_CLEAN
    if len(args) != 1:
        print("jitlint: error: usage: jitlint rule CODE|NAME (or --all)", file=sys.stderr)
        return EXIT_ERROR
    wanted = args[0]
    for r in rules:
        if wanted.upper() == r.code or wanted == r.name:
            out.write(f"# {r.name} ({r.code})\n\n{r.doc()}\n")
            return EXIT_CLEAN
    print(f"jitlint: error: unknown rule `{wanted}`", file=sys.stderr)
    return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
