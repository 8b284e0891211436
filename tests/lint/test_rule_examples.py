"""Every rule's VALID/INVALID examples are its tests: exactly the marked lines are flagged."""

from __future__ import annotations

import textwrap

import pytest

from jitlint.rules import all_rules

from ._expect import marked, reported

CASES = [
    pytest.param(rule, kind, i, id=f"{rule.code}-{kind}-{i}")
    for rule in all_rules()
    for kind in ("VALID", "INVALID")
    for i in range(len(getattr(rule, kind)))
]


@pytest.mark.parametrize(("rule", "kind", "index"), CASES)
def test_example(rule, kind, index):
    source = textwrap.dedent(getattr(rule, kind)[index]).lstrip("\n")
    expected = marked(source, rule.code)
    if kind == "INVALID":
        assert expected, "an INVALID example must mark the lines to flag"
    else:
        assert not expected
    got, _ = reported(source, rule.code)
    assert got == expected


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.code)
def test_every_rule_has_examples_of_both_kinds(rule):
    assert rule.VALID and rule.INVALID
