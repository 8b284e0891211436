"""Each rule has one message template: the docs show it, the hooks fill its placeholders."""

from __future__ import annotations

import ast
import importlib
import inspect
import string

import pytest

from jitlint.rules import all_rules

# Rules whose findings still read as two different sentences (an explicit message per case);
# giving each one template changes what users see, which is a change of its own.
TWO_SENTENCES = {
    "JIT103",
    "JIT201",
    "JIT202",
    "JIT203",
    "JIT301",
    "JIT302",
    "JIT401",
    "JIT402",
    "JIT403",
    "JIT404",
    "JIT502",
    "JIT503",
}


def placeholders(template: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(template) if field}


def report_calls(rule):
    module = importlib.import_module(rule.__module__)
    tree = ast.parse(inspect.getsource(module))
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "report"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "self"
    ]


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.code)
def test_hooks_fill_the_template(rule):
    calls = report_calls(rule)
    assert calls, "a rule reports somewhere"
    wanted = placeholders(rule.message)
    for call in calls:
        explicit = len(call.args) > 2 or any(k.arg == "message" for k in call.keywords)
        if rule.code in TWO_SENTENCES:
            continue
        assert not explicit, f"{rule.code} line {call.lineno}: fill the template instead"
        given = {k.arg for k in call.keywords if k.arg not in {"fix", None}}
        assert given == wanted, f"{rule.code} line {call.lineno}: {given} != {wanted}"


def test_the_exceptions_are_still_needed():
    for rule in all_rules():
        if rule.code in TWO_SENTENCES:
            calls = report_calls(rule)
            assert any(len(c.args) > 2 for c in calls), f"{rule.code} can leave TWO_SENTENCES"
