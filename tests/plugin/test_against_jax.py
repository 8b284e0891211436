"""Compile accounting checked against JAX's own compile log and cache-miss explanations.

Each scenario runs under ``jax.log_compiles`` and ``jax.explain_cache_misses`` and a
``CompileRecorder`` at once: the number of compilations must equal the compilations JAX
logs for the function, and each recompilation's typed reason must name the same cause as
JAX's explanation.
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import Callable, Iterator

import jax
import jax.numpy as jnp
import pytest

from pytest_jitcheck import CompileRecorder
from pytest_jitcheck.accounting import Change, ChangeKind

# No arrays at import: collection must not start JAX's backend (other tests fork).


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@contextlib.contextmanager
def jax_log() -> Iterator[tuple[CompileRecorder, _Records]]:
    handler = _Records()
    logger = logging.getLogger("jax")
    logger.addHandler(handler)
    try:
        with jax.log_compiles(True), jax.explain_cache_misses(True), CompileRecorder() as rec:
            yield rec, handler
    finally:
        logger.removeHandler(handler)


def _jax_compiles(messages: list[str], module: str) -> int:
    return sum(m.startswith(f"Finished XLA compilation of {module} ") for m in messages)


def _explanations(messages: list[str]) -> list[str]:
    return [m for m in messages if m.startswith("TRACING CACHE MISS")]


def shape() -> None:
    f = jax.jit(lambda x: x * 2)
    f(jnp.ones(3))
    f(jnp.ones(5))


def static() -> None:
    f = jax.jit(lambda x, n: x * n, static_argnames="n")
    f(jnp.ones(3), n=2)
    f(jnp.ones(3), n=3)


def weak_type() -> None:
    f = jax.jit(lambda x: x * 2)
    f(1.0)
    f(jnp.float32(1.0))


def structure() -> None:
    f = jax.jit(lambda d: d["a"])
    f({"a": jnp.ones(3)})
    f({"a": jnp.ones(3), "b": jnp.ones(3)})


def jit_in_loop() -> None:
    for _ in range(2):
        jax.jit(lambda x: x + 1)(jnp.ones(3))


def keyword() -> None:
    f = jax.jit(lambda x, y: x + y)
    f(jnp.ones(3), jnp.ones(3))
    f(jnp.ones(3), y=jnp.ones(3))


def empty_pytree() -> None:
    f = jax.jit(lambda x, y: x)
    f(jnp.ones(3), {})
    f(jnp.ones(3), {"a": jnp.ones(3)})


def config() -> None:
    f = jax.jit(lambda a, b: a @ b)
    f(jnp.ones((2, 2)), jnp.ones((2, 2)))
    with jax.default_matmul_precision("highest"):
        f(jnp.ones((2, 2)), jnp.ones((2, 2)))


class _Model:
    @functools.partial(jax.jit, static_argnums=0)
    def step(self, x: jax.Array) -> jax.Array:
        return x + 1

    def __hash__(self) -> int:
        return 1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Model)


def method() -> None:
    _Model().step(jnp.ones(3))
    _Model().step(jnp.ones(4))


def partial() -> None:
    f = jax.jit(functools.partial(lambda a, x: a * x, 2.0))
    f(jnp.ones(3))
    f(jnp.ones(6))


def donation() -> None:
    f = jax.jit(lambda x: x * 2, donate_argnums=0)
    f(jnp.ones(3))
    f(jnp.ones(8))


def aot() -> None:
    f = jax.jit(lambda x: x * 2)
    f.lower(jnp.ones(3)).compile()
    f.lower(jnp.ones(9)).compile()


def pmap() -> None:
    g = jax.pmap(lambda x: x * 2)
    g(jnp.ones((1, 3)))
    g(jnp.ones((1, 4)))


def _decorate(fn: Callable[..., jax.Array]) -> Callable[..., jax.Array]:
    @functools.wraps(fn)
    def wrapper(*args: jax.Array) -> jax.Array:
        return fn(*args)

    return wrapper


@jax.jit
@_decorate
def decorated(x: jax.Array) -> jax.Array:
    return x - 1


def wrapped() -> None:
    decorated(jnp.ones(3))
    decorated(jnp.ones(7))


def nnx_jit() -> None:
    from flax import nnx  # imported here: collection must not start JAX's backend

    class Scale(nnx.Module):
        def __init__(self) -> None:
            self.w = nnx.Param(jnp.ones(()))

    @nnx.jit
    def apply(model: Scale, x: jax.Array) -> jax.Array:
        return model.w * x

    model = Scale()
    apply(model, jnp.ones(3))
    apply(model, jnp.ones(4))


# scenario, the name JAX compiles it under, the kind of the recompilation, and what
# JAX's explanation says about the same cause.
SCENARIOS = [
    (shape, "jit(<lambda>)", ChangeKind.SHAPE, "at x, now f32[5] and before f32[3]"),
    (static, "jit(<lambda>)", ChangeKind.STATIC_VALUE, "Static(val=3)"),
    (weak_type, "jit(<lambda>)", ChangeKind.WEAK_TYPE, "weak_type=True"),
    (structure, "jit(<lambda>)", ChangeKind.STRUCTURE, "symmetric difference of key sets: {'b'}"),
    (jit_in_loop, "jit(<lambda>)", ChangeKind.NEW_FUNCTION, "seen another function defined on"),
    (keyword, "jit(<lambda>)", ChangeKind.STRUCTURE, "at input path [1]"),
    (empty_pytree, "jit(<lambda>)", ChangeKind.STRUCTURE, "with 0 child"),
    (config, "jit(<lambda>)", ChangeKind.CONFIG, "jax_default_matmul_precision differs"),
    (method, "jit(step)", ChangeKind.SHAPE, "at x, now f32[4] and before f32[3]"),
    (partial, "jit(<lambda>)", ChangeKind.SHAPE, "at x, now f32[6] and before f32[3]"),
    (donation, "jit(<lambda>)", ChangeKind.SHAPE, "at x, now f32[8] and before f32[3]"),
    (aot, "jit(<lambda>)", ChangeKind.SHAPE, "at x, now f32[9] and before f32[3]"),
    (pmap, "jit(_fun)", ChangeKind.SHAPE, None),
    (wrapped, "jit(decorated)", ChangeKind.SHAPE, "at x, now f32[7] and before f32[3]"),
    (nnx_jit, "jit(apply)", ChangeKind.SHAPE, "at x, now f32[4] and before f32[3]"),
]


@pytest.mark.parametrize(
    ("scenario", "module", "kind", "explained"), SCENARIOS, ids=[s[0].__name__ for s in SCENARIOS]
)
def test_counts_and_reasons_match_jax(
    scenario: Callable[[], None], module: str, kind: ChangeKind, explained: str | None
) -> None:
    with jax_log() as (rec, log):
        scenario()
    assert rec.count == _jax_compiles(log.messages, module) == 2
    first, second = rec.events
    assert first.first and not second.first
    assert [c.kind for c in second.changes] == [kind]
    if explained is not None:
        assert explained in _explanations(log.messages)[-1]
    # The user's function and definition line, whatever wraps it.
    assert first.location.rpartition(":")[0] == __file__
    assert first.call_site.rpartition(":")[0] == __file__


def test_transforms_are_named_as_jax_names_them() -> None:
    f = jax.jit(lambda x: jnp.sin(x).sum())
    with jax_log() as (rec, log):
        f(jnp.ones(3))
        jax.vmap(f)(jnp.ones((2, 3)))
        jax.grad(f)(jnp.ones(3))
    assert rec.count == _jax_compiles(log.messages, "jit(<lambda>)") == 4
    assert [e.transform for e in rec.events] == [
        "",
        "jax.vmap",
        "jax.grad",
        "jax.grad (backward pass)",
    ]
    assert "jax.vmap" in rec.events[1].reason and "grad" not in rec.events[1].reason


def test_history_is_per_function_identity_not_per_code_object() -> None:
    def make(scale: float) -> Callable[[jax.Array], jax.Array]:
        return jax.jit(lambda x: x * scale)

    a, b = make(2.0), make(3.0)
    with CompileRecorder() as rec:
        a(jnp.ones(3))
        b(jnp.ones(4))
        a(jnp.ones(5))
    # b is a new function object of the same code; a's own history explains a's second
    # compilation against a's first call, not against b's.
    assert next(c.kind for c in rec.events[1].changes) is ChangeKind.NEW_FUNCTION
    assert [(c.kind, c.old, c.new) for c in rec.events[2].changes] == [
        (ChangeKind.SHAPE, "f32[3]", "f32[5]")
    ]


# equinox.filter_jit traces a function of its own over a dynamic/static split of the
# user's arguments; JAX explains its cache misses in those internal terms, the plugin in
# the user's. (expected change, what JAX's explanation says about the same cause)
def _filter_jit_scenarios() -> list[tuple[str, Callable[[], None], tuple[Change, ...], str]]:
    eqx = pytest.importorskip("equinox")

    @eqx.filter_jit
    def f(x: jax.Array, n: int, *, scale: float = 1.0) -> jax.Array:
        return x * n * scale

    class Layer(eqx.Module):
        w: jax.Array
        act: str = "relu"

        @eqx.filter_jit
        def __call__(self, x: jax.Array) -> jax.Array:
            return self.w * x

    def shape() -> None:
        f(jnp.ones(3), 2)
        f(jnp.ones(4), 2)

    def static() -> None:
        f(jnp.ones(3), 2)
        f(jnp.ones(3), 3)

    def keyword_only() -> None:
        f(jnp.ones(3), 2)
        f(jnp.ones(3), 2, scale=jnp.float32(2))

    def module_field() -> None:
        Layer(jnp.ones(3))(jnp.ones(3))
        Layer(jnp.ones(3), "tanh")(jnp.ones(3))

    def module_array() -> None:
        Layer(jnp.ones(3))(jnp.ones(3))
        Layer(jnp.ones(5))(jnp.ones(5))

    return [
        (
            "shape",
            shape,
            (Change(ChangeKind.SHAPE, "x", "f32[3]", "f32[4]"),),
            "at dynamic_nodonate['first'][0], now f32[4] and before f32[3]",
        ),
        ("static", static, (Change(ChangeKind.STATIC_VALUE, "n", "2", "3"),), "input path [0][2]"),
        (
            "keyword_only",
            keyword_only,
            (Change(ChangeKind.STRUCTURE, "scale", "", "passed"),),
            "input path [0][1]['rest']",
        ),
        (
            "module_field",
            module_field,
            (Change(ChangeKind.STATIC_VALUE, "self.act", "'relu'", "'tanh'"),),
            "input path [0][2]",
        ),
        (
            "module_array",
            module_array,
            (
                Change(ChangeKind.SHAPE, "self.w", "f32[3]", "f32[5]"),
                Change(ChangeKind.SHAPE, "x", "f32[3]", "f32[5]"),
            ),
            "at dynamic_nodonate['first'][0], now f32[5] and before f32[3]",
        ),
    ]


@pytest.mark.parametrize("index", range(5))
def test_filter_jit_reasons_use_the_users_argument_names(index: int) -> None:
    _, scenario, expected, explained = _filter_jit_scenarios()[index]
    with jax_log() as (rec, log):
        scenario()
    name = rec.events[0].name.rpartition(".")[2]
    assert rec.count == _jax_compiles(log.messages, f"jit({name})") == 2
    second = rec.events[1]
    assert second.changes == expected
    assert explained in _explanations(log.messages)[-1]
    assert "dynamic_nodonate" not in str(second.signature)
    assert second.call_site.rpartition(":")[0] == __file__
