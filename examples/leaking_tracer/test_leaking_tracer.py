"""The leaking tracer, caught by the same detector ``pytest --jitcheck`` runs per test."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest
from leaky_model import BuggyMLP, FixedMLP

from pytest_jitcheck import TracerLeakError, no_tracer_leaks


def test_buggy_model_leaks_a_tracer():
    model = BuggyMLP()
    try:
        with pytest.raises(TracerLeakError) as caught, no_tracer_leaks():
            model(jnp.ones((2, 3)))
        message = str(caught.value)
        assert "tracer float32[2,4] from __call__" in message
        where = "local variable 'model' of test_buggy_model_leaks_a_tracer().last_hidden"
        assert f"still reachable as {where}" in message
        # Without the check, the leak surfaces only when someone uses the value:
        with pytest.raises(jax.errors.UnexpectedTracerError):
            model.last_hidden + 1
    finally:
        # Drop the leaked tracer, or `pytest --jitcheck` rightly fails this test too.
        model.last_hidden = None


def test_fixed_model_does_not_leak():
    model = FixedMLP()
    with no_tracer_leaks():
        out = model(jnp.ones((2, 3)))
    assert out.shape == (2, 1)
    assert isinstance(model.last_hidden, jax.Array)
    assert float(model.last_hidden[0, 0]) == pytest.approx(float(jnp.tanh(0.3)))
