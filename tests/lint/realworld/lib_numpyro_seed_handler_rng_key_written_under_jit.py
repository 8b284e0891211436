# source: https://github.com/pyro-ppl/numpyro/blob/f7746d5afa3af1d4f8d0a3ed071cf13d357080f4/numpyro/handlers.py
#   (the `seed` handler before https://github.com/pyro-ppl/numpyro/pull/1983, "Make seed
#   handler stateless by default", whose test jits `handlers.seed(model, random.PRNGKey(1))`;
#   the docstring itself warns that jitting an instance "might create tracer-leaks")
# observed on jax 0.10.2 CPU with numpyro 0.22.0: `jax.jit(seeded)` traces
#   `seeded.__call__`, and `process_message` stores the split key, a tracer, on the handler
#   object, which lives outside the trace: after the jitted call `seeded.rng_key` is a leaked
#   tracer, and calling `seeded()` again eagerly raises UnexpectedTracerError in
#   `random.split`. The seed class is kept as it was (docstring shortened, the rng_seed type
#   check kept); `Messenger`, `is_prng_key` and the model are taken from numpyro 0.22, and the
#   __main__ block is added.
# gap: stale-state-attributes
from typing import Callable, Optional

import jax
import jax.numpy as jnp
import numpy as np
from jax import random

import numpyro
import numpyro.distributions as dist
from numpyro.primitives import Messenger
from numpyro.util import is_prng_key


class seed(Messenger):
    """
    JAX uses a functional pseudo random number generator that requires passing
    in a seed :func:`~jax.random.PRNGKey` to every stochastic function. The
    `seed` handler allows us to initially seed a stochastic function with a
    :func:`~jax.random.PRNGKey`. Every call to the :func:`~numpyro.handlers.sample`
    primitive inside the function results in a splitting of this initial seed
    so that we use a fresh seed for each subsequent call without having to
    explicitly pass in a `PRNGKey` to each `sample` call.

    .. note::

       The seed handler has a mutable attribute `rng_key` which keeps changing after
       each `sample` call. Hence an instance of this class (e.g. `seed(model, rng_seed=0)`)
       might create tracer-leaks when jitted. A solution is to close the instance in a
       function, e.g., `seeded_model = lambda *args: seed(model, rng_seed=0)(*args)`.
       This `seeded_model` can be jitted.
    """

    def __init__(
        self,
        fn: Optional[Callable] = None,
        rng_seed=None,
        hide_types: Optional[list] = None,
    ) -> None:
        if rng_seed is not None:
            if not is_prng_key(rng_seed) and (
                isinstance(rng_seed, int)
                or (
                    isinstance(rng_seed, (np.ndarray, jnp.ndarray))
                    and not jnp.shape(rng_seed)
                )
            ):
                rng_seed = random.PRNGKey(rng_seed)
            if not is_prng_key(rng_seed):
                raise TypeError(
                    "Incorrect type for rng_seed: {}".format(type(rng_seed))
                )
        self.rng_key = rng_seed
        self.hide_types = [] if hide_types is None else hide_types
        super(seed, self).__init__(fn)

    def process_message(self, msg) -> None:
        if msg["type"] in self.hide_types:
            return
        if msg["type"] not in ["sample", "prng_key", "plate", "control_flow"]:
            return
        if (msg["kwargs"]["rng_key"] is not None) or (msg["value"] is not None):
            # no need to create a new key when value is available
            return
        if self.rng_key is not None:
            self.rng_key, rng_key_sample = random.split(self.rng_key)  # expect: JIT202
            msg["kwargs"]["rng_key"] = rng_key_sample


def model():
    return numpyro.sample("z", dist.Normal(0.0, 1.0))


if __name__ == "__main__":
    seeded = seed(model, random.PRNGKey(1))
    jax.jit(seeded)()
    # observed: line 77 leaves a tracer on the handler object after the jitted call
    assert isinstance(seeded.rng_key, jax.core.Tracer)
    try:
        seeded()  # tolerate: JIT202
        raise AssertionError("the eager call after jit should fail")
    except jax.errors.UnexpectedTracerError:
        pass
