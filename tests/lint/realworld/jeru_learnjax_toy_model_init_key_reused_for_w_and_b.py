# source: https://github.com/jeru/learn-jax/blob/1e2ac6ef92cd9883bed8ac91fdcb40fea9b9cb49/src/proj_0_toy_model/whole.py
#   (a learner's repository, "Toy model to test out the whole training flow")
# observed on jax 0.10.2 CPU: main() draws the weights w and the bias b from the same
#   rng_key, so b equals the first row of w ([0.977, 1.360] twice): the two parameters
#   start correlated. Training still runs (value_and_grad of the jitted loss; the update
#   `params[k] -= v * lr` writes into a Python dict, not into a JAX array).
# gap: other
# added: a stand-in for the grain pipeline (grain is not installed): a generator that yields
#   the same kind of element, `jnp.array(rng.random((2,)) * 10, dtype=jnp.float32)`, 1000 times
#   from a NumPy Generator seeded with 42, in place of
#   `grain.MapDataset.range(1000).random_map(VecGen(), seed=42)`; `return params` at the end of
#   main(); the __main__ checks after its call of main().
# Copyright 2026 Cheng Sheng
# SPDX-License-Identifier: Apache-2.0
#
# Toy model to test out the whole training flow.

import os
os.environ["JAX_PLATFORMS"] = "cpu"
os.environ["JAX_ENABLE_X64"] = "1"

import jax.nn.initializers
from jax import numpy as jnp
import jax.random
from jaxtyping import Array, Float
import numpy as np


def linear(x: Float[Array, " D"], *, w: Float[Array, "D R"],
           b: Float[Array, " R"]) -> Float[Array, " R"]:
    return w @ x + b


def model(x: Float[Array, " D"], params: dict) -> Float[Array, " R"]:
    w: Float[Array, "D R"] = params["w"]
    b: Float[Array, " R"] = params["b"]
    return linear(x, w=w, b=b)


def ground_truth(x: Float[Array, " D"]) -> Float[Array, " R"]:
    return x * 3 + 5


@jax.jit
def loss(x: Float[Array, " D"], params: dict) -> float:
    value = model(x, params)
    expected = ground_truth(x)
    diff = value - expected
    # Square L2 norm as loss function.
    return jnp.sum(diff * diff)


def main():
    rng_key = jax.random.key(42)
    initer = jax.nn.initializers.uniform(2)
    params = {
        "w": initer(rng_key, (2, 2), jnp.float32),
        "b": initer(rng_key, (2,), jnp.float32),  # expect: JIT502
    }
    # Compute the gradient against the params, not `x`.
    value_and_grad_fn = jax.value_and_grad(loss, argnums=1)
    lr = 1e-2

    def _grain_standin(n, seed):  # stand-in for grain.MapDataset.range(n).random_map(VecGen(), seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(n):
            yield jnp.array(rng.random((2,)) * 10, dtype=jnp.float32)
    ds = _grain_standin(1000, seed=42)

    # Feed in random "training" data.
    for step, x in enumerate(ds):
        vg = value_and_grad_fn(x, params)
        if step % 20 == 0:
            print(f'Step {step}: x={x}, loss={vg[0]}, grad={vg[1]}')
        # Naive gradient descent.
        for k, v in vg[1].items():
            params[k] -= v * lr
    print(f'Final: w={params["w"]}, b={params["b"]}')
    return params


if __name__ == "__main__":
    final = main()
    assert all(bool(jnp.isfinite(v).all()) for v in final.values())
    rng_key = jax.random.key(42)
    initer = jax.nn.initializers.uniform(2)
    w0 = initer(rng_key, (2, 2), jnp.float32)
    b0 = initer(rng_key, (2,), jnp.float32)  # tolerate: JIT502
    # observed: line 58 draws b from the key that drew w: b equals the first row of w
    assert bool((b0 == w0[0]).all()), (w0, b0)
