# source: https://github.com/vwxyzjn/cleanrl/blob/004f8a086a892a2a180f4dd332b90d83a968aa7a/cleanrl/dqn_jax.py
#   (QNetwork, TrainState, linear_schedule and the script's main loop: network and
#   TrainState set-up, `q_network.apply = jax.jit(q_network.apply)`, the jitted `update`,
#   epsilon-greedy acting, training every `train_frequency` steps and the target-network
#   update)
# observed on jax 0.10.2 CPU: 300 environment steps with 27 gradient steps compile `update`
#   once, and `update` closes over `args` and `q_network`, which are set before it is
#   first traced and never changed. The two `q_network.init(q_key, obs)` calls share a key
#   on purpose (the script's own comment: the same key and observation give the same
#   initialisation, so the target starts equal to the online network); the second is
#   tolerated as a deliberate reuse.
#   Changed for the stand-ins (gymnasium, tyro, torch, stable-baselines3 and tensorboard
#   are not installed): `Args` keeps the algorithm's fields with a 300-step run
#   (learning_starts 20, train_frequency 10, target_network_frequency 50, batch_size 16);
#   `envs` is a one-environment vector env of a CartPole-like task with gymnasium's
#   reset/step signatures; `rb` is a NumPy ring buffer whose samples, like SB3's torch
#   tensors, have `.numpy()`; `writer` drops the scalars. The video, wandb, model-saving and
#   evaluation branches are left out.
# gap: exemption-vs-JAX
import random
import time
from dataclasses import dataclass
from types import SimpleNamespace

import flax
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax.training.train_state import TrainState


@dataclass
class Args:
    seed: int = 1
    """seed of the experiment"""
    total_timesteps: int = 300
    """total timesteps of the experiments"""
    learning_rate: float = 2.5e-4
    """the learning rate of the optimizer"""
    num_envs: int = 1
    """the number of parallel game environments"""
    buffer_size: int = 1000
    """the replay memory buffer size"""
    gamma: float = 0.99
    """the discount factor gamma"""
    tau: float = 1.0
    """the target network update rate"""
    target_network_frequency: int = 50
    """the timesteps it takes to update the target network"""
    batch_size: int = 16
    """the batch size of sample from the reply memory"""
    start_e: float = 1
    """the starting epsilon for exploration"""
    end_e: float = 0.05
    """the ending epsilon for exploration"""
    exploration_fraction: float = 0.5
    """the fraction of `total-timesteps` it takes from start-e to go end-e"""
    learning_starts: int = 20
    """timestep to start learning"""
    train_frequency: int = 10
    """the frequency of training"""


# ---- stand-ins for gymnasium, the SB3 replay buffer and the tensorboard writer ----
class _Tensor(np.ndarray):
    def numpy(self):
        return np.asarray(self)


class _VecCartPole:
    num_envs = 1
    single_action_space = SimpleNamespace(n=2, sample=lambda: random.randrange(2))

    def reset(self, seed=None):
        self._rng = np.random.default_rng(seed)
        self._state = self._rng.uniform(-0.05, 0.05, (1, 4)).astype(np.float32)
        return self._state.copy(), {}

    def step(self, actions):
        self._state = self._state + 0.02 * (2.0 * np.asarray(actions, np.float32)[:, None] - 1.0)
        terminations = np.abs(self._state[:, 0]) > 0.5
        if terminations.any():
            self._state[terminations] = self._rng.uniform(-0.05, 0.05, (int(terminations.sum()), 4))
        return self._state.copy(), np.ones(1, np.float32), terminations, np.zeros(1, bool), {}


class _ReplayBuffer:
    def __init__(self, buffer_size):
        self.size, self.pos, self.full = buffer_size, 0, False
        self.obs = np.zeros((buffer_size, 4), np.float32)
        self.next_obs = np.zeros((buffer_size, 4), np.float32)
        self.actions = np.zeros((buffer_size, 1), np.int64)
        self.rewards = np.zeros((buffer_size, 1), np.float32)
        self.dones = np.zeros((buffer_size, 1), np.float32)

    def add(self, obs, next_obs, actions, rewards, terminations, infos):
        i = self.pos
        self.obs[i], self.next_obs[i] = obs[0], next_obs[0]
        self.actions[i], self.rewards[i], self.dones[i] = actions[0], rewards[0], terminations[0]
        self.pos = (self.pos + 1) % self.size
        self.full = self.full or self.pos == 0

    def sample(self, batch_size):
        idx = np.random.randint(0, self.size if self.full else self.pos, size=batch_size)
        t = lambda a: a[idx].view(_Tensor)
        return SimpleNamespace(observations=t(self.obs), actions=t(self.actions), next_observations=t(self.next_obs),
                               rewards=t(self.rewards), dones=t(self.dones))


writer = SimpleNamespace(add_scalar=lambda *a, **k: None)
# ---- end of stand-ins ----


