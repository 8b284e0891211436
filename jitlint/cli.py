"""The ``jitlint`` command line: ruff's conventions, so people's habits work."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn, TextIO

from jitlint._version import __version__
from jitlint.config import ConfigError, Overrides, Resolver, describe, find_config, load
from jitlint.engine import runner
from jitlint.engine.cache import DEFAULT_DIR, Cache
from jitlint.engine.discovery import discover
from jitlint.engine.fixing import unified_diff
from jitlint.engine.notebook import fix_any
from jitlint.engine.settings import SettingsFor
from jitlint.fixes.apply import applicable
from jitlint.model import FileResult, Finding
from jitlint.output import registry
from jitlint.output.sources import Sources
from jitlint.rules import all_rules
from jitlint.rules import file_rules as filerules

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
    p.add_argument(
        "--config", metavar="PATH", help="use this config file for every file (no search)"
    )
    p.add_argument("--extend-exclude", type=_csv, default=[], help="more path patterns to skip")
    p.add_argument(
        "--no-respect-gitignore",
        action="store_true",
        help="lint files that .gitignore and git's excludes leave out",
    )
    p.add_argument(
        "--force-exclude",
        action="store_true",
        help="apply excludes and .gitignore to paths given explicitly too (for pre-commit)",
    )
    p.add_argument(
        "--show-settings", metavar="FILE", help="print the settings that apply to FILE and exit"
    )
    p.add_argument(
        "--show-files", action="store_true", help="print the files that would be linted and exit"
    )
    p.add_argument(
        "--project",
        action="store_true",
        help="follow traced code into the project's other modules (slower; opt-in for now)",
    )
    p.add_argument("--no-cache", action="store_true", help="do not read or write the cache")
    p.add_argument("--cache-dir", help=f"where to cache results (default: {DEFAULT_DIR})")
    p.add_argument("--watch", action="store_true", help="re-lint whenever a file changes")
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
    if args_list[:1] == ["server"]:
        from jitlint.server import main as server_main

        return server_main(args_list[1:])
    args = _parser().parse_args(args_list)
    if args.watch:
        return _watch(args, [a for a in args_list if a != "--watch"])
    overrides = Overrides(
        args.select,
        args.ignore,
        args.extend_select,
        args.extend_exclude,
        respect_gitignore=False if args.no_respect_gitignore else None,
        force_exclude=True if args.force_exclude else None,
    )
    try:
        resolver = Resolver(overrides, args.config)
        if args.show_settings is not None:
            cfg = resolver.config_for(args.show_settings)
            for line in describe(cfg, resolver.settings_for(args.show_settings)):
                print(line)
            return EXIT_CLEAN
        if args.show_files:
            return _show_files(args.paths, resolver)
        # Check every config the run will use up front: a bad one is one line, not a
        # traceback from the middle of the run.
        for path in args.paths:
            resolver.settings_for(args.stdin_filename or "." if path == "-" else path)
        if args.fix or args.diff:
            return _fix(args, resolver)
        sources = Sources()
        results = _lint(
            args.paths, resolver, args.stdin_filename, _cache(args), sources, args.project
        )
    except ConfigError as err:
        print(f"jitlint: error: {err}", file=sys.stderr)
        return EXIT_ERROR
    findings = [f for r in results for f in r.findings]
    errors = [e for r in results for e in r.errors]
    _report(args, findings, errors, sources)
    _summary(findings, len(errors), unsafe=args.unsafe_fixes, files=len(results))
    return _exit_code(args, findings, errors)


def _exit_code(args: argparse.Namespace, findings: list[Finding], errors: list[str]) -> int:
    # A file that could not be checked (crash, timeout, limit) means the run did not do its job.
    if errors or any(f.code in filerules.ERROR_CODES for f in findings):
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
        _statistics(findings, sys.stdout, args.unsafe_fixes, json_out=args.output_format == "json")
    else:
        registry.write(args.output_format, findings, sys.stdout, sources, unsafe=args.unsafe_fixes)


def _show_files(paths: Sequence[str], resolver: Resolver) -> int:
    errors = 0
    for path, error in discover([p for p in paths if p != "-"], resolver):
        if error is not None:
            errors += 1
            print(f"jitlint: error: {error}", file=sys.stderr)
        else:
            print(path)
    return EXIT_ERROR if errors else EXIT_CLEAN


def _cache(args: argparse.Namespace) -> Cache | None:
    if args.no_cache:
        return None
    if args.cache_dir:
        return Cache(args.cache_dir)
    # One cache per run, where the config of the paths' common directory says (or beside it).
    found = Path(args.config) if args.config else find_config(_common(args.paths))
    if found is None:
        return Cache(DEFAULT_DIR)
    return Cache(load(found).cache_dir or found.parent / DEFAULT_DIR)


def _common(paths: Sequence[str]) -> str:
    real = [os.path.abspath(p) for p in paths if p != "-"] or [os.getcwd()]
    try:
        return os.path.commonpath(real)
    except ValueError:
        return os.getcwd()


def _lint(
    paths: Sequence[str],
    settings: SettingsFor,
    stdin_name: str | None,
    cache: Cache | None,
    sources: Sources,
    project: bool = False,
) -> list[FileResult]:
    results: list[FileResult] = []
    files = [p for p in paths if p != "-"]
    for raw in paths:
        if raw == "-":
            name = stdin_name or "-"
            data = sys.stdin.buffer.read()
            sources.add(name, data)  # `full` and `sarif` show lines of what was linted
            results.append(runner.lint_isolated(name, data, settings(name)))
        elif files:  # all files at once, where the first one was named
            results.extend(runner.lint_paths(files, settings, cache, project=project))
            files = []
    return results


def _fix(args: argparse.Namespace, settings: SettingsFor) -> int:
    """Run --fix / --diff: fix in memory, then write files or print the diff."""
    unsafe = args.unsafe_fixes
    if args.paths == ["-"]:
        name = args.stdin_filename or "-"
        outcome = fix_any(name, sys.stdin.buffer.read(), settings(name), unsafe=unsafe)
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
    _summary(remaining, len(errors), fixed, args.unsafe_fixes, files=len(outcomes))
    return _exit_code(args, remaining, errors)


def _watch(args: argparse.Namespace, once: list[str]) -> int:
    """Run once, then again after every change to a Python file or pyproject.toml."""
    if "-" in args.paths or args.fix or args.diff:
        message = "jitlint: error: --watch cannot be combined with '-', --fix or --diff"
        print(message, file=sys.stderr)
        return EXIT_ERROR
    from jitlint.server.watch import watch

    return watch(args.paths, lambda: _main(once))


def _statistics(
    findings: list[Finding], out: TextIO, unsafe: bool = False, *, json_out: bool = False
) -> None:
    counts = Counter((f.code, f.name) for f in findings)
    fixable = {f.code for f in findings if applicable(f, unsafe)}
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    if json_out:  # ruff's shape: one object per rule
        rows = [
            {"code": code, "name": name, "count": n, "fixable": code in fixable}
            for (code, name), n in ranked
        ]
        json.dump(rows, out, indent=2)
        out.write("\n")
        return
    for (code, name), n in ranked:
        mark = "[*]" if code in fixable else "[ ]"
        out.write(f"{n:>5}\t{code}\t{mark} {name}\n")


def _summary(
    findings: list[Finding],
    n_errors: int,
    fixed: int = 0,
    unsafe: bool = False,
    files: int | None = None,
) -> None:
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
    elif files == 0 and not n_errors:
        print("No Python files or notebooks found; nothing was checked.", file=sys.stderr)
    elif not n_errors:
        print("All checks passed!", file=sys.stderr)


_RULE_USAGE = """usage: jitlint rule CODE|NAME
       jitlint rule --all

Print the documentation of one rule (by code, e.g. JIT101, or name, e.g. traced-if);
--all lists every rule's code and name.
"""


def _rule_command(args: Sequence[str], out: TextIO) -> int:
    rules: list[tuple[str, str, str]] = [(r.code, r.name, r.doc()) for r in all_rules()]
    rules += [(r.code, r.name, r.doc()) for r in filerules.FILE_RULES]
    if args in (["--help"], ["-h"]):
        out.write(_RULE_USAGE)
        return EXIT_CLEAN
    if args in (["--all"], ["--list"]):
        for code, name, _ in rules:
            out.write(f"{code}\t{name}\n")
        return EXIT_CLEAN
    if len(args) != 1:
        print("jitlint: error: usage: jitlint rule CODE|NAME (or --all)", file=sys.stderr)
        return EXIT_ERROR
    wanted = args[0]
    for code, name, doc in rules:
        if wanted.upper() == code or wanted == name:
            out.write(f"# {name} ({code})\n\n{doc}\n")
            return EXIT_CLEAN
    print(f"jitlint: error: unknown rule `{wanted}`", file=sys.stderr)
    return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
