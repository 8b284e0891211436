# source: https://github.com/ucl-dark/pax/blob/a284dc1c5608a2d2a85625e084b4b4d2cf45141b/pax/runner_sp.py
#   (EvoRunnerPMAPSP.run_loop before commit 0de3f38 "split evo seed before ask", which
#   splits rng_evo into rng_evo1 and rng_evo2 for the two asks)
# observed on jax 0.10.2 CPU: both strategies are initialised from one rng (the same
#   starting mean), the two self-play populations are asked with one rng_evo, so in
#   generation 0 they are the same population, and `rng` is
#   never rebound in the generation loop, so every generation splits the same rng_evo
#   and rng_devices again: generation 1 perturbs with the noise of generation 0. Kept as
#   written: the evolution part of run_loop (the RNG and evolution setup, the pmap of the
#   rollout, and the generation loop's split, asks, reshape, rollout, fitness shaping and
#   tells); the wandb printing, agent initialisation, ESLog logging and checkpointing
#   are left out. Stand-ins (evosax is not installed): an OpenES-style strategy
#   (initialize/ask/tell), FitnessShaper(maximize=True) as centred ranks, a ParamReshaper
#   that splits the flat vector into one weight matrix, and _evo_rollout as a noisy
#   matrix game between the two populations; the runner keeps only the attributes the
#   loop reads. The loop records what ask drew (added lines marked). Both tells use x,
#   player 1's population, as the source does; that is not a jit bug and is not labelled.
# gap: other
from typing import NamedTuple

import jax
import jax.numpy as jnp


class EvoState(NamedTuple):
    mean: jnp.ndarray
    sigma: jnp.ndarray


class OpenESStandIn:
    # stand-in for evosax's OpenES: Gaussian perturbations of a mean
    def __init__(self, popsize, num_dims):
        self.popsize, self.num_dims = popsize, num_dims

    def initialize(self, rng, es_params):
        return EvoState(jax.random.uniform(rng, (self.num_dims,), minval=-0.1, maxval=0.1),
                        jnp.array(es_params["sigma_init"]))

    def ask(self, rng, state, es_params):
        eps = jax.random.normal(rng, (self.popsize, self.num_dims))
        return state.mean + state.sigma * eps, state

    def tell(self, x, fitness, state, es_params):
        noise = (x - state.mean) / state.sigma
        grad = -(noise * fitness[:, None]).mean(0) / state.sigma
        return EvoState(state.mean - es_params["lrate"] * grad, state.sigma)


class FitnessShaper:
    # stand-in for evosax's FitnessShaper(maximize=True): centred ranks
    def __init__(self, maximize=True):
        self.maximize = maximize

    def apply(self, x, fitness):
        f = fitness if self.maximize else -fitness
        ranks = jnp.argsort(jnp.argsort(-f))
        return -(ranks / (f.shape[0] - 1) - 0.5)


class ParamReshaperStandIn:
    def __init__(self, shape):
        self.shape = shape
        self.total_params = shape[0] * shape[1]

    def reshape(self, x):
        return {"w": x.reshape(x.shape[0], *self.shape)}


def make_evo_rollout(popsize):
    # stand-in for the _evo_rollout run_loop defines: a noisy 2x2 game per member
    def _evo_rollout(params1, params2, rng_device):
        noise = jax.random.normal(rng_device, (popsize,))
        p1 = jax.nn.softmax(params1["w"].sum(-1))
        p2 = jax.nn.softmax(params2["w"].sum(-1))
        payoff = jnp.array([[3.0, 0.0], [5.0, 1.0]])
        fitness = jnp.einsum("pi,ij,pj->p", p1, payoff, p2) + 0.1 * noise
        other = jnp.einsum("pi,ji,pj->p", p1, payoff, p2)
        return fitness, other, {"noise": noise}, fitness, other
    return _evo_rollout


