# source: https://github.com/kaifishr/NeuralAnnealing/blob/d059306fdf81c5f2bd7b2aca577f8a59f1efcf1d/src/optimizer/optimizer_rl.py
#   (with src/optimizer/optimizer.py, and init_params/forward/model of src/model.py, MaxScore of
#   src/loss.py and GeometricScheduler of src/scheduler.py at the same commit)
# observed on jax 0.10.2 CPU: simulated annealing of an MLP policy. The jitted `_perturb` hands
#   the one `key` it gets to `_perturb_params` for every weight and every bias, so all layers
#   draw their mask and perturbation from the same key: a bias moves by the first entries of its
#   layer's weight perturbation, and each weight matrix by a prefix of the previous one's. And
#   `_step` passes `self.key` itself (not a subkey) to `_perturb`, then the next step splits that
#   consumed key again: the next rollout key is the mask key of the previous perturbation (and on
#   the first step, `self.key` already seeded init_params: the step's keys are the layers' init
#   keys); the final evaluation after the loop splits it the same way. JAX's key-reuse checker
#   names these four lines (and the stand-in env's draw, for the shared `subkey` below). The two rollouts of a step sharing
#   `subkey` compare the old and new parameters on the same episodes on purpose. Line 269 (the periodic full evaluation, which this config never reaches) splits the key `_step` left used the same way: JAX's checker names it with test_stats_every_n_iter 1 (tolerated).
# gap: other
# added: imports; stand-ins for RolloutWorker (a gym AsyncVectorEnv; here episodes drawn from
#   the key with jax.random and a fixed linear reward) and TensorboardLogger (a list of stats);
#   the config of examples/rl/train.py with a shorter schedule and a temporary output_dir.
#   Left out: DLOptimizer and the torch data loaders.
import math
import pathlib
import pickle
import random
import tempfile
import time
from functools import partial
from typing import Any, List, Optional

import numpy
import jax
import jax.numpy as jnp

Params = list[tuple[jax.Array, jax.Array]]


# ---- src/model.py ----
def init_params(key: jax.Array, dims: list[int]) -> Params:
    keys = jax.random.split(key=key, num=len(dims))
    return [
        _init_params(fan_in=fan_in, fan_out=fan_out, key=key)
        for fan_in, fan_out, key in zip(dims[:-1], dims[1:], keys)
    ]


def _init_params(fan_in: int, fan_out: int, key: jax.Array) -> tuple[jax.Array, jax.Array]:
    w_key, _ = jax.random.split(key)
    scale = jnp.sqrt(2.0 / fan_in)
    w = scale * jax.random.normal(w_key, (fan_out, fan_in))
    b = jnp.zeros(shape=(fan_out,))
    return w, b


def forward(params: jax.Array, inputs: jax.Array) -> jax.Array:
    out = jax.lax.stop_gradient(inputs)
    *layers, last = params
    for w, b in layers:
        out = jnp.dot(w, out) + b
        out = jax.nn.tanh(out)
    w, b = last
    logits = jnp.dot(w, out) + b
    return logits


model = jax.jit(jax.vmap(forward, in_axes=(None, 0)))


# ---- src/loss.py (MaxScore) and src/scheduler.py (GeometricScheduler) ----
class MaxScore:
    @staticmethod
    def _symlog(score: jax.Array) -> jax.Array:
        return jnp.sign(score) * jnp.log(jnp.abs(score) + 1.0)

    @partial(jax.jit, static_argnames=["self"])
    def __call__(self, score: jax.Array) -> jax.Array:
        score = -1.0 * score
        return self._symlog(score)


class GeometricScheduler:
    def __init__(self, temp_start: float, temp_final: float, gamma: float) -> None:
        self.temp_start, self.temp_final, self.gamma = temp_start, temp_final, gamma

    def __call__(self, temp: float, iteration: int) -> float:
        temp = self.gamma * temp
        if self.temp_final:
            temp = max(self.temp_final, temp)
        return temp


class TensorboardLogger:  # stand-in: keeps the stats
    def __init__(self):
        self.stats = []

    def write(self, stats: dict[str, float], iteration: int) -> None:
        self.stats.append((iteration, stats))


class RolloutWorker:  # stand-in for the gym vector env: episodes drawn from the key
    def __init__(self, dim_input: int, num_envs: int = 4, max_env_steps: int = 5):
        self.dim_input, self.num_envs, self.max_env_steps = dim_input, num_envs, max_env_steps
        self.keys = []

    def rollout(self, key: jax.Array, model, params: Params) -> float:
        self.keys.append(key)
        observations = jax.random.normal(key, (self.max_env_steps, self.num_envs, self.dim_input))  # tolerate: JIT502
        prediction = jax.vmap(lambda o: model(params, o))(observations)
        return float(jnp.mean(prediction[..., 0]))


