"""The fast leak detector finds tracers that outlive a test, and nothing else."""

from __future__ import annotations

import functools
import gc
import re
import sys

import jax
import jax.numpy as jnp
import pytest

from pytest_jitcheck import TracerLeakError, no_tracer_leaks
from pytest_jitcheck.leaks import LeakScan, describe_leaks

STASH: list[object] = []


class Holder:
    slot = None

    def __init__(self):
        self.value = None


HOLDER = Holder()


def _scan(fn) -> list[object]:
    scan = LeakScan()
    scan.start()
    try:
        fn()
    finally:
        found = scan.finish()
    return found


def test_clean_jitted_code_has_no_leak():
    f = jax.jit(lambda x: jnp.sin(x) * 2)
    assert _scan(lambda: f(jnp.ones(3))) == []
    assert gc.get_freeze_count() == 0


def test_tracer_in_module_global_is_found_with_its_path():
    @jax.jit
    def leaky(x):
        STASH.append(x)
        return x

    try:
        found = _scan(lambda: leaky(jnp.ones(2)))
        assert len(found) == 1
        text = describe_leaks(found, "test_x")
    finally:
        STASH.clear()
    assert text.splitlines()[0] == (
        "[jitcheck] tracer leak in test_x: 1 tracer(s) outlived the jitted function that "
        "created them"
    )
    assert "tracer float32[2] from " in text
    assert "leaky at " in text
    assert "still reachable as test_leaks.STASH[0]" in text
    assert "hint: return values out of the jitted function" in text


def test_instance_and_class_attributes_are_named():
    @jax.jit
    def on_instance(x):
        HOLDER.value = x
        return x

    @jax.jit
    def on_class(x):
        Holder.slot = {"k": x}
        return x

    try:
        inst = describe_leaks(_scan(lambda: on_instance(jnp.ones(1))), "t")
        cls = describe_leaks(_scan(lambda: on_class(jnp.ones(1))), "t")
    finally:
        HOLDER.value = None
        Holder.slot = None
    assert "still reachable as test_leaks.HOLDER.value" in inst
    assert "still reachable as class attribute Holder.slot['k']" in cls


def test_tracers_in_cyclic_garbage_are_not_leaks():
    def make_garbage():
        @jax.jit
        def f(x):
            cycle: list[object] = [x]
            cycle.append(cycle)
            return x + 1

        f(jnp.ones(2))

    assert _scan(make_garbage) == []


def test_many_leaks_are_summarised():
    @jax.jit
    def leaky(x):
        STASH.extend([x + 1, x + 2, x + 3, x + 4, x + 5])
        return x

    try:
        text = describe_leaks(_scan(lambda: leaky(jnp.ones(2))), "t")
    finally:
        STASH.clear()
    # x itself is alive too where JAX's tracers keep their inputs (not on jax 0.6), but
    # only as an input of the five leaked sums.
    assert re.search(
        r"5 tracer\(s\) outlived [^\n]*?( \(and \d+ reachable only through them\))?\n", text
    )
    assert text.count("  - tracer ") == 3
    assert "... and 2 more" in text


def test_someone_elses_freeze_is_respected():
    gc.freeze()
    try:
        scan = LeakScan()
        scan.start()
        assert scan.finish() == []
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def test_no_tracer_leaks_block_fails_on_a_leak_and_names_the_block():
    @jax.jit
    def leaky(x):
        HOLDER.value = x
        return x

    line = sys._getframe().f_lineno + 2
    try:
        with pytest.raises(TracerLeakError) as info, no_tracer_leaks():
            leaky(jnp.ones(3))
    finally:
        HOLDER.value = None
    first = str(info.value).splitlines()[0]
    assert first.startswith("[jitcheck] tracer leak in block at ")
    assert first.split(" in block at ")[1].startswith(f"{__file__}:{line}:")
    assert "still reachable as test_leaks.HOLDER.value" in str(info.value)


