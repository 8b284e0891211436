"""Lint files: discovery, the cheap prefilter, parsing, analysis, noqa and positions.

``lint_source`` is a pure function of (filename, bytes, settings) so that a process pool and
a content-hash cache can wrap it without changing it.
"""

from __future__ import annotations

import ast
import io
import os
import re
import sys
import tokenize
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path

import libcst as cst

from jitlint.analysis.analyzer import Analysis, RawFinding
from jitlint.analysis.module_info import collect
from jitlint.engine.positions import locate
from jitlint.fixes.edits import NodeFix, import_anchors, materialize
from jitlint.model import FileResult, Finding, Location
from jitlint.rules import all_rules
from jitlint.rules.base import Rule

SYNTAX_ERROR = ("JIT900", "syntax-error")
_SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        "build",
        "dist",
        "__pycache__",
        "node_modules",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        ".eggs",
        ".jitlint_cache",
    }
)
_MENTIONS = (b"jax", b"flax", b"equinox")
_RECURSION_LIMIT = 20_000
_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.I)
_FILE_NOQA = re.compile(r"^\s*#\s*jitlint:\s*noqa\s*$", re.I | re.M)


@dataclass(frozen=True)
class Settings:
    """Say what to check: selected rule codes, per-file ignores, extra jit wrappers."""

    select: frozenset[str] = field(default_factory=lambda: frozenset(r.code for r in all_rules()))
    per_file_ignores: tuple[tuple[str, frozenset[str]], ...] = ()
    extend_jit_wrappers: frozenset[str] = frozenset()
    exclude: tuple[str, ...] = ()
    root: str = "."

    def codes_for(self, filename: str) -> frozenset[str]:
        """Return the codes selected for one file after per-file ignores."""
        rel = _relative(filename, self.root)
        codes = self.select
        for pattern, ignored in self.per_file_ignores:
            if _matches(rel, pattern):
                codes = frozenset(c for c in codes if not any(c.startswith(i) for i in ignored))
        return codes


def _relative(filename: str, root: str) -> str:
    try:
        return Path(os.path.abspath(filename)).relative_to(os.path.abspath(root)).as_posix()
    except ValueError:
        return Path(filename).as_posix()


def _matches(rel: str, pattern: str) -> bool:
    pattern = pattern.rstrip("/")
    if fnmatch(rel, pattern) or fnmatch(rel, pattern + "/*"):
        return True
    parts = rel.split("/")
    return any(fnmatch(p, pattern) for p in parts) or fnmatch(parts[-1], pattern)


# Discovery --------------------------------------------------------------------
def discover(paths: Sequence[str], settings: Settings) -> Iterator[tuple[str, str | None]]:
    """Yield (file path, None) for each Python file, or (path, error) for a bad path."""
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            yield raw, f"{raw}: No such file or directory"
        elif path.is_dir():
            yield from _walk(path, settings)
        elif not _excluded(raw, settings):
            yield raw, None


def _walk(top: Path, settings: Settings) -> Iterator[tuple[str, str | None]]:
    def on_error(err: OSError) -> None:
        errors.append(f"{err.filename}: {err.strerror}")

    errors: list[str] = []
    for dirpath, dirnames, filenames in os.walk(top, onerror=on_error):
        dirnames[:] = sorted(
            d
            for d in dirnames
            if d not in _SKIP_DIRS
            and not d.endswith(".egg-info")
            and not os.path.exists(os.path.join(dirpath, d, "pyvenv.cfg"))
            and not _excluded(os.path.join(dirpath, d), settings)
        )
        for name in sorted(filenames):
            if name.endswith((".py", ".pyi")):
                full = os.path.join(dirpath, name)
                if not _excluded(full, settings):
                    yield full, None
        while errors:
            yield "", errors.pop()


def _excluded(path: str, settings: Settings) -> bool:
    rel = _relative(path, settings.root)
    return any(_matches(rel, pattern) for pattern in settings.exclude)


# Linting one file ---------------------------------------------------------------
def mentions_jax(source: bytes, settings: Settings) -> bool:
    """Tell whether a file can contain traced code (cheap test before parsing)."""
    if any(m in source for m in _MENTIONS):
        return True
    return any(w.rsplit(".", 1)[-1].encode() in source for w in settings.extend_jit_wrappers)


def _decode(source: bytes) -> str:
    encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    return source.decode(encoding)


# Long operator chains (`a + b + ... ` with a thousand terms) are valid Python that CPython
# compiles, but the tree walks recurse once per term. Python 3.11 keeps pure-Python calls off
# the C stack, so a higher limit while linting is safe; deeper code still ends in a clean error.
_RECURSION_LIMIT = 12_000


