# source: https://github.com/FLAIROx/behaviour-distillation/blob/d73b5936d782d5f60c455154d9a0836fabc74ee9/policy_distillation/distill_minatar.py
#   (init_es and the generation loop of main)
# observed on jax 0.10.2 CPU: `jax.jit(strategy.ask)` and `jax.jit(strategy.tell)` are built
#   anew inside the generation loop, from a fresh bound method each time, so ask and tell are
#   traced again at every generation (3 generations: 3 traces each instead of 1).
# gap: per-call-recompile
# added: imports; stand-ins for evosax's OpenES/SNES (ask draws a Gaussian population around
#   the mean, tell moves the mean towards the best member) and ParameterReshaper, for
#   init_env/init_params (fixed 10x10x4 observations) and for make_train (the BC training and
#   MinAtar rollouts replaced by a score of the dataset), and small configs. Removed from the
#   loop: the wandb logging, the pickle saving and the branches for 2+ devices (pmap).
import time

import jax
import jax.numpy as jnp
from flax import struct

TRACES = {"ask": 0, "tell": 0}


@struct.dataclass
class EvoParams:  # stand-in for evosax's EvoParams
    sigma_init: float = 0.04
    sigma_limit: float = 0.01
    sigma_decay: float = 0.999
    temperature: float = 12.5


@struct.dataclass
class EvoState:  # stand-in for evosax's EvoState
    mean: jnp.ndarray
    sigma: jnp.ndarray
    best_fitness: jnp.ndarray


class OpenES:  # stand-in for evosax.OpenES
    def __init__(self, popsize, num_dims, maximize=False, **kwargs):
        self.popsize, self.num_dims, self.maximize = popsize, num_dims, maximize

    @property
    def params_strategy(self):
        return EvoParams()

    def initialize(self, rng, params):
        return EvoState(jnp.zeros(self.num_dims), jnp.asarray(params.sigma_init), jnp.asarray(-jnp.inf))

    def ask(self, rng, state, params):
        TRACES["ask"] += 1
        noise = jax.random.normal(rng, (self.popsize, self.num_dims))
        return state.mean + state.sigma * noise, state

    def tell(self, x, fitness, state, params):
        TRACES["tell"] += 1
        best = jnp.argmax(fitness)
        mean = state.mean + 0.5 * (x[best] - state.mean)
        sigma = jnp.maximum(state.sigma * params.sigma_decay, params.sigma_limit)
        return state.replace(mean=mean, sigma=sigma, best_fitness=jnp.maximum(state.best_fitness, fitness[best]))


SNES = OpenES


class ParameterReshaper:  # stand-in for evosax.ParameterReshaper
    def __init__(self, params):
        self.shapes = {k: v.shape for k, v in params.items()}
        self.total_params = sum(v.size for v in params.values())

    def reshape(self, x):
        return {"states": x.reshape((x.shape[0], *self.shapes["states"]))}


def init_env(config):  # stand-in: gymnax MinAtar env
    return None, None


def init_params(env, env_params, es_config):  # stand-in: fixed 10x10x4 observations, 4 actions
    params = {"states": jnp.zeros((es_config["dataset_size"], 10, 10, 4))}
    fixed_targets = jax.nn.one_hot(jnp.arange(es_config["dataset_size"]) % 4, 4)
    return params, ParameterReshaper(params), fixed_targets


def make_train(config):  # stand-in: BC training + MinAtar rollouts replaced by a score
    def train(synth_data, action_probs, rng):
        noise = jax.random.normal(rng, (config["NUM_STEPS"], config["NUM_ENVS"]))
        ret = -jnp.mean(synth_data ** 2) + 0.01 * noise
        metric = {
            "returned_episode_returns": ret,
            "returned_episode_lengths": jnp.ones_like(ret),
            "returned_episode": jnp.ones_like(ret),
            "bc_loss": jnp.zeros(config["UPDATE_EPOCHS"]),
            "bc_accuracy": jnp.ones(config["UPDATE_EPOCHS"]),
        }
        return {"runner_state": rng, "metrics": metric}

    return train


def init_es(rng_init, param_reshaper, es_config):
    """Initialize OpenES strategy"""
    if es_config["strategy"] == "OpenES":
        strategy = OpenES(
            popsize=es_config["popsize"],
            num_dims=param_reshaper.total_params,
            opt_name="adam",
            maximize=True,         # Maximize=False because the fitness is the train loss
            lrate_init=es_config["lrate_init"],  # Passing it here since for some reason cannot update it in params.replace
            lrate_decay=es_config["lrate_decay"]
        )

        es_params = strategy.params_strategy
        es_params = es_params.replace(sigma_init=es_config["sigma_init"], sigma_limit=es_config["sigma_limit"], sigma_decay=es_config["sigma_decay"])
        state = strategy.initialize(rng_init, es_params)
    elif es_config["strategy"] == "SNES":
        strategy = SNES(
            popsize=es_config["popsize"],
            num_dims=param_reshaper.total_params,
            maximize=True,         # Maximize=False because the fitness is the train loss
        )

        es_params = strategy.params_strategy
        es_params = es_params.replace(sigma_init=es_config["sigma_init"], temperature=es_config["temperature"])
        state = strategy.initialize(rng_init, es_params)
    else:
        raise NotImplementedError

    return strategy, es_params, state


