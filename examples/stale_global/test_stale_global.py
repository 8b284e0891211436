"""The plugin catches the stale global; the fix passes."""

import jax.numpy as jnp
import pytest
import stale_global_bug
import stale_global_fix

from pytest_jitcheck import assert_jit_matches_eager

PARAMS = {"dense": {"w": jnp.ones((2, 3)), "b": jnp.zeros(3)}}
GRADS = {"dense": {"w": jnp.full((2, 3), 0.5), "b": jnp.ones(3)}}


@pytest.fixture
def schedule():
    """Restore the buggy module's learning rate after the test."""
    yield stale_global_bug.set_learning_rate
    stale_global_bug.set_learning_rate(0.1)


def test_the_stale_learning_rate_is_caught(schedule):
    assert_jit_matches_eager(stale_global_bug.sgd_step, PARAMS, GRADS)  # traced with 0.1
    schedule(0.01)
    with pytest.raises(AssertionError) as info:
        assert_jit_matches_eager(stale_global_bug.sgd_step, PARAMS, GRADS)
    message = str(info.value)
    assert "jit and eager results of `sgd_step`" in message
    assert "output['dense']['w']: f32[2,3]: 6 of 6 elements differ" in message
    assert "jit=0.95 eager=0.995" in message


def test_the_fix_uses_the_current_learning_rate():
    for learning_rate in (0.1, 0.01):
        new = assert_jit_matches_eager(stale_global_fix.sgd_step, PARAMS, GRADS, learning_rate)
        assert float(new["dense"]["w"][0, 0]) == pytest.approx(1 - 0.5 * learning_rate)
