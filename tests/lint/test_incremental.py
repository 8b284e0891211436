"""Linting with a ``Session`` (the editor's path) gives exactly what a full lint gives.

The session re-parses only the top-level statements that changed between versions and keeps
positions of unchanged statements; after any sequence of edits the module must equal a full
parse and the findings must equal a full ``lint_source`` of the new text.
"""

from __future__ import annotations

import ast
from pathlib import Path

import libcst as cst
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import jitlint
from jitlint.engine.incremental import IncrementalParser, PythonParse, spans

LINT = Path(__file__).resolve().parent
FILES = sorted((LINT / "corpus").glob("*.py")) + sorted((LINT / "realworld").glob("*.py"))
SOURCES = {p.name: p.read_text(encoding="utf-8") for p in FILES}
SETTINGS = jitlint.Settings()

# Lines an edit may insert or put in place of another: blank and indented lines, comments,
# openers of blocks and strings, decorators, tabs, CR and CRLF, non-ASCII.
LINES = [
    "",
    "   ",
    "# a comment",
    "    # an indented comment",
    "x = 1",
    "def g(y):",
    "    return y",
    "\treturn 2",
    "@jax.jit",
    "@partial(jax.jit, static_argnums=0)",
    "class C:",
    "if x > 0:",
    "    if jnp.sum(y) > 0:",
    '"""',
    "    '''doc",
    "s = 'é😀 ü'",
    "π = 3.14  # ünïcode",
    "y = (1,",
    ")",
    "z = 1 \\",
    "import jax",
    "import jax.numpy as jnp",
    "\r",
    "  pass",
]
CHARS = ["", " ", "\t", "\n", "\r\n", "\r", "#", ":", "(", ")", "'", '"', "@", "é", "😀", "x", "0"]


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _edit(text: str, kind: int, where: float, line: str, chars: str, width: int) -> str:
    lines = _lines(text)
    row = min(int(where * (len(lines) + 1)), len(lines))
    newline = "\r\n" if "\r\n" in text else "\n"
    if kind == 0:  # insert a line
        lines.insert(row, line + newline)
    elif kind == 1 and lines:  # delete lines
        del lines[min(row, len(lines) - 1) : row + width]
    elif kind == 2 and lines:  # replace a line
        lines[min(row, len(lines) - 1)] = line + newline
    else:  # insert or delete characters
        at = min(int(where * (len(text) + 1)), len(text))
        return text[:at] + chars + text[at + (width if kind == 4 else 0) :]
    return "".join(lines)


EDIT = st.tuples(
    st.integers(0, 4),
    st.floats(0, 1),
    st.sampled_from(LINES),
    st.sampled_from(CHARS),
    st.integers(0, 3),
)


def _full(text: str, name: str) -> jitlint.FileResult:
    return jitlint.lint_source(text, filename=name, settings=SETTINGS)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)
@given(name=st.sampled_from(sorted(SOURCES)), edits=st.lists(EDIT, min_size=1, max_size=4))
def test_random_edits_lint_like_a_full_lint(name: str, edits: list[tuple]) -> None:  # type: ignore[type-arg]
    session = jitlint.Session()
    text = SOURCES[name]
    assert jitlint.lint_source(text, filename=name, settings=SETTINGS, session=session) == _full(
        text, name
    )
    for edit in edits:
        text = _edit(text, *edit)
        got = jitlint.lint_source(text, filename=name, settings=SETTINGS, session=session)
        assert got == _full(text, name), repr(text)


def _parses_like_libcst(parser: IncrementalParser, text: str) -> cst.Module:
    module = parser.parse(text, ast.parse(text))
    expected = cst.parse_module(text)
    assert module.deep_equals(expected)
    # Equal to libcst's own parse, not always to ``text``: libcst 1.9 drops the blank lines
    # before a whitespace-only last line ("x = 1\n\n   \n" prints "x = 1\n   \n"). Fixes are
    # text edits, so the lint never writes ``module.code`` back.
    assert module.code == expected.code
    for name in ("default_indent", "default_newline", "has_trailing_newline", "encoding"):
        assert getattr(module, name) == getattr(expected, name), name
    return module


@settings(max_examples=80, deadline=None, database=None)
@given(name=st.sampled_from(sorted(SOURCES)), edits=st.lists(EDIT, min_size=1, max_size=6))
# blank lines, then a whitespace-only last line (found by CI)
@example(name="aesara43_reshape_by_jnp_array.py", edits=[(2, 1.0, "   ", "", 0)])
def test_random_edits_parse_like_libcst(name: str, edits: list[tuple]) -> None:  # type: ignore[type-arg]
    parser = IncrementalParser()
    text = SOURCES[name]
    _parses_like_libcst(parser, text)
    for edit in edits:
        text = _edit(text, *edit)
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            continue  # the engine reports it before parsing with libcst
        del tree
        _parses_like_libcst(parser, text)