# ---- src/optimizer/optimizer.py ----
class Optimizer:

    def __init__(self, model, criterion, scheduler, dataset, config: dict[str, Any]):
        self.model = model
        self.criterion = criterion
        self.scheduler = scheduler
        self.dataset = dataset
        self.config = config

        self.key = jax.random.PRNGKey(seed=config["seed"])
        layer_dims = (
            [config["dim_input"]] + config["dim_hidden"] + [config["dim_output"]]
        )
        self.params = init_params(key=self.key, dims=layer_dims)
        self.params_new = self._copy_params(params=self.params)

        self.momentum = config["momentum"]
        self.temp_start = config["temp_start"]
        self.temp_final = config["temp_final"]
        self.perturbation_prob = config["perturbation_prob"]
        self.perturbation_size = config["perturbation_size"]

        self.test_stats_every_n_iter = config["test_stats_every_n_iter"]
        self.train_stats_every_n_iter = config["train_stats_every_n_iter"]

        self.output_dir = pathlib.Path(config["output_dir"])
        self.output_dir.mkdir(parents=True, exist_ok=True)

        self.logger = TensorboardLogger()

    @staticmethod
    @jax.jit
    def _update(
        params: Params, params_new: Params, momentum: Optional[float] = None
    ) -> list[tuple[jax.Array]]:
        if momentum is not None or momentum > 0.0:
            eta = momentum
            return [
                (eta * w + (1.0 - eta) * w_new, eta * b + (1.0 - eta) * b_new)
                for (w, b), (w_new, b_new) in zip(params, params_new)
            ]
        return params_new

    @partial(jax.jit, static_argnames=["self"])
    def _perturb(
        self,
        key: jax.Array,
        params: List[jax.Array],
        perturbation_prob: float,
        perturbation_size: float,
    ) -> List[jax.Array]:
        return [
            (
                self._perturb_params(key, w, perturbation_prob, perturbation_size),  # expect: JIT502
                self._perturb_params(key, b, perturbation_prob, perturbation_size),  # expect: JIT502
            )
            for w, b in params
        ]

    @staticmethod
    @jax.jit
    def _perturb_params(key: jax.Array, x: jax.Array, prob: float, size: float) -> jax.Array:
        key, subkey1, subkey2 = jax.random.split(key, num=3)
        mask = jax.random.uniform(key=subkey1, shape=x.shape) < prob
        perturbation = jax.random.uniform(
            key=subkey2, shape=x.shape, minval=-size, maxval=size
        )
        x = x + mask * perturbation
        return x

    @staticmethod
    @jax.jit
    def _copy_params(params: list[tuple[jax.Array, jax.Array]]):
        return [(jnp.array(w), jnp.array(b)) for w, b in params]

    def _save_params(self) -> None:
        with open(self.output_dir / "ckpt.pkl", "wb") as fp:
            pickle.dump(self.params, fp)


