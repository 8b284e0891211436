# source: https://github.com/Artur-Galstyan/jaxRL/blob/5ea02cac2d3d5942a33bf858bd61efbd5a185b7b/jax_rl/common_helper_functions.py
#   (commit "added gymnax, but its still very slow"; the next commit, d195952 "refactor",
#   drops the gymnax rollout)
# observed on jax 0.10.2 CPU: rollout_discrete_gymnax defines and jits a new policy_step
#   closure on every call and hands it to lax.scan, so every episode of the training loop
#   traces policy_step again and compiles the scan again: three rollouts trace
#   policy_step three times and compile three times. Kept as written:
#   rollout_discrete_gymnax, get_action and Policy (jax_rl/policy_gradient.py at the same
#   commit, without @beartype and docstrings cut). Stand-ins (gymnax, torch and beartype
#   are not installed): a one-pole CartPole environment with gymnax's
#   step(key, state, action, params)/reset(key, params) interface, RLDataset reduced to a
#   NamedTuple of the five arrays, and the episode loop of policy_gradient.train reduced
#   to three rollouts; the gymnax type annotations are left out.
# gap: per-call-recompile
from typing import Any, NamedTuple, Optional

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Float32, PRNGKeyArray


class RLDataset(NamedTuple):
    # stand-in for the torch Dataset of the commit: the same five arrays
    obs: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray
    log_probs: np.ndarray
    dones: np.ndarray


class EnvState(NamedTuple):
    x: Array
    x_dot: Array
    theta: Array
    theta_dot: Array
    time: Array


class CartPoleStandIn:
    # stand-in for gymnax's CartPole-v1: the same interface, simplified dynamics
    def reset(self, key, params=None):
        init = jax.random.uniform(key, (4,), minval=-0.05, maxval=0.05)
        state = EnvState(init[0], init[1], init[2], init[3], jnp.array(0))
        return self.get_obs(state), state

    def step(self, key, state, action, params=None):
        force = jnp.where(action == 1, 10.0, -10.0)
        theta_acc = 9.8 * jnp.sin(state.theta) - 0.1 * force * jnp.cos(state.theta)
        x_acc = 0.1 * force
        new = EnvState(
            state.x + 0.02 * state.x_dot,
            state.x_dot + 0.02 * x_acc,
            state.theta + 0.02 * state.theta_dot,
            state.theta_dot + 0.02 * theta_acc,
            state.time + 1,
        )
        done = (jnp.abs(new.theta) > 0.2095) | (jnp.abs(new.x) > 2.4) | (new.time >= 200)
        reward = jnp.array(1.0)
        return self.get_obs(new), new, reward, done, {}

    def get_obs(self, state):
        return jnp.array([state.x, state.x_dot, state.theta, state.theta_dot])


class Policy(eqx.Module):
    """Policy network for the policy gradient algorithm in a discrete action space."""

    mlp: eqx.nn.MLP

    def __init__(
        self,
        in_size: int,
        out_size: int,
        key: PRNGKeyArray,
        width_size: int = 32,
        depth: int = 2,
    ) -> None:
        key, *subkeys = jax.random.split(key, 5)
        self.mlp = eqx.nn.MLP(
            in_size=in_size,
            out_size=out_size,
            width_size=width_size,
            depth=depth,
            key=key,
        )

    def __call__(self, x: Float32[Array, "state_dims"]) -> Array:
        """Forward pass of the policy network."""
        return self.mlp(x)


@eqx.filter_jit
def get_action(
    state: Float32[Array, "state_dims"],
    policy: Policy,
    key: PRNGKeyArray,
) -> Array:
    """Get an action from the policy network."""
    logits = policy(state)
    action = jax.random.categorical(key, logits)
    return action, logits


policy_step_traces = []


def rollout_discrete_gymnax(
    env,
    env_params,
    action_fn,
    action_fn_kwargs: dict[Any, Any],
    key: PRNGKeyArray,
    render: bool = False,
    max_steps: int = 200,
) -> tuple[RLDataset, dict]:
    key, rng_reset, rng_episode = jax.random.split(key, 3)

    obs, state = env.reset(rng_reset, env_params)

    @jax.jit  # expect: JIT301
    def policy_step(state_input, tmp):
        policy_step_traces.append(1)  # added: counts the traces of policy_step
        obs, state, key = state_input
        key, step_key, action_key = jax.random.split(key, 3)
        action, logits = action_fn(obs, **action_fn_kwargs, key=action_key)
        log_prob = jnp.array(jax.nn.log_softmax(jnp.array(logits)))
        next_obs, next_state, reward, done, info = env.step(
            step_key, state, action, env_params
        )
        carry = [next_obs, next_state, key]

        return carry, [obs, action, reward, log_prob, next_obs, done, info]

    _, (obs, actions, rewards, log_probs, _, dones, info) = jax.lax.scan(
        policy_step,
        [obs, state, rng_episode],
        (),
        length=max_steps,
    )

    dataset = RLDataset(
        np.array(obs),
        np.array(actions),
        np.array(rewards),
        np.array(log_probs),
        np.array(dones),
    )

    return dataset, info


if __name__ == "__main__":
    compiles = []

    def on_event(event, duration, **kwargs):
        if event == "/jax/core/compile/backend_compile_duration":
            compiles.append(event)

    jax.monitoring.register_event_duration_secs_listener(on_event)

    env, env_params = CartPoleStandIn(), None
    key = jax.random.PRNGKey(0)
    key, policy_key = jax.random.split(key)
    actor = Policy(in_size=4, out_size=2, key=policy_key)

    # the episode loop of policy_gradient.train, three episodes
    get_action(jnp.zeros(4), actor, key)  # warm get_action's own cache
    per_episode = []
    for _ in range(3):
        key, subkey = jax.random.split(key)  # tolerate: JIT502
        before = len(compiles)
        dataset, _ = rollout_discrete_gymnax(
            env, env_params, get_action, {"policy": actor}, subkey
        )
        per_episode.append(len(compiles) - before)
    print("policy_step traces:", len(policy_step_traces), "compiles per episode:", per_episode)
    # observed: line 122 jits a new policy_step closure per rollout: each of the three
    # episodes traces it again and compiles again, the third as much as the first
    assert len(policy_step_traces) == 3
    assert per_episode[2] >= 1 and per_episode[1] >= 1
    assert dataset.obs.shape == (200, 4)
