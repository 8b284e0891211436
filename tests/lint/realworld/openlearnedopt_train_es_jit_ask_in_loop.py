# source: https://github.com/AlexGoldie/rl-learned-optimization/blob/0e847c55a3d0230b0bb713c16b25e82774d40bf0/rl_optimizer/train.py
# observed on jax 0.10.2 CPU: see the observed lines; every generation wraps the bound methods strategy.ask / strategy.tell in a fresh jax.jit, so each generation pays a new backend compile for ask and for tell
# gap: per-call-recompile
# observed: line 134 jax.jit(strategy.ask) builds a fresh jitted wrapper each generation: one new backend compile per generation (12 compiles for 5 generations vs 6 for 2)
# observed: line 171 jax.jit(strategy.tell) likewise recompiles every generation
# (the generation loop from the script's __main__ block is moved into train_es(); argparse, wandb logging, plotting, saving and the gridworld-only antithetic branches are omitted)
# (stand-ins: OpenES / ParameterReshaper / FitnessShaper are minimal versions of the evosax 0.1.x classes, whose ask/tell are @partial(jax.jit, static_argnums=(0,)) methods; make_train returns a toy quadratic "PPO" run instead of the learned-optimizer PPO training)
from functools import partial

import jax
import jax.numpy as jnp
from flax import struct


@struct.dataclass
class OptState:
    lrate: float


@struct.dataclass
class EvoState:
    mean: jnp.ndarray
    sigma: float
    opt_state: OptState


class OpenES:
    def __init__(self, popsize, num_dims, opt_name="adam", lrate_init=0.03,
                 sigma_init=0.03, sigma_decay=0.99, lrate_decay=0.99):
        self.popsize = popsize
        self.num_dims = num_dims
        self.lrate_init = lrate_init
        self.sigma_init = sigma_init
        self.sigma_decay = sigma_decay
        self.lrate_decay = lrate_decay

    @property
    def default_params(self):
        return {"clip_min": -1e6, "clip_max": 1e6}

    @partial(jax.jit, static_argnums=(0,))
    def initialize(self, rng, params):
        return EvoState(mean=jnp.zeros(self.num_dims), sigma=self.sigma_init,
                        opt_state=OptState(lrate=self.lrate_init))

    @partial(jax.jit, static_argnums=(0,))
    def ask(self, rng, state, params):
        z = jax.random.normal(rng, (self.popsize // 2, self.num_dims))
        z = jnp.concatenate([z, -z])
        x = state.mean + state.sigma * z
        return jnp.clip(x, params["clip_min"], params["clip_max"]), state

    @partial(jax.jit, static_argnums=(0,))
    def tell(self, x, fitness, state, params):
        noise = (x - state.mean) / state.sigma
        grad = 1.0 / (self.popsize * state.sigma) * jnp.dot(noise.T, fitness)
        return state.replace(
            mean=state.mean - state.opt_state.lrate * grad,
            sigma=state.sigma * self.sigma_decay,
            opt_state=OptState(lrate=state.opt_state.lrate * self.lrate_decay),
        )


class ParameterReshaper:
    def __init__(self, params):
        self.total_params = params["w"].shape[0]
        self.vmap_dict = {"w": 0}

    def reshape(self, x):
        return {"w": x}


class FitnessShaper:
    def __init__(self, centered_rank=True, z_score=False, w_decay=0.0, maximize=True):
        self.maximize = maximize

    def apply(self, x, fitness):
        fitness = -fitness if self.maximize else fitness
        ranks = jnp.argsort(jnp.argsort(fitness))
        return ranks / (fitness.shape[0] - 1) - 0.5


def make_train(config):
    target = jnp.arange(config["DIM"], dtype=jnp.float32)

    def train(meta_params, rng):
        noise = 0.01 * jax.random.normal(rng, (config["NUM_UPDATES"],))
        returns = -jnp.sum((meta_params["w"] - target) ** 2) + noise
        return meta_params, {"returned_episode_returns": returns}

    return train


def train_es(all_configs, envs, popsize=8, num_generations=4, num_rollouts=1):
    params = {"w": jnp.zeros(all_configs[envs[0]]["DIM"])}
    param_reshaper = ParameterReshaper(params)

    def make_rollout(train_fn):
        def single_rollout(rng_input, meta_params):
            params, metrics = train_fn(meta_params, rng_input)

            fitness = metrics["returned_episode_returns"][-1]
            return (fitness, metrics["returned_episode_returns"][-1])

        vmap_rollout = jax.vmap(single_rollout, in_axes=(0, None))
        rollout = jax.jit(jax.vmap(vmap_rollout, in_axes=(0, param_reshaper.vmap_dict)))

        return rollout

    rollouts = {k: make_rollout(make_train(v)) for k, v in all_configs.items()}

    rng = jax.random.PRNGKey(42)
    strategy = OpenES(
        popsize=popsize,
        num_dims=param_reshaper.total_params,
        opt_name="adam",
        lrate_init=0.03,
        sigma_init=0.03,
        sigma_decay=0.99,
        lrate_decay=0.99,
    )
    es_params = strategy.default_params

    fit_shaper = FitnessShaper(
        centered_rank=True, z_score=False, w_decay=0.0, maximize=True
    )

    state = strategy.initialize(rng, es_params)

    fit_history = []
    for gen in range(num_generations):

        rng, rng_ask, rng_eval = jax.random.split(rng, 3)
        x, state = jax.jit(strategy.ask)(rng_ask, state, es_params)  # expect: JIT301

        reshaped_params = param_reshaper.reshape(x)
        fit_info = {}

        fit_info[f"meta learning rate"] = state.opt_state.lrate
        fit_info[f"meta noise sigma"] = state.sigma

        all_fitness = []

        for env in envs:

            rng, rng_eval = jax.random.split(rng)

            rollout = rollouts[env]

            batch_rng = jax.random.split(rng_eval, num_rollouts)
            batch_rng = jnp.tile(batch_rng, (popsize, 1, 1))

            batch_rng = jnp.reshape(batch_rng, (-1, num_rollouts, 2))
            fitness, unreg_fitness = rollout(batch_rng, reshaped_params)
            fitness = fitness.mean(axis=1)
            unreg_fitness = unreg_fitness.mean(axis=1)

            fitness = jnp.nan_to_num(fitness, nan=-100000)
            fit_history.append(fitness.mean())

            fit_norm = fitness / all_configs[env]["PPO_TEMP"]

            all_fitness.append(fit_norm)

        fitnesses = jnp.stack(all_fitness, axis=0)

        fitnesses_mean = jnp.mean(fitnesses, axis=0)

        fitness_rerank = fit_shaper.apply(x, fitnesses_mean)

        state = jax.jit(strategy.tell)(x, fitness_rerank, state, es_params)  # expect: JIT301

    return state, fit_history


if __name__ == "__main__":
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, duration, **kw: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    configs = {"toy": {"DIM": 3, "NUM_UPDATES": 2, "PPO_TEMP": 1.0}}
    # warm-up run with 1 generation, then count compiles for 2 vs 5 generations
    train_es(configs, ["toy"], num_generations=1)
    n0 = len(compiles)
    train_es(configs, ["toy"], num_generations=2)
    n2 = len(compiles) - n0
    n1 = len(compiles)
    state, hist = train_es(configs, ["toy"], num_generations=5)
    n5 = len(compiles) - n1
    print("backend compiles for 2 generations:", n2, "for 5 generations:", n5)
    # two fresh jax.jit wrappers (ask, tell) per generation -> 2 extra compiles per extra generation
    assert n5 - n2 == 2 * 3, (n2, n5)
    print("final mean", state.mean)
