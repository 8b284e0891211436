# source: https://github.com/RobertTLange/evosax/issues/61
# observed on jax 0.10.2 CPU: runs clean; each epoch of the generator draws fresh noise (every
#   epoch's value differs), its keys split before every use.
# gap: other
# The reporter's proposed `optimize` helper and usage example, kept as posted. evosax is not installed
# here: `evosax.OpenES` is replaced by a small stand-in class with the same interface the code uses
# (popsize, initialize(rng, init_mean=...), ask, tell, param_reshaper.reshape_single); its update is
# plain antithetic-free OpenES with SGD instead of Adam. The stored thread cuts `main` after the
# strategy is built: the loop over the generator (a few steps) and the __main__ block are added.
from typing import NamedTuple

import jax
import jax.numpy as jnp


class _State(NamedTuple):
    mean: jax.Array
    sigma: jax.Array


class _Reshaper:
    def reshape_single(self, flat):
        return flat


class _OpenES:
    # stand-in for evosax.OpenES (old API)
    def __init__(self, popsize, pholder_params, opt_name, lrate_init, sigma_init):
        self.popsize = popsize
        self.num_dims = pholder_params.size
        self.lrate = lrate_init
        self.sigma_init = sigma_init
        self.param_reshaper = _Reshaper()

    def initialize(self, rng, init_mean):
        return _State(mean=jnp.asarray(init_mean, jnp.float32), sigma=jnp.float32(self.sigma_init))

    def ask(self, rng, state):
        z = jax.random.normal(rng, (self.popsize, self.num_dims))
        return state.mean + state.sigma * z, state

    def tell(self, x, y, state):
        z = (x - state.mean) / state.sigma
        y = (y - y.mean()) / (y.std() + 1e-8)
        grad = (z * y[:, None]).mean(axis=0) / state.sigma
        return state._replace(mean=state.mean - self.lrate * grad)


class evosax:  # namespace stand-in so the user's `evosax.OpenES(...)` reads unchanged
    OpenES = _OpenES


def optimize(f, x, rng, strat, steps_per_output=1):
    def es_step(state, rng):
        rngs = jax.random.split(rng, 1 + strat.popsize)
        x, state = strat.ask(rngs[0], state)
        y = jax.vmap(f)(x, rngs[1:])
        state = strat.tell(x, y, state)
        return state, y.mean()

    @jax.jit
    def es_epoch(state, rng):
        rngs = jax.random.split(rng, steps_per_output)
        state, y = jax.lax.scan(es_step, state, rngs)
        return state, y.mean()

    @jax.jit
    def output_fn(state):
        return strat.param_reshaper.reshape_single(state.mean)

    rng, subrng = jax.random.split(rng)
    state = strat.initialize(subrng, init_mean=x)
    while True:
        rng, subrng = jax.random.split(rng)
        state, y = es_epoch(state, subrng)
        yield output_fn(state), y

def f(x, rng):
    return x @ x + jax.random.normal(rng) * 0.1

def main():
    x = jax.numpy.ones(2)
    rng = jax.random.PRNGKey(0)
    strat = evosax.OpenES(
        popsize=10,
        pholder_params=x,
        opt_name="adam",
        lrate_init=1e-4,
        sigma_init=1e-1,
    )
    ys = []
    for step, (params, y) in zip(range(5), optimize(f, x, rng, strat, steps_per_output=4)):
        ys.append(float(y))
    return params, ys


if __name__ == "__main__":
    params, ys = main()
    assert len(set(ys)) == len(ys), ys  # every epoch draws fresh noise
    print(params, ys)
