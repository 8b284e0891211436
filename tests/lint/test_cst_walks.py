"""The fast tree walks of ``jitlint.analysis.cst_util`` agree with the slow, obvious ones."""

from __future__ import annotations

import inspect
from pathlib import Path

import libcst as cst
import pytest

from jitlint.analysis.cst_util import (
    SMALL_STATEMENTS,
    descendants,
    nodes_under,
    own_statements,
    parse_module,
    statements,
)
from jitlint.analysis.module_info import _MUTATING_CALL, mutated_names, mutates

HERE = Path(__file__).parent
FILES = sorted((HERE / "corpus").rglob("*.py")) + sorted((HERE / "realworld").glob("*.py"))


def _texts() -> list[tuple[str, str]]:
    return [(p.name, p.read_text(encoding="utf-8")) for p in FILES]


def test_corpus_is_there() -> None:
    assert len(FILES) > 300


@pytest.mark.parametrize("name,text", _texts()[::7])
def test_parse_module_equals_libcst(name: str, text: str) -> None:
    """Skipping validation while parsing builds the same tree, and validation still runs
    for nodes built afterwards."""
    fast = parse_module(text)
    assert fast.deep_equals(cst.parse_module(text)), name
    assert fast.code == text
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")


def test_parse_module_raises_parser_errors() -> None:
    with pytest.raises(cst.ParserSyntaxError):
        parse_module("def f(:\n")
    with pytest.raises(cst.CSTValidationError):
        cst.Name("")  # validation is back after a failed parse


def test_statements_are_the_statements_among_descendants() -> None:
    for path in FILES[::5]:
        module = cst.parse_module(path.read_text(encoding="utf-8"))
        slow = [
            n
            for n in descendants(module)
            if isinstance(n, cst.BaseStatement | cst.BaseSmallStatement)
        ]
        assert [id(n) for n in statements(module)] == [id(n) for n in slow], path.name


def test_own_statements_are_the_statements_outside_nested_functions_and_classes() -> None:
    for path in FILES[::5]:
        module = cst.parse_module(path.read_text(encoding="utf-8"))
        nested: set[int] = set()
        for n in statements(module):
            if type(n) is cst.FunctionDef or type(n) is cst.ClassDef:
                nested.update(id(d) for d in statements(n) if d is not n)
        slow = [
            n
            for n in statements(module)
            if id(n) not in nested
            and type(n) is not cst.SimpleStatementLine
            and type(n) is not cst.FunctionDef
            and type(n) is not cst.ClassDef
        ]
        assert [id(n) for n in own_statements(module)] == [id(n) for n in slow], path.name


def test_nodes_under_finds_calls_in_loop_bodies_once() -> None:
    module = cst.parse_module(
        "f(a)\nfor i in g(b):\n    h(c)\n    while k(d):\n        m(e)\nxs = [n(x) for x in p(y)]\n"
    )
    marked: dict[type, str] = {cst.For: "body", cst.While: "body", cst.ListComp: "elt"}
    calls = nodes_under(module, marked, cst.Call)
    names = [
        c.func.value for c in calls if isinstance(c, cst.Call) and isinstance(c.func, cst.Name)
    ]
    assert names == ["h", "k", "m", "n"]  # source order, each once
    everywhere = [n for n in descendants(module) if type(n) is cst.Call]
    assert len(everywhere) == 7


def test_mutated_names_equal_the_whole_text_scan() -> None:
    for name, text in _texts():
        whole = {m.group(1) for m in _MUTATING_CALL.finditer(text) if mutates(text, m)}
        assert mutated_names(text) == whole, name
    assert mutated_names("cfg.opts[k].append(\n  1)\nx = [] ; x .extend (y)\n") == {"cfg", "x"}
    # a comment naming a mutator, and a result kept from a method named like one, are not
    assert (
        mutated_names("# use opt.update(g, s)\nu, s = tx.update(g, s)\nreturn q.add(1)\n") == set()
    )
    assert mutated_names("if d.update(e) == None: pass\nlst.pop()\n") == {"d", "lst"}


def test_libcst_node_classes_are_final_so_type_is_answers_isinstance() -> None:
    # The hot paths test `type(node) is cst.Name` instead of isinstance: the same answer only
    # while no concrete node class has a subclass.
    concrete = [
        c
        for c in vars(cst).values()
        if isinstance(c, type) and issubclass(c, cst.CSTNode) and not inspect.isabstract(c)
    ]
    assert concrete
    assert [c.__name__ for c in concrete if c.__subclasses__()] == []
    for source in ("x = 1", "del x", "pass", "global g", "import os", "assert x"):
        line = cst.parse_statement(source)
        assert isinstance(line, cst.SimpleStatementLine)
        small = line.body[0]
        assert isinstance(small, cst.BaseSmallStatement) == (type(small) in SMALL_STATEMENTS)
    assert type(cst.parse_statement("if x: pass")) not in SMALL_STATEMENTS


def test_the_scope_cache_is_emptied_when_a_lint_ends() -> None:
    # Its entries keep their trees alive: a long-running server must not collect them.
    from jitlint import lint_source
    from jitlint.analysis import scopes

    source = "import jax\n\n@jax.jit\ndef f(x):\n    y = x + 1\n    return y\n"
    scopes.scope_names(cst.parse_module(source).body[1].body)
    assert scopes._SCOPES
    lint_source(source, filename="m.py")
    assert not scopes._SCOPES
