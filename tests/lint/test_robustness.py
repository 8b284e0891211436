"""jitlint never crashes on valid Python, and its fixes never break a file.

Two sources of programs: hypothesmith's grammar-based generator (any valid Python), and a
strategy of our own that writes JAX-flavoured functions full of things the rules flag and fix.
"""

from __future__ import annotations

import ast

import hypothesmith
import libcst as cst
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from jitlint.engine.fixing import fix_source
from jitlint.engine.lint import lint_source
from jitlint.engine.settings import Settings
from jitlint.fixes.apply import applicable
from jitlint.rules.file_rules import ERROR_CODES

SETTINGS = Settings()
FAST = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def _compiles(source: str) -> bool:
    try:
        ast.parse(source)
        cst.parse_module(source)
    except (SyntaxError, ValueError, RecursionError, cst.ParserSyntaxError):
        return False
    return True


def _lint_ok(source: str) -> None:
    result = lint_source("gen.py", source.encode("utf-8", "surrogatepass"), SETTINGS)
    assert result.errors == [], result.errors
    # Valid Python within CPython's limits is checked whole: no file-level limit finding.
    assert not [f for f in result.findings if f.code in ERROR_CODES], result.findings


@FAST
@given(hypothesmith.from_grammar())
def test_any_valid_module_lints_without_internal_error(source):
    assume(_compiles(source))
    _lint_ok(source + "\n# jax\n")  # the comment gets it past the cheap prefilter


@FAST
@given(hypothesmith.from_grammar())
def test_any_valid_body_under_jit_lints_without_internal_error(source):
    body = "".join(f"    {line}\n" for line in source.splitlines()) or "    pass\n"
    wrapped = f"import jax\n\n@jax.jit\ndef f(x, y):\n{body}    return x\n"
    assume(_compiles(wrapped))
    _lint_ok(wrapped)


# JAX-flavoured programs -----------------------------------------------------------------
NAMES = st.sampled_from(["x", "y", "n", "key", "cfg", "k2"])
DECORATORS = st.sampled_from(
    [
        "@jax.jit\n",
        "@partial(jax.jit, static_argnums=1)\n",
        "@partial(jax.jit, static_argnames=('y',))\n",
        "@jax.vmap\n",
        "@jax.grad\n",
        "",
    ]
)


@st.composite
def expressions(draw, depth=0):
    leaf = st.one_of(
        NAMES,
        st.integers(-3, 100).map(str),
        st.sampled_from(["x.shape[0]", "len(y)", "x.ndim", "None", "'s{x}'", "1.5"]),
    )
    if depth > 3:
        return draw(leaf)
    sub = expressions(depth=depth + 1)
    return draw(
        st.one_of(
            leaf,
            st.tuples(sub, st.sampled_from(["+", "*", ">", "==", "and", "or", "-"]), sub).map(
                lambda t: f"({t[0]} {t[1]} {t[2]})"
            ),
            st.tuples(st.sampled_from(["np.sum", "np.mean", "jnp.sin", "float", "int"]), sub).map(
                lambda t: f"{t[0]}({t[1]})"
            ),
            st.tuples(sub, sub).map(lambda t: f"{t[0]}[{t[1]}]"),
            st.tuples(sub, sub, sub).map(lambda t: f"{t[0]} if {t[1]} else {t[2]}"),
            st.lists(sub, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"),
        )
    )


@st.composite
def statements(draw, indent="    ", depth=0):
    e = expressions()
    simple = st.one_of(
        st.tuples(NAMES, e).map(lambda t: f"{t[0]} = {t[1]}"),
        st.tuples(NAMES, e, e).map(lambda t: f"{t[0]}[{t[1]}] = {t[2]}"),
        st.tuples(NAMES, e, e).map(lambda t: f"{t[0]}[{t[1]}] += {t[2]}"),
        st.lists(e, max_size=3).map(lambda xs: "print(" + ", ".join(xs) + ")"),
        st.tuples(e, e).map(lambda t: f'print(f"a {{{t[0]}}} b {{{t[1]}!r:>4}}", sep="-")'),
        st.tuples(NAMES, e, e).map(lambda t: f"{t[0]}.at[{t[1]}].set({t[2]})"),
        st.just("k2 = jax.random.split(key)"),
        st.just("y = jax.random.normal(key, (3,)) + jax.random.normal(key, (3,))"),
        st.tuples(e, e).map(lambda t: f"g(x, [{t[0]}, 1], {{{t[1]}}})"),
        st.just("pass"),
    )
    lines = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.integers(0, 5)) if depth < 2 else 0
        if kind == 1:
            lines.append(f"{indent}if {draw(e)}:")
            lines.extend(draw(statements(indent + "    ", depth + 1)))
        elif kind == 2:
            lines.append(f"{indent}for i in range({draw(e)}):")
            lines.extend(draw(statements(indent + "    ", depth + 1)))
        elif kind == 3:
            lines.append(f"{indent}while {draw(e)}:")
            lines.extend(draw(statements(indent + "    ", depth + 1)))
        else:
            lines.append(indent + draw(simple))
    return lines


