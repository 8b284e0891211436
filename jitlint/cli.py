"""The ``jitlint`` command line: ruff's conventions, so people's habits work."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn, TextIO

from jitlint._version import __version__
from jitlint.config import ConfigError, FileConfig, build_settings, find_pyproject, load
from jitlint.engine import runner
from jitlint.engine.cache import DEFAULT_DIR, Cache
from jitlint.engine.fixing import fix_source, unified_diff
from jitlint.engine.lint import lint_source
from jitlint.engine.settings import Settings
from jitlint.fixes.apply import applicable
from jitlint.model import FileResult, Finding
from jitlint.output import registry
from jitlint.output.sources import Sources
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
    p.add_argument("--output-format", choices=registry.FORMATS, default="concise")
    p.add_argument("--fix", action="store_true", help="apply safe fixes and report what is left")
    p.add_argument(
        "--unsafe-fixes", action="store_true", help="with --fix/--diff, apply unsafe fixes too"
    )
    p.add_argument(
        "--diff", action="store_true", help="print the fixes as a unified diff; write nothing"
    )
    p.add_argument("--statistics", action="store_true", help="count findings per rule")
    p.add_argument("--exit-zero", action="store_true", help="exit 0 even with findings")
    p.add_argument("--stdin-filename", help="name to report for source read from '-'")
    p.add_argument("--no-cache", action="store_true", help="do not read or write the cache")
    p.add_argument("--cache-dir", help=f"where to cache results (default: {DEFAULT_DIR})")
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
    if args.fix or args.diff:
        return _fix(args, settings)
    sources = Sources()
    results = _lint(args.paths, settings, args.stdin_filename, _cache(args, cfg, settings), sources)
    findings = [f for r in results for f in r.findings]
    errors = [e for r in results for e in r.errors]
    _report(args, findings, errors, sources)
    _summary(findings, len(errors), unsafe=args.unsafe_fixes)
    if errors:
        return EXIT_ERROR
    return EXIT_FINDINGS if findings and not args.exit_zero else EXIT_CLEAN


def _report(
    args: argparse.Namespace,
    findings: list[Finding],
    errors: list[str],
    sources: Sources | None = None,
) -> None:
    for error in errors:
        print(f"jitlint: error: {error}", file=sys.stderr)
    if args.statistics:
        _statistics(findings, sys.stdout, args.unsafe_fixes)
    else:
        registry.write(args.output_format, findings, sys.stdout, sources, unsafe=args.unsafe_fixes)


def _cache(args: argparse.Namespace, cfg: FileConfig, settings: Settings) -> Cache | None:
    if args.no_cache:
        return None
    directory = args.cache_dir or cfg.cache_dir or str(Path(cfg.root) / DEFAULT_DIR)
    return Cache(directory, settings)


def _lint(
    paths: Sequence[str],
    settings: Settings,
    stdin_name: str | None,
    cache: Cache | None,
    sources: Sources,
) -> list[FileResult]:
    results: list[FileResult] = []
    files = [p for p in paths if p != "-"]
    for raw in paths:
        if raw == "-":
            name = stdin_name or "-"
            data = sys.stdin.buffer.read()
            sources.add(name, data)  # `full` and `sarif` show lines of what was linted
            results.append(lint_source(name, data, settings))
        elif files:  # all files at once, where the first one was named
            results.extend(runner.lint_paths(files, settings, cache))
            files = []
    return results


def _fix(args: argparse.Namespace, settings: Settings) -> int:
    """Run --fix / --diff: fix in memory, then write files or print the diff."""
    unsafe = args.unsafe_fixes
    if args.paths == ["-"]:
        name = args.stdin_filename or "-"
        outcome = fix_source(name, sys.stdin.buffer.read(), settings, unsafe=unsafe)
        if args.diff:
            sys.stdout.write(unified_diff(name, outcome))
        else:
            sys.stdout.buffer.write(outcome.source)
            sys.stdout.flush()
        outcomes, errors = [outcome], list(outcome.result.errors)
    else:
        bad, outcomes = runner.fix_paths(args.paths, settings, unsafe=unsafe)
        errors = [e for r in bad for e in r.errors]
        errors += [e for o in outcomes for e in o.result.errors]
        for outcome in outcomes:
            if not outcome.changed:
                continue
            name = outcome.result.filename
            if args.diff:
                sys.stdout.write(unified_diff(name, outcome))
            else:
                try:
                    Path(name).write_bytes(outcome.source)
                except OSError as err:
                    errors.append(f"{name}: cannot write: {err.strerror or err}")
    fixed = sum(o.fixed for o in outcomes)
    remaining = [f for o in outcomes for f in o.result.findings]
    if args.diff:
        for error in errors:
            print(f"jitlint: error: {error}", file=sys.stderr)
        n = fixed
        print(f"Would fix {n} error{'s' if n != 1 else ''}.", file=sys.stderr)
        if errors:
            return EXIT_ERROR
        return EXIT_FINDINGS if any(o.changed for o in outcomes) else EXIT_CLEAN
    if args.paths == ["-"]:
        for error in errors:
            print(f"jitlint: error: {error}", file=sys.stderr)
    else:
        _report(args, remaining, errors)
    _summary(remaining, len(errors), fixed, args.unsafe_fixes)
    if errors:
        return EXIT_ERROR
    return EXIT_FINDINGS if remaining and not args.exit_zero else EXIT_CLEAN


def _statistics(findings: list[Finding], out: TextIO, unsafe: bool = False) -> None:
    counts = Counter((f.code, f.name) for f in findings)
    fixable = {f.code for f in findings if applicable(f, unsafe)}
    for (code, name), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        mark = "[*]" if code in fixable else "[ ]"
        out.write(f"{n:>5}\t{code}\t{mark} {name}\n")


def _summary(findings: list[Finding], n_errors: int, fixed: int = 0, unsafe: bool = False) -> None:
    n = len(findings) + fixed
    if fixed:
        print(
            f"Found {n} error{'s' if n != 1 else ''} ({fixed} fixed, {len(findings)} remaining).",
            file=sys.stderr,
        )
    elif findings:
        print(f"Found {n} error{'s' if n != 1 else ''}.", file=sys.stderr)
        fixable = sum(1 for f in findings if applicable(f, unsafe))
        hidden = sum(1 for f in findings if f.fixable) - fixable
        if fixable:
            print(f"[*] {fixable} fixable with `jitlint --fix`.", file=sys.stderr)
        if hidden:
            print(f"{hidden} more fixable with `--fix --unsafe-fixes`.", file=sys.stderr)
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
