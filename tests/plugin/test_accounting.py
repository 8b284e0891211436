"""CompileRecorder attributes each compilation to the right function, with reasons."""

from __future__ import annotations

import functools
import sys

import jax
import jax.numpy as jnp
import pytest

from pytest_jitcheck import CompileRecorder
from pytest_jitcheck._naming import describe_function
from pytest_jitcheck.accounting import Change, ChangeKind


def _names(rec: CompileRecorder) -> list[str]:
    return [e.name for e in rec.events]


def test_counts_only_cache_misses_and_reports_shape_change():
    @jax.jit
    def double(x):
        return x * 2

    with CompileRecorder() as rec:
        double(jnp.ones(3))
        double(jnp.ones(3))
        call_line = sys._getframe().f_lineno + 1
        double(jnp.ones(4))
    assert [n.rsplit(".", 1)[-1] for n in _names(rec)] == ["double", "double"]
    first, second = rec.events
    assert first.first and first.reason == "first compilation"
    assert str(first.signature) == "x: f32[3]"
    assert second.changes == (Change(ChangeKind.SHAPE, "x", "f32[3]", "f32[4]"),)
    assert second.reason == "x: f32[3] -> f32[4]"
    assert "pad or bucket" in second.hint
    defined = double.__wrapped__.__code__.co_firstlineno
    assert first.location.endswith(f"test_accounting.py:{defined}")
    assert second.call_site.endswith(f"test_accounting.py:{call_line}")
    assert first.compile_time > 0 and first.trace_time > 0


def test_static_argument_retrace_names_the_value():
    f = jax.jit(lambda x, n: x * n, static_argnums=1)
    with CompileRecorder() as rec:
        f(jnp.ones(2), 3)
        f(jnp.ones(2), 4)
    assert rec.count == 2
    assert rec.events[1].changes == (Change(ChangeKind.STATIC_VALUE, "n", "3", "4"),)
    assert rec.events[1].reason == "n (static): 3 -> 4"
    assert "static" in rec.events[1].hint
    assert rec.events[0].name.endswith(".<lambda>")


def test_weak_type_and_dict_paths():
    @jax.jit
    def loss(params, batch):
        return params["w"] * batch["x"].sum()

    with CompileRecorder() as rec:
        loss({"w": 1.0}, {"x": jnp.ones(3)})
        loss({"w": jnp.float32(1.0)}, {"x": jnp.ones(3)})
        loss({"w": jnp.float32(1.0)}, {"x": jnp.ones(3), "mask": jnp.ones(3)})
    assert [e.changes for e in rec.events[1:]] == [
        (Change(ChangeKind.WEAK_TYPE, "params['w']", "weak_f32[]", "f32[]"),),
        (
            Change(
                ChangeKind.STRUCTURE,
                "batch",
                "dict with keys {'x'}",
                "dict with keys {'mask', 'x'}",
            ),
        ),
    ]
    assert "weakly typed" in rec.events[1].hint
    assert "pytree structure" in rec.events[2].hint
    assert str(rec.events[2].signature) == (
        "params['w']: f32[], batch['mask']: f32[3], batch['x']: f32[3]"
    )


def test_nested_jit_counts_as_the_outer_function():
    @jax.jit
    def inner(x):
        return x + 1

    @jax.jit
    def outer(x):
        return inner(x) * 2

    with CompileRecorder() as rec:
        outer(jnp.ones(3))
    assert [n.rsplit(".", 1)[-1] for n in _names(rec)] == ["outer"]


def test_partial_callable_object_and_method():
    def scale(x, factor):
        return x * factor

    class Model:
        def __call__(self, x):
            return x + 1

        def apply(self, x):
            return x - 1

    model = Model()
    with CompileRecorder() as rec:
        jax.jit(functools.partial(scale, factor=2.0))(jnp.ones(2))
        jax.jit(model)(jnp.ones(2))
        jax.jit(model.apply)(jnp.ones(2))
    prefix = "test_partial_callable_object_and_method.<locals>."
    names = [n.replace(prefix, "") for n in _names(rec)]
    assert names == ["partial(scale)", "Model.__call__", "Model.apply"]
    assert str(rec.events[0].signature) == "x: f32[2]"


def test_fresh_lambda_each_call_is_explained():
    with CompileRecorder() as rec:
        for _ in range(2):
            jax.jit(lambda x: x + 1)(jnp.ones(2))
    assert rec.count == 2
    assert rec.events[1].changes[0].kind is ChangeKind.NEW_FUNCTION
    assert "new function object" in rec.events[1].reason
    assert "outside the loop" in rec.events[1].hint


def test_eager_op_by_op_compiles_are_excluded_unless_asked():
    with CompileRecorder() as default, CompileRecorder(include_eager=True) as everything:
        jnp.arange(7) * 3 + 1
    assert default.count == 0
    assert everything.count >= 1
    assert all(e.eager for e in everything.events)


def test_lower_then_compile_is_counted_once():
    @jax.jit
    def f(x):
        return x * 2

    with CompileRecorder() as rec:
        f.lower(jnp.ones(5)).compile()
        f.trace(jnp.ones(6))  # traced, never compiled
    assert rec.count == 1
    assert str(rec.events[0].signature) == "x: f32[5]"


