"""Parse successive versions of one document, re-parsing only the statements that changed.

An editor sends the whole text after each keystroke, but a keystroke changes one top-level
statement. The text is cut into chunks at the lines where a top-level statement starts at
column 0 (found by Python's own parser, which the engine runs anyway); each chunk is parsed by
libcst on its own, and the parse of an unchanged chunk is kept.

A chunk parsed alone must give the nodes a parse of the whole text gives, so:

- Lines between two statements (blank lines, comments) belong partly to the first statement
  (an indented block's footer) and partly to the second (its ``leading_lines``). Each chunk
  is parsed with a ``pass`` after it standing for the next statement: what libcst gives that
  ``pass`` as leading lines is what the next statement gets in the whole text.
- libcst records an indented block's indent and a line's newline only where they differ from
  the module's defaults (the first indent and the first newline of the file). Each chunk but
  the first is parsed after an ``if 1:`` block written with the whole text's defaults, so the
  parser infers those same defaults.
- Two chunks with the same text must not share nodes (nodes are told apart by identity).

Anything unexpected (no syntax tree, a chunk that does not parse, a shape not foreseen) falls
back to a parse of the whole text. The result equals ``libcst.parse_module(text)``
(``deep_equals``); tests check this on random edits of real files.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

import libcst as cst

from jitlint.analysis.cst_util import NEWLINE, parse_module
from jitlint.engine.positions import PositionCache
from jitlint.engine.reanalysis import Reanalysis

_DEFAULT_INDENT = "    "  # libcst's default indent for a file without an indented block
_FIRST, _MIDDLE, _LAST = 0, 1, 2


class _Unexpected(Exception):
    """A chunk's parse does not have the expected shape: parse the whole text instead."""


_Statement = cst.SimpleStatementLine | cst.BaseCompoundStatement


@dataclass
class _Chunk:
    """The parse of one chunk of lines."""

    statements: list[_Statement]
    after: Sequence[cst.EmptyLine]  # leading lines of the statement after the chunk
    header: Sequence[cst.EmptyLine]  # the module header (first chunk)
    footer: Sequence[cst.EmptyLine]  # the module footer (last chunk)
    has_trailing_newline: bool
    default_newline: str
    default_indent: str
    # The first statement with the previous chunk's ``after`` as its leading lines, and the
    # ``after`` it was built for.
    joined: tuple[Sequence[cst.EmptyLine], _Statement] | None = None


_Key = tuple[str, str, str, int]


class IncrementalParser:
    """Parse versions of one document, keeping the parse of each unchanged chunk."""

    def __init__(self) -> None:
        self._chunks: dict[_Key, _Chunk] = {}
        self._indents: dict[str, str | None] = {}
        self.reused = 0  # chunks taken from the previous parse, in the latest parse
        self.parsed = 0  # chunks parsed, in the latest parse (0: the whole text was parsed)

    def parse(self, text: str, tree: ast.Module | Sequence[Span] | None) -> cst.Module:
        """Return ``libcst.parse_module(text)``; ``tree`` is Python's parse of the same text
        (or the spans of its top-level statements)."""
        self.reused = self.parsed = 0
        if tree is not None:
            found = spans(tree) if isinstance(tree, ast.Module) else tree
            try:
                module = self._parse(text, found)
            except Exception:  # whatever went wrong, the whole parse below decides
                module = None
            if module is not None:
                return module
        self._chunks.clear()
        self._indents.clear()
        self.reused = self.parsed = 0
        return parse_module(text)

    def _parse(self, text: str, statements: Sequence[Span]) -> cst.Module | None:
        cuts = _cuts(text, statements)
        if not cuts:
            return None
        starts = [0, *(match.end() for match in NEWLINE.finditer(text))]
        bounds = [0, *(starts[line - 1] for line in cuts), len(text)]
        texts = [text[a:b] for a, b in pairwise(bounds)]
        indent = self._default_indent(texts)
        if indent is None:
            return None
        first = self._chunk(texts[0], indent, "", _FIRST, set())
        newline = first.default_newline
        if first.default_indent != indent and self._indents.get(texts[0]) is not None:
            return None  # libcst and tokenize disagree on the file's first indent
        used: set[_Key] = {(texts[0], indent, "", _FIRST)}
        chunks = [first]
        for i, chunk_text in enumerate(texts[1:], start=1):
            kind = _LAST if i == len(texts) - 1 else _MIDDLE
            chunks.append(self._chunk(chunk_text, indent, newline, kind, used))
        body: list[_Statement] = list(first.statements)
        for before, chunk in pairwise(chunks):
            head, *rest = chunk.statements
            if chunk.joined is None or not _same_lines(chunk.joined[0], before.after):
                if head.leading_lines:
                    raise _Unexpected("a chunk's first statement has leading lines")
                chunk.joined = (before.after, head.with_changes(leading_lines=before.after))
            body.append(chunk.joined[1])
            body.extend(rest)
        last = chunks[-1]
        self._chunks = {k: v for k, v in self._chunks.items() if k in used}
        self._indents = {t: self._indents[t] for t in texts if t in self._indents}
        return cst.Module(
            body=body,
            header=first.header,
            footer=last.footer,
            encoding="utf-8",
            default_indent=indent,
            default_newline=newline,
            has_trailing_newline=last.has_trailing_newline,
        )

    def _default_indent(self, texts: list[str]) -> str | None:
        """Return the indent of the whole text's first indented block (libcst's default)."""
        for chunk_text in texts:
            if chunk_text not in self._indents:
                found = _first_indent(chunk_text)
                if found and cst.parse_module(chunk_text).default_indent != found:
                    found = ""  # libcst infers another indent than tokenize finds: unsure
                self._indents[chunk_text] = found
            found = self._indents[chunk_text]
            if found == "":
                return None  # not tokenizable alone: do not guess
            if found is not None:
                return found
        return _DEFAULT_INDENT

    def _chunk(self, text: str, indent: str, newline: str, kind: int, used: set[_Key]) -> _Chunk:
        key = (text, indent, newline, kind)
        chunk = self._chunks.get(key)
        if chunk is not None and key not in used:
            used.add(key)
            self.reused += 1
            return chunk
        chunk = _parse_chunk(text, indent, newline, kind)
        self.parsed += 1
        if key not in used:  # a second chunk with the same text gets its own nodes
            self._chunks[key] = chunk
            used.add(key)
        return chunk