class EvoRunnerPMAPSP:
    def __init__(self, popsize, num_dims):
        self.random_key = jax.random.PRNGKey(0)
        self.num_devices = 1
        self.strategy = OpenESStandIn(popsize, num_dims)
        self.es_params = {"sigma_init": 0.04, "lrate": 0.1}
        self.param_reshaper1 = ParamReshaperStandIn((2, num_dims // 2))
        self.param_reshaper2 = ParamReshaperStandIn((2, num_dims // 2))
        self.popsize = popsize
        self.num_opps = 1
        self._evo_rollout = make_evo_rollout(popsize)
        self.asked = []  # added: what each generation's asks drew

    def run_loop(self, num_generations):
        _evo_rollout = self._evo_rollout
        # Initialize agents and RNG
        rng, _ = jax.random.split(self.random_key)

        # Initialize evolution
        num_devices = self.num_devices
        num_gens = num_generations
        strategy = self.strategy
        es_params = self.es_params
        param_reshaper1 = self.param_reshaper1
        param_reshaper2 = self.param_reshaper2
        popsize = self.popsize
        num_opps = self.num_opps
        evo_state1 = strategy.initialize(rng, es_params)
        evo_state2 = strategy.initialize(rng, es_params)  # expect: JIT502
        self.initial = (evo_state1, evo_state2)  # added
        fit_shaper = FitnessShaper(maximize=True)

        evo_rollout = jax.pmap(_evo_rollout)

        for gen in range(num_gens):
            # run generation step
            rng_evo, rng_devices = jax.random.split(rng, 2)  # expect: JIT502
            rng_devices = jnp.tile(rng_devices, num_devices).reshape(
                num_devices, -1
            )
            # Ask for params
            x, evo_state1 = strategy.ask(
                rng_evo, evo_state1, es_params
            )  # this means that x isn't of shape (total_popsize, params)
            a1_params = param_reshaper1.reshape(x)

            y, evo_state2 = strategy.ask(  # expect: JIT502
                rng_evo, evo_state2, es_params
            )  # this means that x isn't of shape (total_popsize, params)
            a2_params = param_reshaper2.reshape(y)
            self.asked.append((rng_evo, x, y, evo_state1.mean))  # added
            if self.num_devices == 1:
                # reshape x into (num_devices, popsize, ....)
                a1_params = jax.tree_util.tree_map(
                    lambda x: jax.lax.expand_dims(x, (0,)), a1_params
                )

                a2_params = jax.tree_util.tree_map(
                    lambda x: jax.lax.expand_dims(x, (0,)), a2_params
                )
            (
                fitness,
                other_fitness,
                env_stats,
                rewards_0,
                rewards_1,
            ) = evo_rollout(a1_params, a2_params, rng_devices)
            fitness = jnp.reshape(fitness, popsize * num_devices)
            fitness_re = fit_shaper.apply(x, fitness)  # Maximize fitness
            env_stats = jax.tree_util.tree_map(lambda x: x.mean(), env_stats)

            # Tell
            evo_state1 = strategy.tell(
                x, fitness_re - fitness_re.mean(), evo_state1, es_params
            )

            evo_state2 = strategy.tell(
                x, fitness_re - fitness_re.mean(), evo_state2, es_params
            )
        return evo_state1, evo_state2


if __name__ == "__main__":
    runner = EvoRunnerPMAPSP(popsize=8, num_dims=4)
    runner.run_loop(num_generations=2)
    (key0, x0, y0, mean0), (key1, x1, y1, mean1) = runner.asked
    # observed: line 110 initialises player 2's strategy from the key player 1's used:
    # both start from the same mean
    assert bool(jnp.array_equal(runner.initial[0].mean, runner.initial[1].mean))
    # observed: line 118 splits the same rng in every generation: generation 1 gets
    # generation 0's rng_evo, and its population is the old mean plus the old noise
    assert bool(jnp.array_equal(key0, key1))
    assert not bool(jnp.allclose(mean0, mean1))
    assert bool(jnp.allclose((x1 - mean1) / 0.04, (x0 - mean0) / 0.04, atol=1e-4))
    # observed: line 128 asks player 2's strategy with the key player 1's ask used: in
    # generation 0 both populations are the same
    assert bool(jnp.array_equal(x0, y0))
