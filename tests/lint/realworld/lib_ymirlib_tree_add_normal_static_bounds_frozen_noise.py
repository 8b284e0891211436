# source: https://github.com/codymlewis/ymir/blob/72993e42c86cdb62b995493dab259d5d4de97fde/ymirlib/ymirlib/__init__.py
#   (ymirlib, the tree utilities of ymir, a JAX federated-learning framework, after commit
#   72993e4 "Fixed ymir lib non-static args bug" made low/high and loc/scale static; the
#   free-rider adversary calls tree_uniform(params, low=-10e-3, high=10e-3) every round and
#   the bad-mouther one calls tree_add_normal(grad, loc=0.0, scale=10e-4) once per adversary)
# observed on jax 0.10.2 CPU: the functions now run, but np.random runs only while jit
#   traces them: its draw is baked into the compiled program as a constant, so every round
#   the free riders send the same "random" update, and every bad-mouther adds the same noise
#   to the victim's gradient.
# gap: other
# added: jax.tree_map and jax.tree_multimap (removed from JAX) spelled
#   jax.tree_util.tree_map; the __main__ block, with a small parameter pytree, calling the
#   functions as ymir/scout/adversaries/__init__.py does.
from functools import partial

import jax
import numpy as np

"""
General utility library for ymir
"""


@partial(jax.jit, static_argnums=(1, 2,))
def tree_uniform(tree, low=0.0, high=1.0):
    """Create an equivalently shaped tree with random number elements in the range [low, high)"""
    return jax.tree_util.tree_map(lambda x: np.random.uniform(low=low, high=high, size=x.shape), tree)  # expect: JIT204


@partial(jax.jit, static_argnums=(1, 2,))
def tree_add_normal(tree, loc=0.0, scale=1.0):
    """Add normally distributed noise to each element of the tree, (mu=loc, sigma=scale)"""
    return jax.tree_util.tree_map(lambda x: x + np.random.normal(loc=loc, scale=scale, size=x.shape), tree)  # expect: JIT204


@jax.jit
def tree_mul(tree, scale):
    """Multiply the elements of a pytree by the value of scale"""
    return jax.tree_util.tree_map(lambda x: x * scale, tree)


@jax.jit
def tree_add(*trees):
    """Element-wise add any number of pytrees"""
    return jax.tree_util.tree_map(lambda *xs: sum(xs), *trees)


if __name__ == "__main__":
    import jax.numpy as jnp

    params = {"w": jnp.ones((3, 2)), "b": jnp.zeros(2)}
    grad = {"w": jnp.full((3, 2), 0.25), "b": jnp.ones(2)}

    # free-rider controller, "random" attack, over three rounds
    rounds = [tree_uniform(params, low=-10e-3, high=10e-3) for _ in range(3)]  # tolerate: JIT204
    # observed: line 27 gives the same uniform draw in every round
    assert all(bool(jnp.all(r["w"] == rounds[0]["w"])) for r in rounds[1:])
    assert not bool(jnp.all(rounds[0]["w"] == rounds[0]["w"][0, 0]))

    # bad-mouther controller: one noisy copy of the victim's (negated) gradient per adversary
    grad = tree_mul(grad, -1)
    all_grads = [tree_add_normal(grad, loc=0.0, scale=10e-4) for _ in range(4)]  # tolerate: JIT204
    # observed: line 33 adds the same noise for every adversary
    assert all(bool(jnp.all(g["w"] == all_grads[0]["w"])) for g in all_grads[1:])
    assert not bool(jnp.all(all_grads[0]["w"] == grad["w"]))