def _same_lines(a: Sequence[cst.EmptyLine], b: Sequence[cst.EmptyLine]) -> bool:
    """Tell whether two runs of blank or comment lines are the same (nodes are immutable)."""
    return a is b or (len(a) == len(b) and all(x.deep_equals(y) for x, y in zip(a, b, strict=True)))


@dataclass(frozen=True)
class Span:
    """Where one top-level statement of Python's parse lies: what the chunking needs."""

    first: int  # its first line (its first decorator's, if it has any)
    end: int  # its last line
    col: int  # the column of the statement itself
    decorated: bool

    def shifted(self, lines: int) -> Span:
        return Span(self.first + lines, self.end + lines, self.col, self.decorated)


def spans(tree: ast.Module, offset: int = 0) -> list[Span]:
    """Return the spans of ``tree``'s top-level statements, ``offset`` lines further down."""
    out = []
    for stmt in tree.body:
        decorators = getattr(stmt, "decorator_list", None)
        first = decorators[0].lineno if decorators else stmt.lineno
        end = stmt.end_lineno or stmt.lineno
        out.append(Span(first + offset, end + offset, stmt.col_offset, bool(decorators)))
    return out


def _cuts(text: str, statements: Sequence[Span]) -> list[int]:
    """Return the lines where a chunk starts (a top-level statement at column 0), but line 1."""
    lines = NEWLINE.split(text)
    cuts: list[int] = []
    previous_end = 0
    for span in statements:
        first = span.first
        line = lines[first - 1] if 0 < first <= len(lines) else ""
        at_start = line.startswith("@") if span.decorated else span.col == 0
        if previous_end and first > previous_end and at_start and not line[:1].isspace():
            cuts.append(first)
        previous_end = max(previous_end, span.end)
    return cuts