def test_recorders_nest_and_stop_recording():
    f = jax.jit(lambda x: x - 1)
    outer = CompileRecorder().start()
    with CompileRecorder() as inner:
        f(jnp.ones(1))
    f(jnp.ones(2))
    outer.stop()
    f(jnp.ones(3))
    assert (inner.count, outer.count) == (1, 2)


def test_events_for_matches_the_jitted_function_and_wrapped():
    def g(x):
        return x + 2

    jg = jax.jit(g)
    h = jax.jit(lambda x: x)
    with CompileRecorder() as rec:
        jg(jnp.ones(2))
        h(jnp.ones(2))
    assert len(rec.events_for(jg)) == 1
    assert len(rec.events_for(g)) == 1
    assert rec.events_for(jg)[0].function is g


def test_event_json_is_plain_data():
    import json

    f = jax.jit(lambda x, n: x * n, static_argnames="n")
    with CompileRecorder() as rec:
        f(jnp.ones(2), n=2)
    data = json.loads(json.dumps(rec.events[0].to_json()))
    assert data["signature"]["args"] == [
        {"path": "x", "type": "f32[2]", "static": False},
        {"path": "n", "type": "2", "static": True},
    ]
    assert data["reason"] == "first compilation"


@pytest.mark.parametrize(
    ("fun", "name"),
    [(len, "len"), (functools.partial(max, 1), "partial(max)")],
)
def test_describe_function_handles_builtins(fun, name):
    info = describe_function(fun)
    assert (info.name, info.location) == (name, "<unknown>")


def test_without_jax_internals_events_still_count_by_name(monkeypatch):
    # What a JAX release that renames its `_infer_params` frame would look like.
    from pytest_jitcheck import _jaxcompat

    monkeypatch.setattr(_jaxcompat, "_INFER_FRAMES", ())

    @jax.jit
    def renamed(x):
        return x + 3

    with CompileRecorder() as rec, CompileRecorder(include_eager=True) as everything:
        # a fill of a shape no other test makes: a fresh eager compile, told apart from user code
        renamed(jnp.full((7, 3), 7.0))
    assert [(e.name, str(e.signature), e.location) for e in rec.events] == [
        ("renamed", "()", "<unknown>")
    ]
    assert everything.count > rec.count


def test_compile_after_a_cached_trace_is_attributed_and_eager_stays_excluded():
    # Tracing `outer` also traces (and caches) the jaxprs of `inner` and `jnp.negative`;
    # calling either later compiles it without a new trace event. An earlier test of the
    # same process may have compiled `jnp.negative` on f32[3] eagerly already: start clean.
    jax.clear_caches()

    @jax.jit
    def inner(x):
        return x * 3

    x = jnp.ones(3)
    jax.jit(lambda v: jnp.negative(inner(v)))(x)
    with CompileRecorder() as rec, CompileRecorder(include_eager=True) as everything:
        call_line = sys._getframe().f_lineno + 1
        inner(x)
        jnp.negative(x)  # JAX's own jitted ufunc applied eagerly
    assert [(e.name.rsplit(".", 1)[-1], str(e.signature)) for e in rec.events] == [
        ("inner", "x: f32[3]")
    ]
    assert rec.events[0].location.endswith(f":{inner.__wrapped__.__code__.co_firstlineno}")
    assert rec.events[0].call_site.endswith(f"test_accounting.py:{call_line}")
    eager = [e for e in everything.events if e.eager]
    assert [e.name for e in eager] == ["negative"]
    assert "<unknown>" not in eager[0].location


def test_backward_pass_under_grad_is_attributed_to_the_jitted_function():
    @jax.jit
    def loss(x):
        return jnp.sum(jnp.where(x > 0, x, 0.0) ** 2)

    x = jnp.ones(3)
    with CompileRecorder() as rec, CompileRecorder(include_eager=True) as everything:
        jax.grad(loss)(x)
        jax.grad(lambda v: jnp.sum(jax.nn.log_softmax(v)))(x)
    defined = loss.__wrapped__.__code__.co_firstlineno
    # One key for all of them: the summary groups the backward pass with the forward one.
    assert {e.key for e in rec.events} == {rec.events[0].key}
    assert rec.events[0].name.endswith("<locals>.loss")
    assert rec.events[0].location.endswith(f"test_accounting.py:{defined}")
    assert rec.count >= 2
    assert any(e.transform == "jax.grad (backward pass)" for e in rec.events)
    assert all("vmap" not in e.reason for e in rec.events)
    assert all(e.location != "<unknown>" for e in everything.events)
    assert any(e.name == "log_softmax" and e.eager for e in everything.events)


def test_batched_call_under_vmap_is_not_called_a_recompilation():
    @jax.jit
    def triple(x):
        return x * 3

    with CompileRecorder() as rec:
        triple(jnp.ones(3))
        jax.vmap(triple)(jnp.ones((2, 3)))
    assert rec.count == 2
    assert rec.events[0].first
    batched = rec.events[1]
    assert batched.transform == "jax.vmap"
    assert "jax.vmap" in batched.reason and "grad" not in batched.reason
    assert "backward" not in batched.reason
    assert "same abstract signature" not in batched.reason