# ALGO LOGIC: initialize agent here:
class QNetwork(nn.Module):
    action_dim: int

    @nn.compact
    def __call__(self, x: jnp.ndarray):
        x = nn.Dense(120)(x)
        x = nn.relu(x)
        x = nn.Dense(84)(x)
        x = nn.relu(x)
        x = nn.Dense(self.action_dim)(x)
        return x


class TrainState(TrainState):
    target_params: flax.core.FrozenDict


def linear_schedule(start_e: float, end_e: float, duration: int, t: int):
    slope = (end_e - start_e) / duration
    return max(slope * t + start_e, end_e)


if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **kw: compiles.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    args = Args()
    # TRY NOT TO MODIFY: seeding
    random.seed(args.seed)
    np.random.seed(args.seed)
    key = jax.random.PRNGKey(args.seed)
    key, q_key = jax.random.split(key, 2)

    # env setup
    envs = _VecCartPole()

    obs, _ = envs.reset(seed=args.seed)
    q_network = QNetwork(action_dim=envs.single_action_space.n)
    q_state = TrainState.create(
        apply_fn=q_network.apply,
        params=q_network.init(q_key, obs),
        target_params=q_network.init(q_key, obs),  # tolerate: JIT502
        tx=optax.adam(learning_rate=args.learning_rate),
    )
    q_network.apply = jax.jit(q_network.apply)
    # This step is not necessary as init called on same observation and key will always lead to same initializations
    q_state = q_state.replace(target_params=optax.incremental_update(q_state.params, q_state.target_params, 1))

    rb = _ReplayBuffer(args.buffer_size)

    @jax.jit
    def update(q_state, observations, actions, next_observations, rewards, dones):
        q_next_target = q_network.apply(q_state.target_params, next_observations)  # (batch_size, num_actions)
        q_next_target = jnp.max(q_next_target, axis=-1)  # (batch_size,)
        next_q_value = rewards + (1 - dones) * args.gamma * q_next_target

        def mse_loss(params):
            q_pred = q_network.apply(params, observations)  # (batch_size, num_actions)
            q_pred = q_pred[jnp.arange(q_pred.shape[0]), actions.squeeze()]  # (batch_size,)
            return ((q_pred - next_q_value) ** 2).mean(), q_pred

        (loss_value, q_pred), grads = jax.value_and_grad(mse_loss, has_aux=True)(q_state.params)
        q_state = q_state.apply_gradients(grads=grads)
        return loss_value, q_pred, q_state

    start_time = time.time()

    # TRY NOT TO MODIFY: start the game
    obs, _ = envs.reset(seed=args.seed)
    n_updates = 0
    for global_step in range(args.total_timesteps):
        # ALGO LOGIC: put action logic here
        epsilon = linear_schedule(args.start_e, args.end_e, args.exploration_fraction * args.total_timesteps, global_step)
        if random.random() < epsilon:
            actions = np.array([envs.single_action_space.sample() for _ in range(envs.num_envs)])
        else:
            q_values = q_network.apply(q_state.params, obs)
            actions = q_values.argmax(axis=-1)
            actions = jax.device_get(actions)

        # TRY NOT TO MODIFY: execute the game and log data.
        next_obs, rewards, terminations, truncations, infos = envs.step(actions)

        # TRY NOT TO MODIFY: save data to reply buffer; handle `final_observation`
        real_next_obs = next_obs.copy()
        for idx, trunc in enumerate(truncations):
            if trunc:
                real_next_obs[idx] = infos["final_observation"][idx]
        rb.add(obs, real_next_obs, actions, rewards, terminations, infos)

        # TRY NOT TO MODIFY: CRUCIAL step easy to overlook
        obs = next_obs

        # ALGO LOGIC: training.
        if global_step > args.learning_starts:
            if global_step % args.train_frequency == 0:
                data = rb.sample(args.batch_size)
                # perform a gradient-descent step
                loss, old_val, q_state = update(
                    q_state,
                    data.observations.numpy(),
                    data.actions.numpy(),
                    data.next_observations.numpy(),
                    data.rewards.flatten().numpy(),
                    data.dones.flatten().numpy(),
                )
                n_updates += 1
                if global_step % 100 == 0:
                    writer.add_scalar("losses/td_loss", jax.device_get(loss), global_step)
                    writer.add_scalar("losses/q_values", jax.device_get(old_val).mean(), global_step)
                    writer.add_scalar("charts/SPS", int(global_step / (time.time() - start_time)), global_step)

            # update target network
            if global_step % args.target_network_frequency == 0:
                q_state = q_state.replace(
                    target_params=optax.incremental_update(q_state.params, q_state.target_params, args.tau)
                )

    assert n_updates == 27 and int(q_state.step) == 27, n_updates
    assert compiles.count("jit(update)") == 1, compiles
    assert np.isfinite(float(loss))
