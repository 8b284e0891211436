# source: https://github.com/PredictiveIntelligenceLab/jaxpi/blob/5256be04b1eb35cc3cdb5a76fb0fec8f01791eb9/jaxpi/utils.py
# observed on jax 0.10.2 CPU: runs clean. jacobian_fn and ntk_fn take the network's apply
#   function as a static argument (a function, hashable), take grad with respect to the
#   params inside jit, and ntk_fn calls the jitted jacobian_fn from inside its own trace;
#   vmapped over collocation points as jaxpi's models do (vmap(ntk_fn, (None, None, 0, 0))),
#   it returns one NTK diagonal entry per point, equal to the squared norm of that point's
#   parameter gradient, and new params give new values.
# gap: exemption-vs-JAX
# added: the module's jit helpers are kept as written; its checkpoint helpers
#   (save_checkpoint, restore_checkpoint, which use flax.training.checkpoints and the removed
#   jax.tree_map / jax.tree_leaves) and the import of the removed `jax.tree_map` are left
#   out; the small PINN `u_net` and the `__main__` block are added.
import os

from functools import partial

import jax
import jax.numpy as jnp
from jax import jit, grad
from jax.tree_util import tree_map
from jax.flatten_util import ravel_pytree


def flatten_pytree(pytree):
    return ravel_pytree(pytree)[0]


@partial(jit, static_argnums=(0,))
def jacobian_fn(apply_fn, params, *args):
    # apply_fn needs to be a scalar function
    J = grad(apply_fn, argnums=0)(params, *args)
    J, _ = ravel_pytree(J)
    return J


@partial(jit, static_argnums=(0,))
def ntk_fn(apply_fn, params, *args):
    # apply_fn needs to be a scalar function
    J = jacobian_fn(apply_fn, params, *args)
    K = jnp.dot(J, J)
    return K


def u_net(params, t, x):  # added: a scalar PINN u(t, x)
    h = jnp.stack([t, x])
    for W, b in params[:-1]:
        h = jnp.tanh(W @ h + b)
    W, b = params[-1]
    return (W @ h + b)[0]


if __name__ == "__main__":
    sizes = [2, 16, 16, 1]
    keys = jax.random.split(jax.random.PRNGKey(0), len(sizes) - 1)
    params = [
        (jax.random.normal(k, (d_out, d_in)) / jnp.sqrt(d_in), jnp.zeros(d_out))
        for k, d_in, d_out in zip(keys, sizes[:-1], sizes[1:])
    ]
    t = jnp.linspace(0.0, 1.0, 8)
    x = jnp.linspace(-1.0, 1.0, 8)

    ntk_diag = jax.vmap(ntk_fn, (None, None, 0, 0))(u_net, params, t, x)
    assert ntk_diag.shape == (8,)
    g0 = flatten_pytree(grad(u_net)(params, t[0], x[0]))
    assert bool(jnp.allclose(ntk_diag[0], jnp.dot(g0, g0), rtol=1e-5))

    params2 = tree_map(lambda p: 0.5 * p, params)
    ntk_diag2 = jax.vmap(ntk_fn, (None, None, 0, 0))(u_net, params2, t, x)
    assert not bool(jnp.allclose(ntk_diag, ntk_diag2))
    assert bool(jnp.allclose(jacobian_fn(u_net, params, t[1], x[1]),
                             flatten_pytree(grad(u_net)(params, t[1], x[1])), rtol=1e-5))
