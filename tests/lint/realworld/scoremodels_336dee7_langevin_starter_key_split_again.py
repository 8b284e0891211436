# source: https://github.com/ericmjl/score-models/blob/336dee7129b54b920c4a3bdcb690c62aad58b000/score_models/sampler.py
# observed on jax 0.10.2 CPU: langevin_dynamics draws the chains' starting points from `key` and then splits the same
#   `key` into the chains' keys: chain i's key is (w0, w1) = threefry(key, i) and its starting point is drawn from the
#   bits w0 ^ w1 of the same counter, so every starting point is a function of its own chain's key (checked for all
#   chains), and JAX's key-reuse checker raises KeyReuseError at the split
# gap: other
# observed: line 76 keys = random.split(key, ...) splits the key the starter_xs draw already consumed: each chain's key words XOR to the exact random bits of its starting point; with jax_debug_key_reuse the call raises KeyReuseError at this line
# (kept: the module as written. Added: the __main__ block, with the score of a standard normal as score_func.)
"""Langevin dynamics samplers."""
from typing import Callable

from jax import lax
from jax import numpy as np
from jax import random, vmap


def langevin_dynamics(
    n_chains: int,
    n_samples: int,
    key: random.PRNGKey,
    epsilon: float,
    score_func: Callable,
    params: tuple,
    init_scale: float,
):
    """MCMC with Langevin dynamics to sample from the data generating distribution.

    :param n_chains: Number of chains to run for sampling.
    :param n_samples: Number of samples to generate from each chain.
    :param key: JAX PRNGKey.
    :param epsilon: A small number.
        A sane default probably is on the order of
        1/1000th of the magnitude of the data.
    :param score_func: Callable that gives the score function of the data.
        Can be, for example, a neural network function.
    :param params: Parameters to the score function.
        Can be, for example, parameters to a neural network function.
    :param init_scale: Scale parameter for the Gaussian
        from which chains are initialized.
    :returns: An array of samples of shape (n_chains, n_samples).
    """

    def langevin_dynamics_one_chain(
        x: float,
        key: random.PRNGKey,
    ):
        """One chain of Langevin dynamics sampling.

        Used for sampling from the data generating distribution.

        :param x: One sample from the data generating distribution.
        :param key: JAX PRNGKey.
        :returns: Samples from one chain of Langevin dynamics sampling.
        """

        def inner(prev_x, key):
            """Scannable closure for one step of Langevin dynamics sampling.

            :param prev_x: The previously sampled value.
            :param key: JAX PRNGKey.
            :returns: A tuple of a (new_draw, prev_draw) from the sampler.
            """
            draw = random.normal(key, shape=(1,))
            new_x = (
                prev_x
                + epsilon * score_func(params, prev_x)
                + np.sqrt(2 * epsilon) * draw
            )
            return new_x, prev_x

        keys = random.split(key, n_samples)
        _, xs = lax.scan(inner, init=x, xs=keys)
        return np.concatenate(xs)

    starter_xs = random.normal(key, shape=(n_chains,)).reshape(-1, 1) * init_scale
    keys = random.split(key, num=n_chains)  # expect: JIT502
    samples = vmap(langevin_dynamics_one_chain)(starter_xs, keys)
    return samples


if __name__ == "__main__":
    import traceback

    import jax
    import numpy as onp

    def score_func(params, x):  # score of N(mu, 1)
        return -(x - params[0])

    key = random.PRNGKey(42)
    n_chains, init_scale = 16, 3.0
    samples = langevin_dynamics(n_chains, 200, key, 1e-2, score_func, (0.0,), init_scale)
    assert samples.shape == (n_chains, 200)
    starts = onp.asarray(samples[:, 0])  # the first stored draw of each chain is its starting point

    # the chains' keys, as langevin_dynamics makes them from `key`, and the random bits the starting points come from
    chain_keys = onp.asarray(random.split(key, num=n_chains))  # tolerate: JIT502
    start_bits = onp.asarray(random.bits(key, (n_chains,)))  # tolerate: JIT502
    assert (chain_keys[:, 0] ^ chain_keys[:, 1] == start_bits).all()
    assert onp.allclose(starts, onp.asarray(random.normal(key, (n_chains,))) * init_scale, atol=1e-5)  # tolerate: JIT502
    print("line 76: each chain's key words XOR to the random bits of its own starting point")

    jax.config.update("jax_debug_key_reuse", True)
    try:
        langevin_dynamics(n_chains, 200, random.key(42), 1e-2, score_func, (0.0,), init_scale)
    except jax.errors.KeyReuseError as err:
        lines = [f.lineno for f in traceback.extract_tb(err.__traceback__) if f.filename == __file__]
        print("KeyReuseError, innermost line in this file:", lines[-1], "-", str(err).splitlines()[0])
        assert lines[-1] == 76, lines
    else:
        raise SystemExit("expected a KeyReuseError")
