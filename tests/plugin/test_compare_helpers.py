"""assert_jit_matches_eager and the pytree comparison, on real JAX (CPU)."""

from __future__ import annotations

import re
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from pytest_jitcheck import JitcheckUsageError, assert_jit_matches_eager
from pytest_jitcheck.compare import compare_trees, default_tolerance


def _eager_only(value, otherwise):
    """Return ``value`` in an eager run and ``otherwise`` under jit (decided at trace time)."""
    return value if jax.config.jax_disable_jit else otherwise


def test_log_exp_is_inf_eagerly_and_finite_jitted():
    if jax.default_backend() != "cpu":
        # XLA's CPU compiler folds log(exp(x)) to x; on an H100 (jax 0.11.2) jit and
        # eager both overflow to inf, so there is no mismatch to find.
        pytest.skip("the log(exp(x)) folding this test relies on is XLA CPU's")
    with pytest.raises(AssertionError) as info:
        assert_jit_matches_eager(lambda x: jnp.log(jnp.exp(x)), jnp.array([1.0, 100.0, 3.0]))
    message = str(info.value)
    assert message.startswith("[jitcheck] jit and eager results of `test_log_exp_is_inf_")
    assert "<locals>.<lambda>` (tests/plugin/test_compare_helpers.py:" in message
    assert "output: f32[3]: 1 of 3 elements differ (tolerance rtol=1e-05, atol=1e-05)" in message
    assert "inf only in the eager result at 1 element; first at [1]: jit=100.0 eager=inf" in message


def test_stale_global_in_an_already_jitted_function():
    scale = {"g": 1.0}  # a mutable "global" read at trace time

    @jax.jit
    def step(params):
        return {"dense": {"w": params["dense"]["w"] * scale["g"], "b": params["dense"]["b"]}}

    params = {"dense": {"w": jnp.arange(12.0).reshape(3, 4), "b": jnp.arange(3)}}
    assert_jit_matches_eager(step, params)  # traced with g=1, eager uses g=1
    scale["g"] = 2.0
    with pytest.raises(AssertionError) as info:
        assert_jit_matches_eager(step, params)
    message = str(info.value)
    assert "`test_stale_global_in_an_already_jitted_function.<locals>.step`" in message
    assert "output['dense']['w']: f32[3,4]: 11 of 12 elements differ" in message
    assert "worst at [2, 3]: jit=11.0 eager=22.0" in message
    assert "max abs error 11, max rel error 0.5" in message
    assert "output['dense']['b']" not in message  # the integer leaf agrees


def test_a_plain_function_that_agrees_returns_the_jitted_result():
    out = assert_jit_matches_eager(lambda x, y: {"s": x + y, "n": (x > 0).sum()}, jnp.ones(3), 2.0)
    assert isinstance(out["s"], jax.Array)
    np.testing.assert_array_equal(out["s"], np.full(3, 3.0, np.float32))
    assert int(out["n"]) == 3


def test_static_arguments_by_position_and_name():
    def repeat(x, times, *, label):
        return jnp.tile(x, times) * len(label)

    out = assert_jit_matches_eager(
        repeat, jnp.ones(2), 3, label="ab", static_argnums=1, static_argnames="label"
    )
    assert out.shape == (6,)
    # A static name given by position is static too (jax.jit resolves it the same way).
    assert assert_jit_matches_eager(lambda x, n: x * n, 1.0, 2, static_argnames="n") == 2.0


def test_nan_in_the_same_place_is_equal_and_one_sided_nan_is_named():
    assert_jit_matches_eager(lambda x: x * jnp.array([jnp.nan, 1.0]), jnp.ones(2))
    with pytest.raises(AssertionError, match=r"nan only in the eager result at 2 elements"):
        assert_jit_matches_eager(
            lambda x: _eager_only(x * jnp.nan, x),
            jnp.ones(2),
        )


def test_same_signed_infinities_are_equal_and_opposite_ones_are_not():
    assert_jit_matches_eager(lambda x: x / 0.0, jnp.array([1.0, -1.0]))
    with pytest.raises(AssertionError, match="1 of 1 elements differ"):
        assert_jit_matches_eager(lambda x: _eager_only(-x / 0.0, x / 0.0), jnp.array([1.0]))


def test_integers_and_bools_compare_exactly():
    with pytest.raises(AssertionError) as info:
        assert_jit_matches_eager(lambda x: x + _eager_only(0, 1), jnp.arange(4))
    assert "output: i32[4]: 4 of 4 elements differ (exact comparison)" in str(info.value)
    assert "first at [0]: jit=1 eager=0" in str(info.value)
    with pytest.raises(AssertionError, match=r"output\[1\]: bool\[2\]"):
        assert_jit_matches_eager(lambda x: (x, x > _eager_only(0.5, 1.5)), jnp.array([1.0, 2.0]))


@pytest.mark.parametrize(
    ("dtype", "within", "beyond"),
    [
        (jnp.bfloat16, 1.01, 1.05),
        (jnp.float16, 1.001, 1.01),
        (jnp.float32, 1.000005, 1.0001),
        (jnp.complex64, 1.000005, 1.0001),
    ],
)
def test_default_tolerances_follow_the_dtype(dtype, within, beyond):
    def scaled(factor):
        return lambda x: (x * _eager_only(1.0, factor)).astype(dtype)

    assert_jit_matches_eager(scaled(within), jnp.full(3, 1.0))
    with pytest.raises(AssertionError):
        assert_jit_matches_eager(scaled(beyond), jnp.full(3, 1.0))


