"""Mutation checks: the suite's own checks notice a deleted rule and a broken taint source."""

from __future__ import annotations

import importlib
import textwrap

from jitlint.analysis import analyzer
from jitlint.analysis.applications import all_unknown
from jitlint.engine.lint import lint_source
from jitlint.engine.settings import Settings
from jitlint.rules import all_rules

from . import _corpus as cs
from .test_registry import DESIGN_TABLE

RULES = importlib.import_module("jitlint.rules")


def _corpus_misses(rules) -> list[tuple[str, int, str]]:
    labels = cs.read_labels(cs.DEFAULT_CORPUS)
    findings = []
    for path in labels.files:
        result = lint_source(str(path), path.read_bytes(), Settings(), rules=rules)
        findings += [
            {"code": f.code, "filename": f.filename, "location": {"row": f.location.row}}
            for f in result.findings
        ]
    implemented = {r.code for r in rules}
    return cs.score(labels, findings, cs.DEFAULT_CORPUS, implemented).misses


def test_deleting_a_rule_breaks_the_registry_and_the_corpus_score(monkeypatch):
    monkeypatch.setattr(RULES, "_RULES", tuple(r for r in RULES._RULES if r.code != "JIT102"))
    assert {r.code: r.name for r in all_rules()} != DESIGN_TABLE
    misses = _corpus_misses([r() for r in all_rules()])
    assert misses and {code for _, _, code in misses} == {"JIT102"}


def test_breaking_the_parameter_taint_source_silences_the_examples(monkeypatch):
    # Parameters of jitted functions are the main source of TRACED; seed them UNKNOWN.
    monkeypatch.setattr(analyzer, "seed_params", lambda fn, app: all_unknown(fn))
    rule = next(r for r in all_rules() if r.code == "JIT101")
    source = textwrap.dedent(rule.INVALID[0]).lstrip("\n")
    result = lint_source("case.py", source.encode(), Settings(), rules=[rule()])
    assert result.findings == []
    monkeypatch.undo()
    result = lint_source("case.py", source.encode(), Settings(), rules=[rule()])
    assert [f.code for f in result.findings] == ["JIT101"]
