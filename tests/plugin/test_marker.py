"""Parsing and validation of @pytest.mark.jitcheck(...)."""

from __future__ import annotations

import re

import pytest

from pytest_jitcheck import JitcheckUsageError
from pytest_jitcheck._marker import MarkerOptions, jitcheck_marker_options

VALID = [
    ("", MarkerOptions()),
    ("@pytest.mark.jitcheck(max_compiles=2)", MarkerOptions(max_compiles=2)),
    ("@pytest.mark.jitcheck(max_compiles=0)", MarkerOptions(max_compiles=0)),
    ("@pytest.mark.jitcheck(leaks=True)", MarkerOptions(leaks="fast")),
    ("@pytest.mark.jitcheck(leaks=False)", MarkerOptions(leaks="off")),
    ("@pytest.mark.jitcheck(leaks='strict')", MarkerOptions(leaks="strict")),
    ("@pytest.mark.jitcheck(eager=True)", MarkerOptions(eager=True)),
    # Like get_closest_marker: the decorator nearest the function wins, per keyword.
    (
        "@pytest.mark.jitcheck(max_compiles=1, leaks=False)\n"
        "@pytest.mark.jitcheck(max_compiles=5, eager=False)",
        MarkerOptions(max_compiles=5, leaks="off", eager=False),
    ),
]

INVALID = [
    ("max_compiles=-1", "max_compiles=...) takes an int >= 0, got -1"),
    ("max_compiles='2'", "max_compiles=...) takes an int >= 0, got '2'"),
    ("max_compiles=True", "max_compiles=...) takes an int >= 0, got True"),
    ("leaks='always'", "leaks=...) takes True, False or one of 'off', 'fast', 'strict'"),
    ("eager=1", "eager=...) takes True or False, got 1"),
    ("bogus=1", "unknown argument bogus= to @pytest.mark.jitcheck (accepted: max_compiles"),
    ("3", "@pytest.mark.jitcheck takes keyword arguments only"),
]


def _items(pytester: pytest.Pytester, marks: list[str]) -> list[pytest.Item]:
    # One collection for all cases: an in-process pytest config costs most of a second.
    body = "".join(f"{m}\ndef test_{i}(): pass\n\n" for i, m in enumerate(marks))
    return pytester.getitems("import pytest\n\n" + body)


def test_valid_markers(pytester):
    items = _items(pytester, [marks for marks, _ in VALID])
    assert [jitcheck_marker_options(item) for item in items] == [e for _, e in VALID]


def test_class_marker_applies_and_function_marker_overrides(pytester):
    items = pytester.getitems(
        "import pytest\n"
        "@pytest.mark.jitcheck(max_compiles=3, leaks='strict')\n"
        "class TestA:\n"
        "    def test_plain(self): pass\n"
        "    @pytest.mark.jitcheck(max_compiles=1)\n"
        "    def test_override(self): pass\n"
    )
    assert [jitcheck_marker_options(i) for i in items] == [
        MarkerOptions(max_compiles=3, leaks="strict"),
        MarkerOptions(max_compiles=1, leaks="strict"),
    ]


def test_invalid_markers(pytester):
    items = _items(pytester, [f"@pytest.mark.jitcheck({args})" for args, _ in INVALID])
    for item, (_, message) in zip(items, INVALID, strict=True):
        with pytest.raises(JitcheckUsageError, match=r"^\[jitcheck\] .*" + re.escape(message)):
            jitcheck_marker_options(item)
