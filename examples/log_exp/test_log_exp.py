"""The plugin catches log(exp(x)) differing under jit; the fix agrees in both modes."""

import jax.numpy as jnp
import log_exp_bug
import log_exp_fix
import pytest

from pytest_jitcheck import assert_jit_matches_eager

ENERGY = jnp.array([1.0, 50.0, 200.0])


def test_jit_and_eager_disagree_on_the_buggy_version():
    with pytest.raises(AssertionError) as info:
        assert_jit_matches_eager(log_exp_bug.log_boltzmann_weights, ENERGY, 1.0)
    message = str(info.value)
    assert "output: f32[3]: 1 of 3 elements differ" in message
    assert "inf only in the eager result at 1 element; first at [2]: jit=-200.0 eager=-inf" in (
        message
    )


def test_the_fix_agrees():
    assert_jit_matches_eager(log_exp_fix.log_boltzmann_weights, ENERGY, 1.0)
    assert_jit_matches_eager(log_exp_fix.log_probabilities, ENERGY, 1.0)


@pytest.mark.jit_and_eager
def test_the_fix_is_finite_jitted_and_eagerly():
    # Runs twice: [jit] and [eager] (under jax.disable_jit()).
    log_p = log_exp_fix.log_probabilities(ENERGY, 1.0)
    assert jnp.isfinite(log_p).all()
    assert float(log_exp_fix.probabilities(ENERGY, 1.0).sum()) == pytest.approx(1.0)
