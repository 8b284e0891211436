# source: https://github.com/wchen99998/local_sampler/commit/ab9033face922c066d73eedbb3ae5fa794e1a2f0
#   (the importance and random-pair samplers of a segment-flow-matching sampler as fixed by
#   "Fix random pair sampler to use a separate key for importance sampling":
#   locally_tilted_sampler/segment_flow_matching.py at that commit)
# observed on jax 0.10.2 CPU: the random-pair sampler splits `key` into `key, is_key`,
#   gives `is_key` to the importance sampler (jax.random.choice) and draws the parents from
#   `key`; it runs under nnx.jit, and with jax_debug_key_reuse and a typed key no key is
#   reused, neither under jax.disable_jit nor under nnx.jit.
# gap: other
# added: the imports; two diagonal Gaussian log densities as the target and the prior;
#   the __main__ block.
from typing import Callable, Tuple

import flax.nnx as nnx
import jax
import jax.numpy as jnp

Array = jnp.ndarray


def make_importance_sampler(
    target_log_prob: Callable[[Array], Array],
    prior_log_prob: Callable[[Array], Array],
):
    @nnx.jit(static_argnums=2)
    def _fn(key: jax.Array, xbatch: Array, delta_t: float) -> Tuple[Array, Array]:
        log_prob_diff = target_log_prob(xbatch) - prior_log_prob(xbatch)
        weights = jax.nn.softmax(delta_t * log_prob_diff)
        indices = jax.random.choice(key, xbatch.shape[0], shape=(xbatch.shape[0],), p=weights)
        return xbatch[indices], indices

    return _fn


def make_random_pair_sampler(
    importance_sampler: Callable[[jax.Array, Array, float], Tuple[Array, Array]]
):
    @nnx.jit(static_argnums=2)
    def _fn(key: jax.Array, xbatch: Array, delta_t: float) -> Tuple[Array, Array]:
        """Return (child, parent) pairs where parents are sampled uniformly (no ancestry)."""
        key, is_key = jax.random.split(key)
        x_is, _ = importance_sampler(is_key, xbatch, delta_t)
        parent_idx = jax.random.randint(key, (xbatch.shape[0],), 0, xbatch.shape[0])
        return x_is, parent_idx

    return _fn


def target_log_prob(x):
    # stand-in for the target density's log_prob
    return -0.5 * jnp.sum((x - 2.0) ** 2, axis=-1)


def prior_log_prob(x):
    # stand-in for the prior density's log_prob
    return -0.5 * jnp.sum(x ** 2, axis=-1) / 1.5 ** 2


if __name__ == "__main__":
    importance_sampler = make_importance_sampler(target_log_prob, prior_log_prob)
    pair_sampler = make_random_pair_sampler(importance_sampler)
    key, sub = jax.random.split(jax.random.PRNGKey(0))
    xbatch = jax.random.normal(key, (256, 2)) * 1.5
    children, parents = pair_sampler(sub, xbatch, 0.25)
    assert children.shape == (256, 2) and parents.shape == (256,)  # runs silently

    jax.config.update("jax_debug_key_reuse", True)
    with jax.disable_jit():
        pair_sampler(jax.random.key(1), xbatch, 0.5)
    children, parents = pair_sampler(jax.random.key(2), xbatch, 0.5)
    assert parents.shape == (256,)