def main(config, es_config):
    # Init environment and dataset (params)
    env, env_params = init_env(config)
    params, param_reshaper, fixed_targets = init_params(env, env_params, es_config)

    rng = jax.random.PRNGKey(config["SEED"])

    # Initialize OpenES Strategy
    rng, rng_init = jax.random.split(rng)
    strategy, es_params, state = init_es(rng_init, param_reshaper, es_config)

    # Set up vectorized fitness function
    train_fn = make_train(config)

    def single_seed_BC(rng_input, dataset, action_probs):
        out = train_fn(dataset, action_probs, rng_input)
        return out

    multi_seed_BC = jax.vmap(single_seed_BC, in_axes=(0, None, None))  # Vectorize over seeds
    if es_config["learn_labels"]:
        # vmap over images and labels
        train_and_eval = jax.jit(jax.vmap(multi_seed_BC, in_axes=(None, 0, 0)))  # Vectorize over datasets
    else:
        # vmap over images only
        train_and_eval = jax.jit(jax.vmap(multi_seed_BC, in_axes=(None, 0, None)))  # Vectorize over datasets

    if not config["DEBUG"]:
        train_and_eval = jax.jit(train_and_eval)

    start = time.time()
    lap_start = start
    fitness_over_gen = []
    max_fitness_over_gen = []
    for gen in range(es_config["n_generations"]):
        # Gen new dataset
        rng, rng_ask, rng_inner = jax.random.split(rng, 3)
        datasets, state = jax.jit(strategy.ask)(rng_ask, state, es_params)  # expect: JIT301
        # Eval fitness
        batch_rng = jax.random.split(rng_inner, es_config["rollouts_per_candidate"])
        # Preemptively overwrite to reduce memory load
        out = None
        returns = None
        dones = None
        fitness = None
        shaped_datasets = None

        with jax.disable_jit(config["DEBUG"]):
            shaped_datasets = param_reshaper.reshape(datasets)

            if es_config["learn_labels"]:
                shaped_datasets["actions"] = jax.nn.softmax(shaped_datasets["actions"], axis=-1)
                out = train_and_eval(batch_rng, shaped_datasets["states"], shaped_datasets["actions"])
            else:
                out = train_and_eval(batch_rng, shaped_datasets["states"], fixed_targets)

            returns = out["metrics"]["returned_episode_returns"]  # dim=(popsize, rollouts, num_steps, num_envs)
            ep_lengths = out["metrics"]["returned_episode_lengths"]
            dones = out["metrics"]["returned_episode"]  # same dim, True for last steps, False otherwise

            mean_ep_length = (ep_lengths * dones).sum(axis=(-1, -2, -3)) / dones.sum(
                axis=(-1, -2, -3))
            mean_ep_length = mean_ep_length.flatten()

            fitness = out["metrics"]["returned_episode_returns"][:, :, -1, :].mean(axis=(-1, -2))
            fitness = fitness.flatten()  # Necessary if pmap-ing to 2+ devices

        # Update ES strategy with fitness info
        state = jax.jit(strategy.tell)(datasets, fitness, state, es_params)  # expect: JIT301
        fitness_over_gen.append(fitness.mean())
        max_fitness_over_gen.append(fitness.max())

        # Logging
        if gen % es_config["log_interval"] == 0 or gen == 0:
            lap_end = time.time()
            bc_loss = out["metrics"]["bc_loss"][:, :, -1]
            bc_acc = out["metrics"]["bc_accuracy"][:, :, -1]

            print(
                f"Gen: {gen}, Fitness: {fitness.mean():.2f} +/- {fitness.std():.2f}, "
                + f"Best: {state.best_fitness:.2f}, BC loss: {bc_loss.mean():.2f} +/- {bc_loss.std():.2f}, "
                + f"BC mean accuracy: {bc_acc.mean():.2f} +/- {bc_acc.std():.2f}, Lap time: {lap_end - lap_start:.1f}s"
            )
            lap_start = lap_end

    return state, fitness_over_gen


config = {"NUM_ENVS": 2, "NUM_STEPS": 4, "UPDATE_EPOCHS": 3, "DEBUG": False, "SEED": 1337}
es_config = {
    "popsize": 8, "dataset_size": 4, "rollouts_per_candidate": 2, "n_generations": 3,
    "log_interval": 1, "sigma_init": 0.5, "sigma_limit": 0.01, "sigma_decay": 1.0,
    "lrate_init": 0.05, "lrate_decay": 1.0, "learn_labels": False, "strategy": "OpenES",
    "temperature": 20.0, "save_interval": 10,
}

if __name__ == "__main__":
    state, fitness_over_gen = main(config, es_config)
    # observed: line 165 and line 196 trace ask and tell again at every generation
    assert TRACES == {"ask": 3, "tell": 3}, TRACES
