"""Codes are forever: unique, kebab-case names, and exactly the design's rule table."""

from __future__ import annotations

import re
from pathlib import Path

from jitlint.rules import all_rules

README = Path(__file__).resolve().parents[2] / "README.md"

# The fixed rule table of the design (code -> name); codes are never reused or renamed.
DESIGN_TABLE = {
    "JIT101": "traced-if",
    "JIT102": "traced-while",
    "JIT103": "traced-bool-op",
    "JIT104": "traced-range",
    "JIT201": "stale-global",
    "JIT202": "outer-state-write",
    "JIT203": "print-in-jit",
    "JIT204": "impure-host-call",
    "JIT301": "jit-in-loop",
    "JIT302": "unhashable-static-arg",
    "JIT303": "large-unrolled-loop",
    "JIT401": "concretization",
    "JIT402": "numpy-on-tracer",
    "JIT403": "dynamic-shape",
    "JIT404": "traced-shape",
    "JIT501": "in-place-update",
    "JIT502": "prng-key-reuse",
    "JIT503": "discarded-at-update",
    "JIT504": "donated-buffer-reuse",
}
SECTIONS = ["## What it does", "## Why is this bad?", "## Example", "## Use instead"]


def test_codes_and_names_are_unique():
    rules = all_rules()
    assert len({r.code for r in rules}) == len(rules)
    assert len({r.name for r in rules}) == len(rules)


def test_the_registry_is_exactly_the_design_table():
    # A rule dropped from the registry, or a design code without a rule, fails here.
    assert {rule.code: rule.name for rule in all_rules()} == DESIGN_TABLE


def test_readme_table_names_every_rule_and_no_other():
    rows = [
        line for line in README.read_text(encoding="utf-8").splitlines() if line.startswith("| JIT")
    ]
    named = {name.strip() for row in rows for name in row.split("|")[2].split(",")}
    assert named == {rule.name for rule in all_rules()}


def test_issue_two_rules_are_all_implemented():
    codes = {r.code for r in all_rules()}
    core = {c for c in DESIGN_TABLE if c[3] in "123" and c != "JIT303"}
    assert core <= codes


def test_names_are_kebab_case_and_messages_say_what_to_do():
    for rule in all_rules():
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", rule.name)
        assert ";" in rule.message, "message: what is wrong; what to write instead"


def test_docstrings_have_the_sections_in_order():
    for rule in all_rules():
        doc = rule.doc()
        positions = [doc.find(s) for s in [*SECTIONS, "## Fix safety"]]
        assert -1 not in positions, rule.code
        assert positions == sorted(positions), rule.code
