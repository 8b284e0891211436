"""Signatures and the recompile reasons computed by diffing them."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

from pytest_jitcheck.signature import diff, hint_for, make_signature, short_dtype


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


def test_long_static_values_are_truncated():
    text = str(sig(f, jnp.ones(1), "y" * 200, static_argnums=(1,)))
    assert text.endswith("...") and len(text) < 100


def test_diff_names_changed_paths():
    old = sig(f, {"w": jnp.ones(3), "b": 1.0}, 2, static_argnums=(1,))
    new = sig(f, {"w": jnp.ones(4), "b": jnp.float32(1)}, 3, static_argnums=(1,))
    assert diff(old, new) == [
        "x['b']: weak_f32[] -> f32[]",
        "x['w']: f32[3] -> f32[4]",
        "n (static): 2 -> 3",
    ]


def test_diff_of_structure_change_lists_keys():
    old = sig(f, {"a": 1, "b": 2})
    new = sig(f, {"a": 1, "c": 2})
    assert diff(old, new) == ["pytree structure of x changed: keys {'c'} added; keys {'b'} removed"]
    lists = diff(sig(f, [1, 2]), sig(f, (1, 2)))
    assert lists == ["pytree structure of x changed: PyTreeDef([*, *]) -> PyTreeDef((*, *))"]


def test_diff_of_added_and_removed_arguments():
    assert diff(sig(f, 1), sig(f, 1, batch=jnp.ones(2))) == ["argument batch added"]
    assert diff(sig(f, 1, 2), sig(f, 1)) == ["argument n removed"]


def test_identical_signatures_have_no_diff():
    assert diff(sig(f, jnp.ones(2)), sig(f, jnp.ones(2))) == []


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ("n (static): 2 -> 3", "static argument"),
        ("pytree structure of x changed: keys {'c'} added", "pytree structure"),
        ("x: weak_f32[] -> f32[]", "weakly typed"),
        ("x: f32[3] -> f32[4]", "pad or bucket"),
    ],
)
def test_hint_matches_the_kind_of_change(change, words):
    assert words in hint_for([change])
