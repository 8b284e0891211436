"""Fixture files with inline expectations: discovery spellings, dataflow precision, tutorial."""

from __future__ import annotations

from pathlib import Path

import pytest

from ._expect import marked, reported

FIXTURES = sorted((Path(__file__).parent / "fixtures").glob("*.py"))
# The fixtures exercise discovery and the dataflow through these rules; other rules may
# have opinions about the same lines, which their own tests cover.
CODES = {f"JIT{n}" for n in (101, 102, 103, 104, 201, 202, 203, 204, 301, 302)}


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_fixture_findings_are_exactly_the_marked_lines(path):
    source = path.read_text(encoding="utf-8")
    got, _ = reported(source, filename=str(path))
    got = {g for g in got if g[1] in CODES}
    expected = marked(source)
    assert sorted(got - expected) == [], "reported but not marked"
    assert sorted(expected - got) == [], "marked but not reported"
