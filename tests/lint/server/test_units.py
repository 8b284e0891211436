"""Position conversion, noqa edits, whole-file edits and client settings, without a server."""

from __future__ import annotations

import pytest
from lsprotocol import types

import jitlint
from jitlint.server.convert import noqa_edit, replace_all
from jitlint.server.positions import LineIndex
from jitlint.server.settings import ClientSettings, parse
from tests.lint.server.lsp import apply_edits


@pytest.mark.parametrize(("encoding", "expected"), [("utf-16", 4), ("utf-8", 7), ("utf-32", 3)])
def test_columns_in_each_encoding(encoding: str, expected: int):
    text = 'a\r\n\tö🎉 = "x"  # é\n'
    index = LineIndex(text, encoding)
    # Column 4 (code points, 1-based) is the space after the emoji on line 2.
    pos = index.to_lsp(2, 4)
    assert pos == types.Position(line=1, character=expected)
    assert index.from_lsp(pos) == (2, 4)


def test_only_lsp_line_endings_split_lines():
    text = "x = 1\x0c\u2028y\ry = 2\r\nz\n"
    index = LineIndex(text)
    assert [index.line(r) for r in range(1, 6)] == ["x = 1\x0c\u2028y", "y = 2", "z", "", ""]
    assert index.location(text.index("z")) == (3, 1)


def test_positions_past_the_end_are_clamped():
    index = LineIndex("ab\ncd")
    assert index.to_lsp(9, 1) == types.Position(line=1, character=2)
    assert index.from_lsp(types.Position(line=0, character=99)) == (1, 3)


def _noqa(text: str, row: int, code: str = "JIT101") -> str | None:
    index = LineIndex(text)
    edit = noqa_edit(index, row, code)
    return None if edit is None else apply_edits(text, [edit])


def test_noqa_added_extended_or_refused():
    assert _noqa("if x:   \n    pass\n", 1) == "if x:  # noqa: JIT101\n    pass\n"
    assert _noqa("y = f(x)  # why\n", 1) == "y = f(x)  # why  # noqa: JIT101\n"
    assert _noqa("y = x  # noqa: JIT203\n", 1) == "y = x  # noqa: JIT203, JIT101\n"
    assert _noqa("y = x  # noqa: JIT101\n", 1) is None  # already there
    assert _noqa('s = f("""a\nb""")\n', 1) is None  # the line ends inside a string
    assert _noqa("y = a + \\\n    b\n", 1) is None  # a backslash continues the line
    assert _noqa("y = f(a,\n      b)\n", 1) == "y = f(a,  # noqa: JIT101\n      b)\n"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("a\r\nb\r\n", "a\r\nc\r\nb\r\n"),
        ("x[i] = 0\r\n", "x = x.at[i].set(0)\r\n"),
        ("same", "same"),
        ("", "new\n"),
        ("a\rb", "a\r\nb"),
    ],
)
def test_replace_all_is_minimal_and_exact(old: str, new: str):
    edit = replace_all(old, new, LineIndex(old))
    assert apply_edits(old, [edit]) == new
    assert len(edit.new_text) <= len(new)


def test_client_settings():
    client, problems = parse(
        {
            "jitlint": {
                "select": ["JIT1"],
                "ignore": "traced-while",
                "fixAll": False,
                "severity": {"jit101": "error", "print-in-jit": "hint", "JIT2": "bad"},
                "debounce": -1,
                "extra": 1,
            }
        }
    )
    assert problems == [
        "`severity.JIT2`: use error, warning, information or hint",
        "`debounce` must be a number of milliseconds (0..10000)",
        "unknown setting `extra`",
    ]
    assert not client.fix_all
    assert client.severity_for("JIT101", "traced-if") == types.DiagnosticSeverity.Error
    assert client.severity_for("JIT203", "print-in-jit") == types.DiagnosticSeverity.Hint
    assert client.severity_for("JIT104", "traced-range") == types.DiagnosticSeverity.Warning
    assert client.severity_for("JIT900", "syntax-error") == types.DiagnosticSeverity.Error
    settings, unknown = client.apply(jitlint.Settings(), jitlint.rules())
    assert sorted(settings.select) == ["JIT101", "JIT103", "JIT104"]
    assert unknown == []
    _, unknown = ClientSettings(select=("JIT7",)).apply(jitlint.Settings(), jitlint.rules())
    assert unknown == ["JIT7"]
