# source: https://github.com/ahmadsalim/numpyro/blob/07846612a370ebde6d24ded602e279d2415952a5/numpyro/contrib/hmcecs.py (HMC-ECS contrib code; the reporter's question about the first error is https://github.com/jax-ml/jax/issues/5013)
# observed on jax 0.10.2 CPU: see the per-line observed comments; each bug raises when the jitted _update_block_poisson is traced
# gap: other
# observed: line 29 TypeError "Shapes must be 1D sequences of concrete values of integer type" (jnp.sum of sampled block lengths used as a shape under jit)
# observed: line 30 ConcretizationTypeError in jnp.split (traced jnp.cumsum split points)
# observed: line 52 TracerIntegerConversionError (Python list u indexed by a traced block id from random.randint)
# added: imports (the file imported `partial` from jax, now functools.partial), __main__ harness. The harness stubs
# jax.random.randint / jnp.split one at a time only to get past an earlier raising line and reach the next one.
from functools import partial

import jax
import jax.numpy as jnp
from jax import jit, random
import numpyro.distributions as dist


def _sample_u_poisson(rng_key, m, l):
    """ Initialize subsamples u
    ***References***
    1. Hamiltonian Monte Carlo with Energy Conserving Subsampling
    2. The blockPoisson estimator for optimally tuned exact subsampling MCMC.
    :param m: subsample size
    :param l: lambda u blocks
    :param g: number of blocks
    """
    pois_key, sub_key = random.split(rng_key)
    block_lengths = dist.discrete.Poisson(1).sample(pois_key, (l,)) #lambda block lengths
    #u = random.randint(sub_key, (jnp.sum(block_lengths), ), 0, m)
    u = random.randint(sub_key, (jnp.sum(block_lengths), m), 0, m)  # expect: JIT404
    return jnp.split(u, jnp.cumsum(block_lengths), axis=0)  # expect: JIT404

@partial(jit, static_argnums=(2, 3, 4))
def _update_block_poisson(rng_key, u, m, l, g):
    """ Update block of u, where the length of the block of indexes to update is given by the Poisson distribution.
    ***References***
    1. Hamiltonian Monte Carlo with Energy Conserving Subsampling
    2.T he blockPoisson estimator for optimally tuned exact subsampling MCMC.
    :param rng_key
    :param u: current subsample indexes
    :param m: Subsample size
    :param l: lambda
    :param g: Block size within subsample
    """
    if (g > m) or (g < 1):
        raise ValueError('Block size (g) = {} needs to = or > than 1 and smaller than the subsample size {}'.format(g,m))
    u = u.copy()
    block_key, sample_key = random.split(rng_key)
    num_updates = int(round(l / g, 0)) # choose lambda/g number of blocks to update
    chosen_blocks = random.randint(block_key, (num_updates,), 0, l)
    new_blocks = _sample_u_poisson(sample_key, m, num_updates)
    for i, block in enumerate(chosen_blocks):
        u[block] = new_blocks[i]  # expect: JIT401
    return u


def _raising_line(fn):
    import traceback
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__]
        return type(e).__name__, frames[-1].lineno
    return None


if __name__ == "__main__":
    m, l, g = 4, 4, 2
    key = random.PRNGKey(0)
    u = _sample_u_poisson(random.PRNGKey(1), m, l)  # eager: works, a list of blocks
    assert isinstance(u, list)

    # 1) the block-length sum is traced, used as a shape
    r = _raising_line(lambda: _update_block_poisson(key, u, m, l, g))
    print("randint:", r)
    assert r == ("TypeError", 29), r

    # 2) stub randint with a fixed shape to reach jnp.split with traced split points
    orig_randint = jax.random.randint
    jax.random.randint = lambda k, shape, lo, hi: orig_randint(k, (l, shape[-1]) if len(shape) == 2 else shape, lo, hi)
    r = _raising_line(lambda: _update_block_poisson(key, u, m, l, g))
    print("split:", r)
    assert r == ("ConcretizationTypeError", 30), r

    # 3) also stub jnp.split to reach the list assignment indexed by a traced block id
    orig_split = jnp.split
    jnp.split = lambda a, idx, axis=0: orig_split(a, a.shape[0], axis=axis)
    r = _raising_line(lambda: _update_block_poisson(key, u, m, l, g))
    print("u[block]:", r)
    assert r == ("TracerIntegerConversionError", 52), r
    jax.random.randint, jnp.split = orig_randint, orig_split
