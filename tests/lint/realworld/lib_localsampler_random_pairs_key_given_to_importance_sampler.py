# source: https://github.com/wchen99998/local_sampler/blob/dd5d0de6d6ac59fc8a143760bf669c585d982ac7/locally_tilted_sampler/segment_flow_matching.py
#   (the importance and random-pair samplers of a segment-flow-matching sampler, before
#   commit ab9033f, "Fix random pair sampler to use a separate key for importance
#   sampling")
# observed on jax 0.10.2 CPU: the random-pair sampler hands `key` to the importance
#   sampler, which draws the resampling indices from it with jax.random.choice, and then
#   draws the parent indices from the same `key` with jax.random.randint. It runs silently
#   under nnx.jit; with jax_debug_key_reuse and a typed key, running it under
#   jax.disable_jit raises KeyReuseError "Previously-consumed key passed to random_split"
#   at the randint line (randint splits the key it is given).
# gap: other
# added: the imports; two diagonal Gaussian log densities as the target and the prior;
#   the __main__ block.
import traceback
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
        x_is, _ = importance_sampler(key, xbatch, delta_t)
        parent_idx = jax.random.randint(key, (xbatch.shape[0],), 0, xbatch.shape[0])  # expect: JIT502
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
    try:
        with jax.disable_jit():
            pair_sampler(jax.random.key(1), xbatch, 0.5)
        raise AssertionError("no key reuse reported")
    except jax.errors.KeyReuseError as e:
        line = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__][-1].lineno
        # observed: line 45 draws the parents from the key the importance sampler consumed
        assert line == 45, line
