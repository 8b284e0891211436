"""Rules program against the RuleContext protocol and nothing else of the analyser."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import libcst as cst
import pytest

from jitlint.analysis import context
from jitlint.analysis.analyzer import Analysis
from jitlint.analysis.context import RuleContext
from jitlint.analysis.module_info import collect

# The rules package itself (not a re-export of it).
RULES_DIR = Path(importlib.import_module("jitlint.rules").__file__ or "").parent
# Modules of the analyser's internals; a rule that imports one could reach past the protocol.
INTERNALS = (
    "jitlint.analysis.analyzer",
    "jitlint.analysis.walker",
    "jitlint.analysis.taint",
    "jitlint.analysis.rule_queries",
    "jitlint.engine",
)


def protocol_members() -> set[str]:
    tree = ast.parse(Path(context.__file__).read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "RuleContext")
    return {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}


def context_reads(source: str) -> set[str]:
    """Return the attributes read on any name called ``ctx`` in ``source``."""
    return {
        node.attr
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "ctx"
    }


def imported_modules(source: str) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


RULE_FILES = sorted(RULES_DIR.glob("*.py"))


def test_the_checks_see_a_reach_in():
    assert context_reads("def f(ctx):\n    ctx._eval.cache\n    ctx.frame.env\n") == {
        "_eval",
        "frame",
    }
    assert not {"_eval", "frame", "info", "stack", "loops"} & protocol_members()


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: p.name)
def test_rule_module_reads_only_the_protocol(path):
    extra = context_reads(path.read_text()) - protocol_members()
    assert not extra, f"{path.name} reads {sorted(extra)} outside RuleContext"


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: p.name)
def test_rule_module_imports_no_analyser_internals(path):
    bad = {m for m in imported_modules(path.read_text()) if m.startswith(INTERNALS)}
    assert not bad, f"{path.name} imports {sorted(bad)}"


def test_the_analyser_answers_every_query():
    module = cst.parse_module("import jax\n")
    analysis = Analysis(module, collect(module, module.code), [], frozenset())
    # Look the names up without calling them: scope properties need a walk in progress.
    missing = {
        name
        for name in protocol_members()
        if not hasattr(type(analysis), name) and name not in vars(analysis)
    }
    assert not missing
    ctx: RuleContext = analysis  # mypy checks the structural match here
    assert ctx.module is module


def test_may_call_reads_calls_and_not_the_definition():
    source = "def step(x):\n    return x\n\n\ndef other(obj):\n    return obj.run (1)\n"
    module = cst.parse_module(source)
    analysis = Analysis(module, collect(module, source), [], frozenset())
    assert not analysis.may_call("step")  # only its `def`
    assert analysis.may_call("run")  # a method call, space before the parenthesis
    assert not analysis.may_call("ru")  # a name is matched whole
