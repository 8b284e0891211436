"""JAX's own static parameters, as jitlint's table has them, checked against the installed JAX."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import jax
import jax.numpy as jnp
import pytest

from jitlint.rules.library_params import JAX_STATIC_PARAMS, JAX_STATIC_PARAMS_VERSION

REPO = Path(__file__).resolve().parents[2]


def _generator() -> ModuleType:
    path = REPO / "benchmarks" / "jax_static_params.py"
    spec = importlib.util.spec_from_file_location("jax_static_params", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_table_is_what_the_installed_jax_jits_static() -> None:
    # Regenerate with `python benchmarks/jax_static_params.py` after an upgrade; on another
    # JAX the examples below still check the entries that matter most.
    if jax.__version__ != JAX_STATIC_PARAMS_VERSION:
        pytest.skip(f"the table was generated on jax {JAX_STATIC_PARAMS_VERSION}")
    assert _generator().static_params() == JAX_STATIC_PARAMS


@pytest.mark.parametrize(
    ("fn", "kwargs"),
    [
        (jnp.linalg.norm, {"ord": 1}),
        (jnp.round, {"decimals": 1}),
        (jnp.linalg.svd, {"full_matrices": False}),
        (jnp.cumsum, {"axis": 0}),
    ],
)
def test_a_traced_value_at_a_listed_parameter_is_not_hashable(
    fn: Callable[..., object], kwargs: dict[str, object]
) -> None:
    x = jnp.ones((2, 2))
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        jax.jit(fn)(x, **kwargs)
    jax.jit(fn, static_argnames=tuple(kwargs))(x, **kwargs)  # kept static: it runs