@st.composite
def jax_modules(draw):
    header = draw(
        st.sampled_from(
            [
                "import jax\nimport jax.numpy as jnp\nimport numpy as np\n"
                "from functools import partial\n",
                "from functools import partial\nimport numpy as np\nimport jax\njnp = jax.numpy\n",
                '"""Doc."""\nimport numpy as np\nfrom jax import numpy as jnp\nimport jax\n'
                "from functools import partial\n",
            ]
        )
    )
    parts = [header, "\n@partial(jax.jit, static_argnums=1)\ndef g(x, dims, s):\n    return x\n"]
    for i in range(draw(st.integers(1, 3))):
        body = "\n".join(draw(statements()))
        parts.append(f"\n{draw(DECORATORS)}def f{i}(x, y, n=3, key=None, cfg=None):\n{body}\n")
        parts.append("    return x\n")
    return "".join(parts)


@pytest.mark.slow
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(jax_modules())
def test_fixing_generated_jax_code_keeps_every_invariant(source):
    assume(_compiles(source))
    data = source.encode()
    before = lint_source("gen.py", data, SETTINGS)
    assert before.errors == [], before.errors
    assert not [f for f in before.findings if f.code in ERROR_CODES], before.findings
    outcome = fix_source("gen.py", data, SETTINGS, unsafe=True)
    fixed = outcome.source.decode()
    assert _compiles(fixed), fixed
    assert outcome.result.errors == []
    again = fix_source("gen.py", outcome.source, SETTINGS, unsafe=True)
    assert again.source == outcome.source, "fixing twice changes nothing the second time"
    left = [f for f in outcome.result.findings if applicable(f, unsafe=True)]
    assert left == [], "fixable findings are gone after --fix"


# Awkward but valid files ----------------------------------------------------------------
JITTED = "@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n"


def _rows(source: bytes) -> list[tuple[int, int, str]]:
    result = lint_source("a.py", source, SETTINGS)
    assert result.errors == []
    return [(f.location.row, f.location.column, f.code) for f in result.findings]


def test_pep263_latin1_file():
    text = "# -*- coding: latin-1 -*-\nimport jax\n# café\n" + JITTED
    assert _rows(text.encode("latin-1")) == [(6, 8, "JIT101")]


def test_bom_crlf_and_tabs():
    text = "\ufeffimport jax\r\n" + JITTED.replace("\n", "\r\n").replace("    ", "\t")
    assert _rows(text.encode("utf-8")) == [(4, 5, "JIT101")]  # columns count characters


@pytest.mark.slow
def test_very_long_lines_and_deep_nesting():
    long_line = "    z = [" + ", ".join(["x"] * 20_000) + "]  " + "#" * 50_000 + "\n"
    nested = "    w = " + "(" * 150 + "x" + ")" * 150 + "\n"
    chain = "    v = " + " + ".join(["x"] * 1000) + "\n"
    text = "import jax\n\n@jax.jit\ndef f(x):\n" + long_line + nested + chain
    text += "    if v > 0:\n        return w\n    return z\n"
    assert _rows(text.encode()) == [(8, 8, "JIT101")]


SELF_REBINDING_CALLS = """
import jax
import jax.numpy as jnp


def make_model(dim):
    def model(training=True):
        return lambda x: x * dim if training else x
    return model


def train(dim, key):
    model = make_model(dim)
    model = model(training=True)
    step = jax.jit(lambda x: model(x))
    for _ in range(2):
        step(jax.random.normal(key, (3,)))
    return step
"""


def test_a_name_rebound_to_a_call_of_itself_is_analysed_whole():
    # annotated-s4's `model = model(training=True)`: resolving `model` read the call that
    # binds it, which resolved `model` again, until Python's recursion limit (JIT903).
    result = lint_source("selfbound.py", SELF_REBINDING_CALLS.encode(), SETTINGS)
    assert result.errors == []
    assert not [f for f in result.findings if f.code in ERROR_CODES], result.findings
    assert [f.code for f in result.findings] == ["JIT502"]  # the key drawn in the loop
