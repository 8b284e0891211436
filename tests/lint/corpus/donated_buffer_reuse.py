"""Reading a buffer after it was donated to a jitted call."""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, donate_argnums=0)
def sgd_update(params, grads):
    return jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)


def train(params, grads_seq):
    for grads in grads_seq:
        params = sgd_update(params, grads)
    return params


def train_bad(params, grads):
    new_params = sgd_update(params, grads)
    drift = jax.tree_util.tree_map(lambda a, b: jnp.abs(a - b).max(), new_params, params)  # expect: JIT504
    return new_params, drift