def test_no_tracer_leaks_nests_inside_a_running_scan():
    outer = LeakScan()
    outer.start()
    try:
        STASH.append(jax.jit(lambda x: STASH.append(x) or x)(jnp.ones(1)))  # leaks a tracer
        with no_tracer_leaks():  # only tracers created inside the block count
            jax.jit(lambda x: x * 2)(jnp.ones(1))
        assert gc.get_freeze_count() > 0  # the inner block left the outer freeze alone
    finally:
        found = outer.finish()
        STASH.clear()
    assert len(found) == 1
    assert gc.get_freeze_count() == 0


def test_no_tracer_leaks_lets_exceptions_through():
    with pytest.raises(ZeroDivisionError), no_tracer_leaks():
        1 / 0  # noqa: B018
    assert gc.get_freeze_count() == 0


class _JaxStyleCache:
    """Stands for one of JAX's internal caches (its class lives in a ``jax.*`` module)."""

    __module__ = "jax._src.example_cache"

    def __init__(self):
        self.entries = {}


JAX_STYLE_CACHE = _JaxStyleCache()


def test_tracers_held_only_by_jax_objects_are_not_leaks_but_user_holders_are():
    @jax.jit
    def cached(x):
        JAX_STYLE_CACHE.entries["key"] = (x,)
        return x

    @jax.jit
    def both(x):
        JAX_STYLE_CACHE.entries["other"] = (x,)
        STASH.append(x)
        return x

    try:
        assert _scan(lambda: cached(jnp.ones(2))) == []
        found = _scan(lambda: both(jnp.ones(3)))
        assert len(found) == 1  # reachable from a user global too: a leak
        assert "as test_leaks.STASH[0]" in describe_leaks(found, "t")
    finally:
        JAX_STYLE_CACHE.entries.clear()
        STASH.clear()


class _Base:
    __slots__ = ("raw",)


class _Variable(_Base):
    """Like flax's nnx.Variable: the value in an inherited slot, ``__getattr__`` elsewhere."""

    __slots__ = ("meta",)

    def __getattr__(self, name: str) -> object:
        return "metadata"


class _Stream:
    def __init__(self) -> None:
        self.count = _Variable()


def test_holder_in_inherited_slot_and_closure_variable_is_named():
    # flax's deliberate leak in rngs_test: an nnx.Rngs built inside jit and stored in the
    # enclosing test's variable, its tracers in the inherited slots of Variables.
    def run() -> object:
        rngs = None

        @jax.jit
        def h(x):
            nonlocal rngs
            rngs = {"default": _Stream()}
            rngs["default"].count.raw = x
            return x

        h(jnp.ones(2))
        return h.__wrapped__

    # Keeps the function, and so its closure, alive (in a test, the recorder's events do).
    kept: list[object] = []
    found = _scan(lambda: kept.append(run()))
    assert len(found) == 1
    text = describe_leaks(found, "t")
    assert "still reachable as rngs['default'].count.raw (a variable captured by " in text
    assert "run.<locals>.h)" in text
    del found


def test_unnamed_step_still_names_the_holder():
    @jax.jit
    def f(x):
        # Held in a C-level field that no path step can name: the holder's type is named.
        STASH.append(functools.partial(print, x))
        return x

    try:
        found = _scan(lambda: f(jnp.ones(2)))
        assert len(found) == 1
        text = describe_leaks(found, "t")
        assert "still reachable as test_leaks.STASH[0].<tuple>[0]" in text
    finally:
        STASH.clear()
        del found


class _Stash:
    """A model whose jitted method (static `self`) keeps its activation: JAX's cache keys on
    `self`, so a walk of referrers alone finds only JAX holding the tracer."""

    def __init__(self) -> None:
        self.last: jax.Array | None = None

    @functools.partial(jax.jit, static_argnums=0)
    def __call__(self, x: jax.Array) -> jax.Array:
        self.last = x * 2
        return x


def test_leak_through_a_static_self_held_in_a_local_variable_is_found() -> None:
    model = _Stash()
    try:
        with pytest.raises(TracerLeakError) as caught, no_tracer_leaks():
            model(jnp.ones(2))
        where = "local variable 'model' of test_leak_through_a_static_self_held_in_a_local_"
        assert f"still reachable as {where}variable_is_found().last" in str(caught.value)
    finally:
        model.last = None
