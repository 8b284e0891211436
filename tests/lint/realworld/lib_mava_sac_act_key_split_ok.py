# source: https://github.com/instadeepai/Mava/blob/838b56ad6783dccb1dbb2a3541561db92fe7b409/mava/systems/sac/ff_isac.py
#   (the act loop of make_update_fns after commit 838b56ad "fix: sac key splitting", which
#   adds `key, act_key = jax.random.split(key)` and samples with act_key)
# observed on jax 0.10.2 CPU: each step of the scanned rollout splits the carried key and
#   samples with a fresh act_key: with a constant observation the rollout_length actions
#   all differ.
#   Kept verbatim: act, scanned_act and the act half of update_step. Stand-ins (Mava,
#   distrax, jumanji and flashbax are not installed): actor_net is an object whose apply
#   returns a Normal with a .sample(seed=...) method (loc from the observation, scale 1),
#   step is an environment step that leaves the observation unchanged and reports the
#   action as its metrics, and cfg.system.rollout_length is a plain constant.
# gap: other
from typing import Any, Dict, Tuple

import jax
import jax.numpy as jnp
from jax import lax

ROLLOUT_LENGTH = 8  # stand-in for cfg.system.rollout_length


class Normal:
    # stand-in for the distrax distribution the actor network returns
    def __init__(self, loc):
        self.loc = loc

    def sample(self, seed):
        return self.loc + jax.random.normal(seed, self.loc.shape)


class ActorNet:
    # stand-in for the actor network
    def apply(self, params, obs):
        return Normal(obs @ params)


actor_net = ActorNet()


def step(action, obs, env_state, buffer_state):
    # stand-in environment step: observation unchanged, the action as metrics
    return obs, env_state, buffer_state, {"action": action}


def make_act_loop():
    def act(
        carry: Tuple[Any, jax.Array, Any, Any, jax.Array], _: Any
    ) -> Tuple[Tuple[Any, jax.Array, Any, Any, jax.Array], Dict]:
        """Acting loop: select action, step env, add to buffer."""
        actor_params, obs, env_state, buffer_state, key = carry
        key, act_key = jax.random.split(key)

        pi = actor_net.apply(actor_params, obs)
        action = pi.sample(seed=act_key)

        next_obs, env_state, buffer_state, metrics = step(action, obs, env_state, buffer_state)
        return (actor_params, next_obs, env_state, buffer_state, key), metrics

    scanned_act = lambda state: lax.scan(act, state, None, length=ROLLOUT_LENGTH)

    def update_step(params, obs, env_state, buffer_state, key):
        key, act_key, learn_key = jax.random.split(key, 3)
        # Act
        act_state = (params, obs, env_state, buffer_state, act_key)
        (_, next_obs, env_state, buffer_state, _), metrics = scanned_act(act_state)
        return next_obs, metrics, key

    return update_step


if __name__ == "__main__":
    update_step = jax.jit(make_act_loop())
    params = jnp.eye(2)
    obs = jnp.ones((4, 2))
    _, metrics, _ = update_step(params, obs, jnp.zeros(()), jnp.zeros(()), jax.random.key(0))
    actions = metrics["action"]
    assert actions.shape == (ROLLOUT_LENGTH, 4, 2)
    assert len({tuple(a.ravel().tolist()) for a in actions}) == ROLLOUT_LENGTH, actions