# ---- src/optimizer/optimizer_rl.py ----
class RLOptimizer(Optimizer):

    def __init__(self, model, rl_dataset, criterion, scheduler, config: dict):
        super().__init__(
            model=model,
            criterion=criterion,
            scheduler=scheduler,
            dataset=rl_dataset,
            config=config,
        )

    def _step(self, temp: float) -> tuple[float, float]:
        self.key, subkey = jax.random.split(key=self.key)  # expect: JIT502
        reward = self.dataset.rollout(
            key=subkey,
            model=self.model,
            params=self.params,
        )
        score_old = self.criterion(reward)

        self.params_new = self._copy_params(params=self.params)
        self.params_new = self._perturb(
            key=self.key,
            params=self.params_new,
            perturbation_prob=self.perturbation_prob,
            perturbation_size=self.perturbation_size,
        )
        reward = self.dataset.rollout(  # tolerate: JIT502
            key=subkey,
            model=self.model,
            params=self.params_new,
        )
        score_new = self.criterion(reward)

        diff_score = score_new - score_old
        if diff_score < 0.0:
            self.params = self._update(
                params=self.params,
                params_new=self.params_new,
                momentum=self.momentum,
            )
        elif random.random() < math.exp(-diff_score / temp):
            self.params = self._update(
                params=self.params,
                params_new=self.params_new,
                momentum=self.momentum,
            )

        return reward, diff_score

    def run(self):

        temp = self.temp_start
        iteration = 0

        while temp > self.temp_final:
            start_time = time.time()
            running_iter = 0
            running_reward = 0.0

            reward, diff_score = self._step(temp=temp)

            running_reward += reward
            running_iter += 1

            iteration_time = time.time() - start_time

            if (iteration + 1) % self.train_stats_every_n_iter == 0:
                stats = {
                    "train/running_reward_per_env_step": running_reward,
                    "train/time_per_iteration": iteration_time,
                    "train/temperature": temp,
                    "train/diff_score": diff_score,
                    "train/exp_argument": diff_score / temp,
                }
                self.logger.write(stats=stats, iteration=iteration)

            if (iteration + 1) % self.test_stats_every_n_iter == 0:
                self.key, subkey = jax.random.split(key=self.key)  # tolerate: JIT502
                self._write_full_eval(
                    key=subkey,
                    model=self.model,
                    params=self.params,
                    iteration=iteration,
                )
                self._save_params()

            iteration += 1
            temp = self.scheduler(temp, iteration)

        self.key, subkey = jax.random.split(key=self.key)  # expect: JIT502
        self._write_full_eval(
            key=subkey,
            model=self.model,
            params=self.params,
            iteration=iteration,
        )
        self._save_params()

    def _write_full_eval(self, key, model, params: Params, iteration: int, num_test_rollouts: int = 40) -> None:
        rewards = []
        for _ in range(num_test_rollouts):
            key, subkey = jax.random.split(key=key)
            reward = self.dataset.rollout(key=subkey, model=model, params=params)
            rewards.append(reward)
        reward_mean = numpy.array(rewards).mean().item()
        reward_std = numpy.array(rewards).std().item()
        stats = {
            "test/avg_reward_per_env_step": reward_mean,
            "test/std_reward_per_env_step": reward_std,
        }
        self.logger.write(stats=stats, iteration=iteration)
        print(f"{iteration = } {reward_mean = :.2f} {reward_std = :.2f}")


config = {
    "seed": 1234, "num_envs": 4, "max_env_steps": 5,
    "dim_input": 8, "dim_output": 4, "dim_hidden": 2 * [64],
    "temp_start": 0.01, "temp_final": 1e-3, "gamma": 0.5,
    "perturbation_prob": 0.02, "perturbation_size": 0.02, "momentum": 0.0,
    "train_stats_every_n_iter": 1, "test_stats_every_n_iter": 100,
    "output_dir": tempfile.mkdtemp(),
}

if __name__ == "__main__":
    random.seed(config["seed"])
    rl_dataset = RolloutWorker(config["dim_input"], config["num_envs"], config["max_env_steps"])
    scheduler = GeometricScheduler(gamma=config["gamma"], temp_start=config["temp_start"], temp_final=config["temp_final"])
    optimizer = RLOptimizer(model=model, rl_dataset=rl_dataset, criterion=MaxScore(), scheduler=scheduler, config=config)
    optimizer.run()
    assert len(optimizer.logger.stats) == 5

    # observed: line 163 and line 164 perturb every layer with one key (perturbation_prob 1.0 so
    #   every entry moves): layer 1's bias moves by the first entries of layer 1's weight
    #   perturbation, and layer 2's weights by layer 1's weight perturbation and more
    params = optimizer.params
    new = optimizer._perturb(key=jax.random.PRNGKey(7), params=params, perturbation_prob=1.0, perturbation_size=0.02)
    dw1, db1 = new[0][0] - params[0][0], new[0][1] - params[0][1]
    dw2 = new[1][0] - params[1][0]
    assert float(jnp.abs(db1).min()) > 0
    assert bool(jnp.allclose(db1, dw1.ravel()[:64], atol=1e-6))
    assert bool(jnp.allclose(dw2.ravel()[:512], dw1.ravel(), atol=1e-6))

    # observed: line 203 splits the key `_perturb` consumed on the step before (and, on the
    #   first step, the key init_params split): the first step's rollout key is layer 2's init
    #   key, and each later rollout key is the mask key of the previous step's perturbation
    seed_key = jax.random.PRNGKey(config["seed"])
    init_keys = jax.random.split(seed_key, 4)
    assert bool((rl_dataset.keys[0] == init_keys[1]).all())
    key_1 = jax.random.split(seed_key)[0]  # tolerate: JIT502
    mask_key_1 = jax.random.split(key_1, 3)[1]
    assert bool((rl_dataset.keys[2] == mask_key_1).all())

    # observed: line 281 (after the loop) splits the key the last step's `_perturb` consumed: the
    #   final evaluation's first rollout key is drawn from the mask key of the last perturbation
    k = seed_key
    for _ in range(4):
        k = jax.random.split(k)[0]  # tolerate: JIT502
    last_mask_key = jax.random.split(k, 3)[1]
    assert bool((rl_dataset.keys[8] == jax.random.split(last_mask_key)[1]).all())
