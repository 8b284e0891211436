"""CPU against GPU, for real: runs only where JAX sees a GPU (CI has none and skips)."""

from __future__ import annotations

import pytest

from pytest_jitcheck.devices import gpu_available

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not gpu_available(), reason="no GPU (or no GPU build of JAX)"),
]

MLP_TESTS = """
import jax
import jax.numpy as jnp
import pytest
from pytest_jitcheck import assert_same_on_devices


def init(key, sizes=(64, 256, 256, 10)):
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        key, sub = jax.random.split(key)
        params.append((jax.random.normal(sub, (fan_in, fan_out)) / fan_in**0.5, jnp.zeros(fan_out)))
    return params


def forward(params, x):
    for w, b in params[:-1]:
        x = jax.nn.gelu(x @ w + b)
    w, b = params[-1]
    return x @ w + b


def loss(params, x):
    return jnp.mean(forward(params, x) ** 2)


PARAMS = init(jax.random.PRNGKey(0))
X = jax.random.normal(jax.random.PRNGKey(1), (128, 64))


def test_forward_runs_on(jax_device):
    out = jax.jit(forward)(PARAMS, X)
    assert out.devices() == {jax_device}


@pytest.mark.parametrize("precision", ["default", "highest"])
@pytest.mark.parametrize("fn", [forward, jax.grad(loss)], ids=["forward", "grad"])
def test_same_on_cpu_and_gpu(fn, precision):
    with jax.default_matmul_precision(None if precision == "default" else precision):
        assert_same_on_devices(fn, PARAMS, X, devices=["cpu", "gpu"])
"""


def test_mlp_forward_and_grad_on_cpu_and_gpu(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_mlp=MLP_TESTS)
    result = pytester.runpytest_subprocess("--jitcheck-devices", "cpu,gpu", "-v", "-rf")
    # Both platforms run; with the "highest" matmul precision CPU and GPU agree within
    # the float32 defaults. What "default" precision gives is printed, not asserted:
    # it depends on the GPU (TF32 on NVIDIA Ampere and later).
    result.stdout.fnmatch_lines_random(
        [
            "*test_forward_runs_on[[]cpu[]] PASSED*",
            "*test_forward_runs_on[[]gpu[]] PASSED*",
            "*test_same_on_cpu_and_gpu[[]forward-highest[]] PASSED*",
            "*test_same_on_cpu_and_gpu[[]grad-highest[]] PASSED*",
        ]
    )