class PythonParse:
    """Python's parse of successive versions of one document, as statement spans.

    Only the top-level statements an edit touches are parsed again: a module split where a
    top-level statement starts at column 0 parses piece by piece exactly as it does whole
    (the tokenizer holds no state there). Anything unusual (a change in the first two lines,
    where an encoding cookie may sit, or a piece that does not parse alone) is left to a
    parse of the whole text, whose verdict is the one reported.
    """

    def __init__(self) -> None:
        self._text: str | None = None
        self._spans: list[Span] = []

    def forget(self) -> None:
        self._text, self._spans = None, []

    def remember(self, text: str, found: list[Span]) -> None:
        self._text, self._spans = text, found

    def reparse(self, text: str, filename: str) -> list[Span] | None:
        """Return the spans of ``text`` from a parse of its changed statements only, or None
        when only a parse of the whole text can tell (including when it fails)."""
        old = self._text
        if old is None or not self._spans or "\r" in text or "\r" in old:
            return None  # lines are counted by "\n" here (Python counts a lone "\r" too)
        if "coding" in "".join(text.split("\n", 2)[:2]):
            return None  # an encoding declaration: Python decodes the bytes its own way
        if old == text:
            return self._spans
        limit = min(len(old), len(text))
        p = 0
        while p < limit and old[p] == text[p]:
            p += 1
        q = 0
        while q < limit - p and old[-1 - q] == text[-1 - q]:
            q += 1
        start_line = old.count("\n", 0, p) + 1
        end_line = old.count("\n", 0, len(old) - q) + 1
        if start_line <= 2:
            return None
        delta = text.count("\n") - old.count("\n")
        k = 0
        while k < len(self._spans) and self._spans[k].end < start_line:
            k += 1
        m = k
        while m < len(self._spans) and self._spans[m].first <= end_line:
            m += 1
        before, after = self._spans[:k], self._spans[m:]
        if not before or (k < len(self._spans) and self._spans[k].first <= before[-1].end):
            return None  # the change starts on a line another statement ends on
        if after and after[0].col != 0 and not after[0].decorated:
            return None  # the next statement shares its first line (`a = 1; b = 2`)
        first_line = before[-1].end + 1
        if first_line <= 2:
            return None
        starts = [0, *(m.end() for m in NEWLINE.finditer(text))]
        if first_line > len(starts):
            return None
        a = starts[first_line - 1]
        b = len(text)
        if after:
            if after[0].first + delta > len(starts):
                return None
            b = starts[after[0].first + delta - 1]
        if b < a:
            return None
        if text[:a].endswith("\\\n") or text[a:b].rstrip("\n").endswith("\\"):
            return None  # a line continuation joins the piece to its neighbour
        try:
            piece = compile(
                text[a:b].encode("utf-8"), filename, "exec", ast.PyCF_ONLY_AST, dont_inherit=True
            )
        except (SyntaxError, RecursionError, MemoryError, ValueError, UnicodeEncodeError):
            return None
        if not isinstance(piece, ast.Module):
            return None
        return [
            *before,
            *spans(piece, first_line - 1),
            *(s.shifted(delta) for s in after),
        ]


def _first_indent(text: str) -> str | None:
    """Return the whitespace of the first INDENT token of ``text``; None if it has none.

    Returns "" when ``text`` does not tokenize on its own. (The caller checks the answer
    against libcst's own inference, once per chunk text.)
    """
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.INDENT:
                return tok.string
    except (tokenize.TokenError, SyntaxError):
        return ""
    return None


def _parse_chunk(text: str, indent: str, newline: str, kind: int) -> _Chunk:
    if kind == _FIRST:
        module = parse_module(text + "pass\n")
        statements = list(module.body)
    else:
        prefix = f"if 1:{newline}{indent}pass{newline}"
        tail = "" if kind == _LAST else f"pass{newline}"
        module = parse_module(prefix + text + tail)
        statements = list(module.body)
        guard = statements.pop(0) if statements else None
        if (
            not isinstance(guard, cst.If)
            or not isinstance(guard.body, cst.IndentedBlock)
            or guard.body.footer
            or guard.orelse is not None
            or module.default_indent != indent
            or module.default_newline != newline
        ):
            raise _Unexpected("the prefix did not parse as written")
    after: Sequence[cst.EmptyLine] = ()
    if kind != _LAST:
        sentinel = statements.pop() if statements else None
        if (
            not isinstance(sentinel, cst.SimpleStatementLine)
            or len(sentinel.body) != 1
            or not isinstance(sentinel.body[0], cst.Pass)
            or module.footer
        ):
            raise _Unexpected("the closing pass did not parse as written")
        after = sentinel.leading_lines
    if not statements:
        raise _Unexpected("a chunk without statements")
    return _Chunk(
        statements=statements,
        after=after,
        header=module.header,
        footer=module.footer,
        has_trailing_newline=module.has_trailing_newline,
        default_newline=module.default_newline,
        default_indent=module.default_indent,
    )


class Session:
    """What the engine keeps between lints of successive versions of one document."""

    def __init__(self) -> None:
        self.parser = IncrementalParser()
        self.positions = PositionCache()
        self.analysis = Reanalysis()  # the walks of the last version, to replay
        self.python = PythonParse()  # Python's parse of the last version, as spans
        self.tree: Sequence[Span] | None = None  # the spans of the text being linted

    def parse(self, text: str) -> cst.Module:
        """Parse ``text`` (the text whose statement spans are in ``tree``), reusing what it
        can."""
        tree, self.tree = self.tree, None
        return self.parser.parse(text, tree)