BASE = (
    "# header\n\nimport jax\nimport jax.numpy as jnp\n\n\n"
    "@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n    # footer of f\n"
    "# before g\n\n"
    "def g(x):\n  s = 'é😀'  # two-space indent\n  return jnp.sum(x)\n\n\n"
    "@jax.jit\ndef h(x):\n    while x > 0:\n        x = x - 1\n    return x\n"
)


def test_an_edit_reparses_one_chunk_and_keeps_the_rest() -> None:
    parser = IncrementalParser()
    first = _parses_like_libcst(parser, BASE)
    assert parser.parsed > 1
    second = _parses_like_libcst(parser, BASE.replace("return -x", "return -x * 2"))
    assert parser.parsed == 1 and parser.reused >= 4
    unchanged = [a for a, b in zip(first.body, second.body, strict=True) if a is b]
    assert len(unchanged) == len(first.body) - 1  # only f is a new object


def test_targeted_edits() -> None:
    """Edits inside strings, decorators and comments, CRLF and tabs, and mid-edit errors."""
    variants = [
        BASE.replace("'é😀'", "'é😀\\n'"),  # inside a string
        BASE.replace(
            "s = 'é😀'", 's = """\ndef fake():\n    pass\n"""'
        ),  # a string that looks like code
        BASE.replace("@jax.jit\ndef h", "@jax.jit(\n    donate_argnums=0)\ndef h"),  # decorator
        BASE.replace("# before g", "    # now indented: the footer of f"),  # comment ownership
        BASE.replace("# footer of f", "# dedented"),
        BASE.replace("\n", "\r\n"),  # CRLF
        BASE.replace("    ", "\t"),  # tabs
        BASE.replace("  s = ", "\ts = "),  # mixed
        BASE.replace("def g(x):\n", "def g(x):\n\n"),
        BASE.rstrip("\n"),  # no final newline
        BASE + "\n\n# trailing comment",
        BASE.replace("# header\n\n", ""),  # the first statement on line 1
        BASE.replace("import jax\n", "import jax; import functools\n"),
        BASE.replace("def f(x):", "def f(x:"),  # a syntax error mid-edit
        BASE.replace("return x\n    return -x", "return x\n   return -x"),  # a bad dedent
        BASE.replace("while x > 0:", "while x > 0: x = x - 1\n    if x:"),
        BASE,
    ]
    session = jitlint.Session()
    parser = IncrementalParser()
    for text in [*variants, *reversed(variants)]:
        assert jitlint.lint_source(
            text, filename="m.py", settings=SETTINGS, session=session
        ) == _full(text, "m.py")
        try:
            ast.parse(text)
        except SyntaxError:
            continue
        _parses_like_libcst(parser, text)


def test_duplicate_statements_do_not_share_nodes() -> None:
    block = "@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return x\n\n"
    text = "import jax\n\n" + block * 3
    parser = IncrementalParser()
    _parses_like_libcst(parser, text)
    module = _parses_like_libcst(parser, text + "y = 1\n")
    assert len({id(s) for s in module.body}) == len(module.body)
    session = jitlint.Session()
    for version in (text, text + "y = 1\n", text.replace("return x\n\n", "return -x\n\n", 1)):
        got = jitlint.lint_source(version, filename="m.py", settings=SETTINGS, session=session)
        assert got == _full(version, "m.py")
        assert len(got.findings) == 3


@settings(max_examples=150, deadline=None, database=None)
@given(name=st.sampled_from(sorted(SOURCES)), edits=st.lists(EDIT, min_size=1, max_size=6))
# A lone "\r" in the version before (Python counts it as a line break, the re-parse did not)
@example(
    name="extend_global.py",
    edits=[
        (2, 0.7723956883146263, "", "0", 3),
        (0, 0.16961389535431437, "    if jnp.sum(y) > 0:", "\t", 0),
        (1, 0.6533993960599342, "@jax.jit", "\r\n", 2),
        (3, 0.9219438498451716, "  pass", "\r", 3),
        (1, 0.807401294217718, "    if jnp.sum(y) > 0:", "0", 1),
    ],
)
def test_partial_python_parses_agree_with_whole_ones(name: str, edits: list[tuple]) -> None:  # type: ignore[type-arg]
    # Where a re-parse of the touched statements answers, the whole text must parse and
    # give the same statement spans; where it cannot tell, it says so (None).
    python = PythonParse()
    text = SOURCES[name]
    python.remember(text, spans(ast.parse(text)))
    for edit in edits:
        text = _edit(text, *edit)
        found = python.reparse(text, "f.py")
        try:
            whole = spans(ast.parse(text))
        except (SyntaxError, ValueError):
            assert found is None, text
            python.forget()
            python.remember(SOURCES[name], spans(ast.parse(SOURCES[name])))
            text = SOURCES[name]
            continue
        if found is not None:
            assert found == whole, text
        python.remember(text, whole)
