"""Re-analysis in a ``Session`` replays the walks of unaffected statements; findings never differ.

After any sequence of edits, ``lint_source`` with a session must give exactly what a fresh
``lint_source`` of the same text gives (codes, positions, messages, fixes), and an edit inside
one function must walk only that function and what depends on it.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jitlint
from jitlint.engine.reanalysis import _SAFE_STATE

LINT = Path(__file__).resolve().parent
ROOT = LINT.parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from lsp_latency import module as bench_module  # noqa: E402

FILES = sorted((LINT / "corpus").glob("*.py")) + sorted((LINT / "realworld").glob("*.py"))
SOURCES = {p.name: p.read_text(encoding="utf-8") for p in FILES}
SOURCES["bench.py"] = bench_module(300)
SETTINGS = jitlint.Settings()

# Edits a person makes inside code: change a condition, an expression, a name, a call, add
# or drop a global write, a loop, a jit; plus whole lines that add or remove definitions.
SWAPS = [
    (r"\bif (\w+)", r"if not \1"),
    (r" > ", " < "),
    (r"\bjnp\.sum\b", "np.sum"),
    (r"\bnp\.", "jnp."),
    (r"\breturn (\w+)", r"return float(\1)"),
    (r"\bfor (\w+) in range\((\w+)\)", r"for \1 in range(len(\2))"),
    (r"(\n    )(\w+) = ", r"\1global \2\n    \2 = "),
    (r"\(x\)", "(x, 1)"),
    (r"@jax\.jit\n", ""),
    (r"\ndef ", "\n@jax.jit\ndef "),
    (r"\bx\b", "y"),
    (r"print\(", "len("),
    (r"(\n    )return", r"\1print(1)\1return"),
    (r"(\n    )return", r"\1for _ in range(3):\1    f = jax.jit(lambda v: v)\1return"),
    (r"\n\n\n", "\n\n\nCONFIG = {}\n\n\n"),
    (r"\n\n\n", "\n\n\ndef helper(x):\n    if x > 0:\n        return x\n    return -x\n\n\n"),
    (r"\n\n\n", "\n\n\nimport numpy as np\n\n\n"),
    (r"\n(\w+)\(", r"\nfor _ in range(2):\n    \1("),
]

EDIT = st.tuples(st.integers(0, len(SWAPS) - 1), st.floats(0, 1))


def _apply(text: str, swap: int, where: float) -> str:
    pattern, repl = SWAPS[swap]
    matches = list(re.finditer(pattern, text))
    if not matches:
        return text
    m = matches[min(int(where * len(matches)), len(matches) - 1)]
    return text[: m.start()] + m.expand(repl) + text[m.end() :]


def _full(text: str, name: str) -> jitlint.FileResult:
    return jitlint.lint_source(text, filename=name, settings=SETTINGS)


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)
@given(name=st.sampled_from(sorted(SOURCES)), edits=st.lists(EDIT, min_size=1, max_size=6))
def test_edit_sequences_find_what_a_fresh_lint_finds(
    name: str, edits: list[tuple[int, float]]
) -> None:
    session = jitlint.Session()
    text = SOURCES[name]
    assert jitlint.lint_source(text, filename=name, settings=SETTINGS, session=session) == _full(
        text, name
    )
    for edit in edits:
        text = _apply(text, *edit)
        got = jitlint.lint_source(text, filename=name, settings=SETTINGS, session=session)
        assert got == _full(text, name), text


def test_every_swap_applies_somewhere() -> None:
    for pattern, _ in SWAPS:
        assert any(re.search(pattern, s) for s in SOURCES.values()), pattern


BASE = """\
import jax
import jax.numpy as jnp

SCALE = 2


def helper(x):
    return x * SCALE


@jax.jit
def f(x):
    if x > 0:
        return helper(x)
    return -x


@jax.jit
def g(x):
    while x > 0:
        x = x - 1
    return x


@jax.jit
def h(x):
    return jnp.sum(x)
"""


def _lint(session: jitlint.Session, text: str) -> jitlint.FileResult:
    got = jitlint.lint_source(text, filename="m.py", settings=SETTINGS, session=session)
    assert got == _full(text, "m.py")
    return got


def test_an_edit_in_one_function_walks_only_it() -> None:
    session = jitlint.Session()
    _lint(session, BASE)
    assert session.analysis.replayed == 0
    statements = 7
    text = BASE.replace("while x > 0", "while x > 1")
    _lint(session, text)
    imports = 3  # imports and constants are always walked: they are cheap
    assert (session.analysis.walked, session.analysis.replayed) == (imports + 1, statements - 4)
    # An edit in a helper walks it and the function that calls it.
    text = text.replace("return x * SCALE", "return float(x) * SCALE")
    got = _lint(session, text)
    assert (session.analysis.walked, session.analysis.replayed) == (imports + 2, statements - 5)
    assert [f.code for f in got.findings].count("JIT401") == 1
    # A change to a module-level fact (a global becomes rebound) walks everything again.
    _lint(session, text + "\n\ndef reset():\n    global SCALE\n    SCALE = 3\n")
    assert session.analysis.replayed == 0


def test_settings_changes_are_not_replayed() -> None:
    session = jitlint.Session()
    _lint(session, BASE)
    narrow = jitlint.Settings(select=("JIT102",))
    got = jitlint.lint_source(BASE, filename="m.py", settings=narrow, session=session)
    assert got == jitlint.lint_source(BASE, filename="m.py", settings=narrow)
    assert session.analysis.replayed == 0


def test_module_wide_rule_facts_are_in_the_fingerprint() -> None:
    """Rule state is either safe to replay or shared at module scope: classify a new key."""
    keys = set()
    for path in (ROOT / "jitlint" / "rules").glob("*.py"):
        keys.update(re.findall(r'state\(\s*ctx,\s*"([^"]+)"', path.read_text(encoding="utf-8")))
    safe = set(_SAFE_STATE)
    marks = {
        "assignment-targets",
        "traced-bool-op-covered",
        "JIT301.bound-jits",
        "JIT301.fresh",
        "JIT302.names",
        "JIT302.static-arrays",
        "JIT502.scopes",
        "JIT502.bodies",
        "JIT502.epoch-keys",
        "JIT504.scopes",
        # whole-module facts: a script's loops handing a record to the module's functions,
        # the stax layers the module unpacks, the steps its loops call with their state
        "JIT301.records-per-iteration",
        "JIT502.stax-plain",
        "JIT502.record-loops",
        "JIT502.record-draws",
    }
    assert keys == safe | marks, "classify the new rule state in jitlint/engine/reanalysis.py"


def test_a_session_does_not_keep_an_analysis_per_version() -> None:
    # Replayed walks, their findings' trace paths and the rules' per-file state each once
    # kept the analysis of the version before alive, so memory grew with every edit.
    import gc

    from jitlint.analysis.analyzer import Analysis

    def alive() -> int:
        gc.collect()
        return sum(isinstance(o, Analysis) for o in gc.get_objects())

    session = jitlint.Session()
    text = bench_module(100)
    for n in range(6):
        jitlint.lint_source(f"{text}# edit {n}\n", filename="m.py", session=session)
    settled = alive()  # other tests in this process may hold some of their own
    for n in range(6, 18):
        jitlint.lint_source(f"{text}# edit {n}\n", filename="m.py", session=session)
    assert alive() <= settled  # twelve more versions, no more analyses kept
