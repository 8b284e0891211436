"""Lint one file: the cheap prefilter, decoding, parsing, analysis, noqa and positions.

``lint_source`` is a pure function of (filename, bytes, settings) so that a process pool and
a content-hash cache can wrap it without changing it.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Sequence
from pathlib import Path

import libcst as cst

from jitlint.analysis.analyzer import MAX_ANALYSES, Analysis, RawFinding
from jitlint.analysis.cst_util import (
    collector_paused,
    decode_source,
    parse_module,
    parser_refuses,
)
from jitlint.analysis.module_info import collect
from jitlint.analysis.scopes import forget_scopes
from jitlint.analysis.transforms import TRANSFORMS
from jitlint.engine.incremental import Session, spans
from jitlint.engine.noqa import FILE_NOQA, filter_noqa
from jitlint.engine.positions import PositionCache, locate
from jitlint.engine.settings import Settings
from jitlint.fixes.edits import import_anchors, materialize
from jitlint.fixes.model import NodeFix
from jitlint.model import FileResult, Finding, Location
from jitlint.rules import all_rules
from jitlint.rules import file_rules as filerules
from jitlint.rules.base import Rule

SYNTAX_ERROR = (filerules.SYNTAX_ERROR.code, filerules.SYNTAX_ERROR.name)
# A file that names none of the libraries whose transforms trace code holds no traced code.
_MENTIONS = tuple(sorted({q.split(".", 1)[0].encode() for q in TRANSFORMS}))


def mentions_jax(source: bytes, settings: Settings) -> bool:
    """Tell whether a file can contain traced code (cheap test before parsing)."""
    if any(m in source for m in _MENTIONS):
        return True
    return any(w.rsplit(".", 1)[-1].encode() in source for w in settings.extend_jit_wrappers)


# Long operator chains (`a + b + ... ` with a thousand terms) are valid Python that CPython
# compiles, but the tree walks recurse once per term. Python 3.11 keeps pure-Python calls off
# the C stack, so a higher limit while linting is safe; deeper code still ends in a clean error.
_RECURSION_LIMIT = 12_000


def lint_source(
    filename: str,
    source: bytes,
    settings: Settings,
    rules: Sequence[Rule] | None = None,
    session: Session | None = None,
) -> FileResult:
    """Lint one file's bytes; never raises for any input.

    A ``session`` kept across calls for successive versions of one document makes the next
    call re-parse only the statements that changed; the result is the same.
    """
    result = _lint_or_refuse(filename, source, settings, rules, session)
    codes = settings.codes_for(filename)
    # The JIT9xx findings are selectable too: drop the ones this file's settings ignore.
    result.findings = [
        f for f in result.findings if f.code not in filerules.FILE_CODES or f.code in codes
    ]
    return result


def _lint_or_refuse(
    filename: str,
    source: bytes,
    settings: Settings,
    rules: Sequence[Rule] | None,
    session: Session | None = None,
) -> FileResult:
    if settings.max_file_bytes and len(source) > settings.max_file_bytes:
        if not mentions_jax(source, settings):
            return FileResult(filename, skipped=True)
        size, limit = len(source) / 1e6, settings.max_file_bytes / 1e6
        message = f"file too large ({size:.1f} MB > {limit:g} MB, `max-file-size`): not checked"
        return FileResult(filename, [_file_finding(filerules.LIMIT_REACHED, filename, message)])
    refusal = _python_refuses(filename, source, settings, session)
    if refusal is not None:
        return refusal
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, _RECURSION_LIMIT))
    try:
        return _lint_source(filename, source, settings, rules, session)
    finally:
        sys.setrecursionlimit(limit)
        forget_scopes()


def _python_refuses(
    filename: str, source: bytes, settings: Settings, session: Session | None = None
) -> FileResult | None:
    """Report what Python itself would refuse to compile, before the parser can crash on it.

    CPython rejects nesting deeper than its parser's limits (a SyntaxError) and expressions
    deeper than its compiler's recursion bound (a RecursionError); libcst's native parser has
    no such guard and can crash the process on the same input. Runs at the interpreter's own
    recursion limit, so the verdict is the one ``python file.py`` would give.
    """
    if session is not None:
        session.tree = None
    if not mentions_jax(source, settings):
        return None
    too_much = parser_refuses(source)
    if too_much is not None:
        message = f"could not be analysed: {too_much}"
        return FileResult(filename, [_file_finding(filerules.LIMIT_REACHED, filename, message)])
    text: str | None = None
    if session is not None:
        # An edit re-parses only the top-level statements it touches, when that can tell.
        try:
            text = source.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        found = None if text is None else session.python.reparse(text, filename)
        if text is not None and found is not None:
            session.python.remember(text, found)
            session.tree = found
            return None
        session.python.forget()
    try:
        with collector_paused():
            tree = compile(source, filename, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as err:
        if FILE_NOQA.search(source.decode("utf-8", "replace")):
            return FileResult(filename)
        if "encoding" in str(err.msg) or "decode" in str(err.msg):
            return None  # decoding problems get their own message below
        loc = (err.lineno or 1, err.offset or 1)
        finding = _syntax_finding(filename, f"syntax error: {err.msg}", *loc)
        return FileResult(filename, [finding])
    except (RecursionError, MemoryError) as err:
        message = (
            f"could not be analysed: nested deeper than Python's compiler accepts "
            f"({type(err).__name__} compiling it)"
        )
        return FileResult(filename, [_file_finding(filerules.LIMIT_REACHED, filename, message)])
    except ValueError:
        return None  # null bytes and the like: the parser below reports them
    if session is not None and isinstance(tree, ast.Module):
        session.tree = spans(tree)  # where the top-level statements are, for the parse
        if text is not None and not text.startswith("\ufeff"):
            session.python.remember(text, session.tree)
    return None


def _file_finding(rule: filerules.FileRule, filename: str, message: str) -> Finding:
    loc = Location(1, 1)
    return Finding(rule.code, rule.name, message, filename, loc, loc)


def _lint_source(
    filename: str,
    source: bytes,
    settings: Settings,
    rules: Sequence[Rule] | None,
    session: Session | None = None,
) -> FileResult:
    result = FileResult(filename)
    if not mentions_jax(source, settings):
        result.skipped = True
        return result
    codes = settings.codes_for(filename)
    active = [r for r in (rules or default_rules()) if r.code in codes]
    try:
        text = decode_source(source)
    except UnicodeDecodeError as err:
        row = source.count(b"\n", 0, err.start) + 1
        col = err.start - (source.rfind(b"\n", 0, err.start) + 1) + 1
        message = f"cannot decode file: invalid {err.encoding} byte 0x{source[err.start]:02x}"
        result.findings.append(_syntax_finding(filename, message, row, col))
        return result
    except (SyntaxError, LookupError) as err:
        result.findings.append(_syntax_finding(filename, f"cannot decode file: {err}", 1, 1))
        return result
    if FILE_NOQA.search(text):
        return result
    try:
        module = parse_module(text) if session is None else session.parse(text)
    except cst.ParserSyntaxError as err:
        result.findings.append(_parse_error(filename, text, err))
        return result
    except (RecursionError, MemoryError) as err:
        message = f"could not be analysed: parser ran out of {type(err).__name__[:-5].lower()}"
        result.findings.append(_file_finding(filerules.LIMIT_REACHED, filename, message))
        return result
    # The walk recurses once per nesting level, and a long `a + b + ...` chain is a deep
    # tree. Python-to-Python calls do not use the C stack (3.11+), so a high limit is safe.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, _RECURSION_LIMIT))
    try:
        info = collect(module, text)
        wrappers = settings.extend_jit_wrappers
        if session is None:
            analysis = Analysis(module, info, active, wrappers)
            analysis.run()
        else:  # re-analyse only what the edit can change
            analysis = session.analysis.run(module, info, active, wrappers)
        raw = list(analysis.findings.values())
        cache = session.positions if session is not None else None
        result.findings.extend(filter_noqa(_locate(module, raw, filename, cache), text))
        if cache is not None:
            cache.retain(module.body)
        if analysis.limit_reached:
            message = (
                f"analysis limit reached ({MAX_ANALYSES} function analyses): "
                "findings may be missing"
            )
            result.findings.append(_file_finding(filerules.LIMIT_REACHED, filename, message))
    except RecursionError:
        message = "could not be analysed: expressions nested too deeply"
        result.findings = [_file_finding(filerules.LIMIT_REACHED, filename, message)]
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


def _locate(
    module: cst.Module,
    raw: list[RawFinding],
    filename: str,
    cache: PositionCache | None = None,
) -> list[Finding]:
    """Attach positions, resolved only inside the statements that hold a finding."""
    if not raw:
        return []
    nodes: list[cst.CSTNode] = [r.node for r in raw]
    nodes.extend(name for r in raw if (name := _method_name(r.node)) is not None)
    for r in raw:
        if isinstance(r.fix, NodeFix):
            nodes.extend(rep.node for rep in r.fix.replacements)
            if r.fix.imports:
                nodes.extend(import_anchors(module))
    ranges = locate(module, nodes, cache)
    out = []
    for r in raw:
        pos = ranges[id(r.node)]
        start = pos.start
        name = _method_name(r.node)
        if name is not None and ranges[id(name)].start.line > start.line:
            start = ranges[id(name)].start
        fix = materialize(module, r.fix, ranges) if isinstance(r.fix, NodeFix) else r.fix
        out.append(
            Finding(
                r.rule.code,
                r.rule.name,
                r.message,
                filename,
                Location(start.line, start.column + 1),
                Location(pos.end.line, pos.end.column + 1),
                fix,
                r.rule.url(),
            )
        )
    return out


def _method_name(node: cst.CSTNode) -> cst.Name | None:
    """The method name of a call ``obj.method(...)``: Python's traceback shows its line.

    A call chained over several lines (``jnp.array(rows)\n.transpose()\n.tolist()``) fails,
    for Python and JAX, on the line of the method's name, so its finding starts there.
    """
    if type(node) is cst.Call and type(node.func) is cst.Attribute:
        return node.func.attr
    return None


def lint_file(path: str, settings: Settings) -> FileResult:
    """Read and lint one file; unreadable files become an error line."""
    try:
        source = Path(path).read_bytes()
    except OSError as err:
        return FileResult(path, errors=[f"{path}: {err.strerror or err}"])
    return lint_source(path, source, settings)
