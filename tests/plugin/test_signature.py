"""Signatures and the recompile reasons computed by diffing them."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from pytest_jitcheck._naming import short_dtype
from pytest_jitcheck.accounting import Change, ChangeKind, hint_for
from pytest_jitcheck.accounting.signature import diff, make_signature


def sig(fun, *args, static_argnums=(), static_argnames=(), **kwargs):
    return make_signature(fun, args, kwargs, static_argnums, static_argnames)


def f(x, n=1, *, batch=None):
    return x


@pytest.mark.parametrize(
    ("dtype", "short"),
    [
        ("float32", "f32"),
        ("bfloat16", "bf16"),
        ("int8", "i8"),
        ("uint32", "u32"),
        ("complex64", "c64"),
        ("bool", "bool"),
    ],
)
def test_short_dtype(dtype, short):
    assert short_dtype(np.dtype(dtype) if dtype != "bfloat16" else jnp.bfloat16) == short


def test_python_scalars_are_weak_and_arrays_are_not():
    assert str(sig(f, 1.0, jnp.int32(2))) == "x: weak_f32[], n: i32[]"
    assert str(sig(f, np.ones((2, 3), np.float32))) == "x: f32[2,3]"


def test_static_values_by_number_and_name():
    assert str(sig(f, jnp.ones(2), 3, static_argnums=(1,))) == "x: f32[2], n (static): 3"
    assert str(sig(f, jnp.ones(2), n=4, static_argnames=("n",))) == "x: f32[2], n (static): 4"
    assert str(sig(f, jnp.ones(2), 5, static_argnums=(-1,))) == "x: f32[2], n (static): 5"


def test_long_static_values_are_shortened_in_the_signature():
    text = str(sig(f, jnp.ones(1), "y" * 200, static_argnums=(1,)))
    assert text.endswith("...") and len(text) < 100


def _texts(changes):
    return [str(c) for c in changes]


def test_diff_names_changed_paths_with_typed_kinds():
    old = sig(f, {"w": jnp.ones(3), "b": 1.0, "i": jnp.int32(1)}, 2, static_argnums=(1,))
    new = sig(f, {"w": jnp.ones(4), "b": jnp.float32(1), "i": 1.0}, 3, static_argnums=(1,))
    assert diff(old, new) == [
        Change(ChangeKind.STATIC_VALUE, "n", "2", "3"),
        Change(ChangeKind.WEAK_TYPE, "x['b']", "weak_f32[]", "f32[]"),
        Change(ChangeKind.DTYPE, "x['i']", "i32[]", "weak_f32[]"),
        Change(ChangeKind.SHAPE, "x['w']", "f32[3]", "f32[4]"),
    ]


def test_long_static_values_are_diffed_structurally():
    config = tuple(range(40))
    changed = (*range(39), 99)
    old = sig(f, jnp.ones(1), {"layers": config}, static_argnums=(1,))
    new = sig(f, jnp.ones(1), {"layers": changed}, static_argnums=(1,))
    assert diff(old, new) == [Change(ChangeKind.STATIC_VALUE, "n['layers'][39]", "39", "99")]


class _ByIdentity:
    def __repr__(self):
        return "Options()"


def test_static_values_hashed_by_identity_are_named():
    # Both objects stay alive: a freed one's address (its identity hash) can be reused.
    first, second = _ByIdentity(), _ByIdentity()
    old = sig(f, jnp.ones(1), first, static_argnums=(1,))
    new = sig(f, jnp.ones(1), second, static_argnums=(1,))
    (change,) = diff(old, new)
    assert change.kind is ChangeKind.STATIC_IDENTITY
    assert "hashes by identity" in str(change)


def test_diff_of_structure_change_lists_keys():
    old = sig(f, {"a": 1, "b": 2})
    new = sig(f, {"a": 1, "c": 2})
    assert _texts(diff(old, new)) == [
        "pytree structure of x changed: dict with keys {'a', 'b'} -> dict with keys {'a', 'c'}"
    ]
    lists = diff(sig(f, [1, 2]), sig(f, (1, 2)))
    assert _texts(lists) == [
        "pytree structure of x changed: PyTreeDef([*, *]) -> PyTreeDef((*, *))"
    ]


def test_diff_of_added_and_removed_arguments():
    assert _texts(diff(sig(f, 1), sig(f, 1, batch=jnp.ones(2)))) == ["argument batch added"]
    assert _texts(diff(sig(f, 1, 2), sig(f, 1))) == ["argument n removed"]


def test_empty_pytrees_are_arguments_too():
    (change,) = diff(sig(f, jnp.ones(2), {}), sig(f, jnp.ones(2), {"a": jnp.ones(1)}))
    assert change.kind is ChangeKind.STRUCTURE and change.path == "n"
    assert "removed" not in str(change) and "added" not in str(change)


def test_positional_versus_keyword_is_a_structure_change():
    (change,) = diff(sig(f, 1.0, 2.0), sig(f, 1.0, n=2.0))
    assert change == Change(ChangeKind.STRUCTURE, "n", "by position", "by keyword")


def test_config_changes_are_named():
    old = sig(f, jnp.ones(2))
    with jax.default_matmul_precision("highest"):
        new = sig(f, jnp.ones(2))
    (change,) = diff(old, new)
    assert change.kind is ChangeKind.CONFIG
    assert change.path == "jax_default_matmul_precision" and change.new == "highest"


def test_identical_signatures_have_no_diff():
    assert diff(sig(f, jnp.ones(2)), sig(f, jnp.ones(2))) == []


@pytest.mark.parametrize(
    ("kind", "words"),
    [
        (ChangeKind.STATIC_VALUE, "static argument"),
        (ChangeKind.STRUCTURE, "pytree structure"),
        (ChangeKind.WEAK_TYPE, "weakly typed"),
        (ChangeKind.SHAPE, "pad or bucket"),
        (ChangeKind.NEW_FUNCTION, "outside the loop"),
    ],
)
def test_hint_follows_the_kind_of_change(kind, words):
    assert words in hint_for([Change(kind, "x", "a", "b")])


def test_a_long_pytree_structure_change_shows_where_it_differs():
    # flax's GraphDef puts a module's static fields in the treedef: the changed field sits
    # far into a long, multi-line text.
    @jax.tree_util.register_static
    class Config:
        def __init__(self, size: int) -> None:
            self.size = size

        def __repr__(self) -> str:
            return (
                "Config(\n"
                + "".join(f"  field{i}=0,\n" for i in range(20))
                + f"  size={self.size})"
            )

        def __eq__(self, other: object) -> bool:
            return isinstance(other, Config) and other.size == self.size

        def __hash__(self) -> int:
            return self.size

    old = sig(f, {"cfg": Config(2), "w": jnp.ones(2)})
    new = sig(f, {"cfg": Config(4), "w": jnp.ones(2)})
    (change,) = diff(old, new)
    assert change.kind is ChangeKind.STRUCTURE
    assert change.old.startswith("...") and "size=2" in change.old and "\n" not in change.old
    assert "size=4" in change.new
    assert len(change.new) < 80


def test_filtered_arguments_split_arrays_from_static_leaves():
    traced = lambda leaf: isinstance(leaf, jax.Array)  # noqa: E731
    old = make_signature(f, ({"w": jnp.ones(2), "act": "relu"},), {"batch": 3}, traced=traced)
    new = make_signature(f, ({"w": jnp.ones(3), "act": "tanh"},), {"batch": 3}, traced=traced)
    assert str(old) == "x['act'] (static): 'relu', x['w']: f32[2], batch (static): 3"
    assert diff(old, new) == [
        Change(ChangeKind.STATIC_VALUE, "x['act']", "'relu'", "'tanh'"),
        Change(ChangeKind.SHAPE, "x['w']", "f32[2]", "f32[3]"),
    ]


def test_user_call_sees_through_a_type_checker_around_filter_jit():
    # equinox's suite runs with jaxtyping's import hook on equinox, which wraps
    # filter_jit's fun_wrapped in a checker (keeping it as __wrapped__).
    import functools

    eqx = pytest.importorskip("equinox")
    from equinox._jit import _preprocess

    from pytest_jitcheck.accounting.wrappers import user_call

    def f(x, y, *, z=1):
        return x * y

    jitted = eqx.filter_jit(f)
    info = (jitted._signature, jitted._dynamic_fun, jitted._static_fun, False, False)
    args = _preprocess(info, (jnp.ones(2), 3), {"z": 2}, return_static=True)
    inner = jitted._cached.__wrapped__

    @functools.wraps(inner)
    def checked(*a, **k):
        return inner(*a, **k)

    for traced in (inner, checked):
        view = user_call(traced, args, {})
        assert view is not None and view.fun is f
        signature = make_signature(view.fun, view.args, view.kwargs, traced=view.traced)
        assert str(signature) == "x: f32[2], y (static): 3, z (static): 2"


def test_filter_jit_of_a_callable_describes_the_callable():
    # equinox shares one traced function between callables that are not plain functions
    # (filter_grad's wrappers, modules, bound methods): their fields tell them apart.
    eqx = pytest.importorskip("equinox")
    from equinox._jit import _preprocess

    from pytest_jitcheck.accounting.wrappers import user_call

    def f(x):
        return x + 1

    def signature_of(callable_):
        jitted = eqx.filter_jit(callable_)
        info = (jitted._signature, jitted._dynamic_fun, jitted._static_fun, False, False)
        args = _preprocess(info, (jnp.ones(()),), {}, return_static=True)
        view = user_call(jitted._cached.__wrapped__, args, {})
        assert view is not None and type(view.closure) is type(callable_)
        return make_signature(
            view.fun, view.args, view.kwargs, traced=view.traced, closure=view.closure
        )

    grad, value_and_grad = (
        signature_of(eqx.filter_grad(f)),
        signature_of(eqx.filter_value_and_grad(f)),
    )
    assert [c.kind for c in diff(grad, value_and_grad)] == [ChangeKind.STRUCTURE]
    assert diff(grad, value_and_grad)[0].path == "fun"