def lint_source(
    filename: str, source: bytes, settings: Settings, rules: Sequence[Rule] | None = None
) -> FileResult:
    """Lint one file's bytes; never raises for any input."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, _RECURSION_LIMIT))
    try:
        return _lint_source(filename, source, settings, rules)
    finally:
        sys.setrecursionlimit(limit)


def _lint_source(
    filename: str, source: bytes, settings: Settings, rules: Sequence[Rule] | None
) -> FileResult:
    result = FileResult(filename)
    if not mentions_jax(source, settings):
        result.skipped = True
        return result
    codes = settings.codes_for(filename)
    active = [r for r in (rules or default_rules()) if r.code in codes]
    try:
        text = _decode(source)
    except UnicodeDecodeError as err:
        row = source.count(b"\n", 0, err.start) + 1
        col = err.start - (source.rfind(b"\n", 0, err.start) + 1) + 1
        message = f"cannot decode file: invalid {err.encoding} byte 0x{source[err.start]:02x}"
        result.findings.append(_syntax_finding(filename, message, row, col))
        return result
    except (SyntaxError, LookupError) as err:
        result.findings.append(_syntax_finding(filename, f"cannot decode file: {err}", 1, 1))
        return result
    if _FILE_NOQA.search(text):
        return result
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as err:
        result.findings.append(_parse_error(filename, text, err))
        return result
    except (RecursionError, MemoryError) as err:
        result.errors.append(f"{filename}: cannot parse: {type(err).__name__}")
        return result
    # The walk recurses once per nesting level, and a long `a + b + ...` chain is a deep
    # tree. Python-to-Python calls do not use the C stack (3.11+), so a high limit is safe.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, _RECURSION_LIMIT))
    try:
        analysis = Analysis(module, collect(module, text), active, settings.extend_jit_wrappers)
        analysis.run()
        raw = list(analysis.findings.values())
        result.findings.extend(_filter_noqa(_locate(module, raw, filename), text))
    except RecursionError:
        result.errors.append(f"{filename}: internal error: expression nesting too deep")
    except Exception as err:  # one file's bug must not stop the run
        result.errors.append(f"{filename}: internal error: {type(err).__name__}: {err}")
    finally:
        sys.setrecursionlimit(limit)
    result.findings.sort(key=lambda f: (f.location, f.code))
    return result


_DEFAULT_RULES: list[Rule] = []


def default_rules() -> list[Rule]:
    """Return one instance of every rule (rules are stateless)."""
    if not _DEFAULT_RULES:
        _DEFAULT_RULES.extend(r() for r in all_rules())
    return _DEFAULT_RULES


def _syntax_finding(filename: str, message: str, row: int, col: int) -> Finding:
    loc = Location(max(row, 1), max(col, 1))
    return Finding(SYNTAX_ERROR[0], SYNTAX_ERROR[1], message, filename, loc, loc)


def _parse_error(filename: str, text: str, err: cst.ParserSyntaxError) -> Finding:
    """Describe a parse failure; Python's own parser gives the clearer message and place."""
    try:
        ast.parse(text)
    except SyntaxError as py_err:
        return _syntax_finding(
            filename, f"syntax error: {py_err.msg}", py_err.lineno or 1, py_err.offset or 1
        )
    except (ValueError, RecursionError, MemoryError):
        pass
    message = f"syntax not supported by the parser: {err.message}"
    return _syntax_finding(filename, message, err.raw_line, err.raw_column + 1)


def _locate(module: cst.Module, raw: list[RawFinding], filename: str) -> list[Finding]:
    """Attach positions, resolved only inside the statements that hold a finding."""
    if not raw:
        return []
    nodes: list[cst.CSTNode] = [r.node for r in raw]
    for r in raw:
        if isinstance(r.fix, NodeFix):
            nodes.extend(rep.node for rep in r.fix.replacements)
            if r.fix.imports:
                nodes.extend(import_anchors(module))
    ranges = locate(module, nodes)
    out = []
    for r in raw:
        pos = ranges[id(r.node)]
        fix = materialize(module, r.fix, ranges) if isinstance(r.fix, NodeFix) else r.fix
        out.append(
            Finding(
                r.rule.code,
                r.rule.name,
                r.message,
                filename,
                Location(pos.start.line, pos.start.column + 1),
                Location(pos.end.line, pos.end.column + 1),
                fix,
                r.rule.url(),
            )
        )
    return out


def _filter_noqa(findings: list[Finding], text: str) -> list[Finding]:
    if not findings or "noqa" not in text:
        return findings
    lines = text.splitlines()
    kept = []
    for f in findings:
        line = lines[f.location.row - 1] if f.location.row <= len(lines) else ""
        match = _NOQA.search(line)
        if match is None:
            kept.append(f)
            continue
        codes = match.group("codes")
        if codes is None:
            continue  # a bare noqa comment silences everything on the line
        listed = {c.upper() for c in re.split(r"[\s,]+", codes) if c}
        if f.code not in listed:
            kept.append(f)
    return kept


def lint_file(path: str, settings: Settings) -> FileResult:
    """Read and lint one file; unreadable files become an error line."""
    try:
        source = Path(path).read_bytes()
    except OSError as err:
        return FileResult(path, errors=[f"{path}: {err.strerror or err}"])
    return lint_source(path, source, settings)