def test_float64_defaults_are_tighter_than_float32_ones():
    f32 = default_tolerance(np.dtype(np.float32))
    f64 = default_tolerance(np.dtype(np.float64))
    assert f64.rtol < f32.rtol and f64.atol < f32.atol
    assert default_tolerance(np.dtype(np.int32)).rtol == 0


def test_float64_default_admits_an_iterative_solvers_roundoff():
    # optimistix's BFGS inverse Hessian (tests/test_compat.py) after its iterations,
    # jitted and eager on CPU: 2.6e-12 apart relatively, roundoff and no bug.
    with jax.enable_x64(True):  # as optimistix's conftest sets it
        jitted = jnp.array([0.7746507861576983])
        eager = jnp.array([0.7746507861557208])
        assert eager.dtype == jnp.float64
        assert compare_trees(jitted, eager) == []
        # A change in the ninth digit (a constant off by 1e-9) is still reported.
        assert compare_trees(eager * (1 + 1e-9), eager) != []


def test_explicit_tolerances_override_the_defaults():
    fn = partial(lambda d, x: x * _eager_only(1.0, 1.0 + d), 1e-3)
    with pytest.raises(AssertionError, match=r"rtol=1e-05") as info:
        assert_jit_matches_eager(fn, jnp.ones(2))
    assert "`partial(test_explicit_tolerances_override_the_defaults.<locals>.<lambda>)`" in str(
        info.value
    )
    assert_jit_matches_eager(fn, jnp.ones(2), rtol=2e-3)
    with pytest.raises(AssertionError, match=r"tolerance rtol=0, atol=0"):
        assert_jit_matches_eager(fn, jnp.ones(2), rtol=0, atol=0)


def test_structure_differences_are_reported_by_leaf_path():
    with pytest.raises(AssertionError) as info:
        assert_jit_matches_eager(lambda x: _eager_only({"a": x}, {"b": x}), 1.0)
    assert "leaves only in the jit result: output['b']" in str(info.value)
    assert "leaves only in the eager result: output['a']" in str(info.value)
    with pytest.raises(AssertionError, match=r"jit: \.\.\.PyTreeDef\(\[\*, \*\]\)"):
        assert_jit_matches_eager(lambda x: _eager_only((x, x), [x, x]), 1.0)


def test_shape_and_dtype_differences_are_reported():
    with pytest.raises(AssertionError, match=r"output: jit is f32\[1\], eager is f32\[\]"):
        assert_jit_matches_eager(lambda x: _eager_only(x, x.reshape(1)), jnp.float32(1))
    with pytest.raises(AssertionError, match=r"output: jit is i32\[\], eager is f32\[\]"):
        assert_jit_matches_eager(lambda x: _eager_only(x, x.astype(jnp.int32)), jnp.float32(1))


def test_python_numbers_from_the_eager_run_compare_in_canonical_dtypes():
    # Eagerly x * 2 on a Python float stays a Python float; jitted it is weak float32.
    assert assert_jit_matches_eager(lambda x: x * 2, 1.5) == 3.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"rtol": -1.0}, "rtol must be a non-negative number, got -1.0"),
        ({"atol": float("nan")}, "atol must be a non-negative number, got nan"),
        ({"rtol": "1e-3"}, "rtol must be a non-negative number or None, got str '1e-3'"),
        ({"atol": True}, "atol must be a non-negative number or None, got bool True"),
    ],
)
def test_bad_tolerances_are_usage_errors(kwargs, message):
    with pytest.raises(JitcheckUsageError, match=re.escape(f"[jitcheck] {message}")):
        assert_jit_matches_eager(jnp.sin, 1.0, **kwargs)


def test_leaves_that_are_not_arrays_are_usage_errors():
    with pytest.raises(JitcheckUsageError) as info:
        assert_jit_matches_eager(lambda x, name: x, 1.0, {"name": "w"})
    assert str(info.value) == (
        "[jitcheck] argument 1['name'] is a str, which jax.jit cannot trace; mark it static "
        "with static_argnums= or pass an array"
    )
    with pytest.raises(JitcheckUsageError, match=r"argument 'tag' is a str.*static_argnames="):
        assert_jit_matches_eager(lambda x, tag: x, 1.0, tag="w")
    with pytest.raises(JitcheckUsageError, match=r"the eager result has a leaf output\[1\] of"):
        compare_trees((1.0, 2.0), (1.0, "two"))


def test_other_bad_input_is_a_usage_error():
    with pytest.raises(JitcheckUsageError, match=r"expected a function to check, got int"):
        assert_jit_matches_eager(3, 1.0)
    with pytest.raises(JitcheckUsageError, match=r"already jitted and has its own"):
        assert_jit_matches_eager(jax.jit(jnp.sin), 1.0, static_argnums=0)


def test_donating_jitted_functions_can_be_checked():
    double = jax.jit(lambda x: x * 2, donate_argnums=0)
    x = jnp.ones(3)
    np.testing.assert_array_equal(assert_jit_matches_eager(double, x), np.full(3, 2.0))
    assert x.is_deleted()  # the jitted call still donated it, after the eager run
