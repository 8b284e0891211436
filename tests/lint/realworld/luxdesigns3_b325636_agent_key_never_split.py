# source: https://github.com/Bazooh/Lux-Design-S3/blob/b3256366f10a936fe5a05bb3cec457e5b714ba02/purejaxrl/jax_agent.py (RawJaxAgent; `sample_group_action` from purejaxrl/utils.py at the same commit; fixed in 8eaa668024f772fb3b35448afb3396a5b7cf5e89, whose purejaxrl/base_agent.py splits `self.key` in `actions`)
# observed on jax 0.10.2 CPU: runs without error; `self.key` is made once in __init__ and handed to `forward` on every turn, so every turn samples the actions of the 16 ships with the same key: for the same logits the "stochastic" policy plays the same moves every turn
# gap: stale-state-attributes
# observed: line 128 with uniform logits, 6 turns of `actions` sample identical moves; advancing the key (as the fix does) gives different moves
# added: stand-ins for luxai_s3.state.EnvParams/EnvObs, purejaxrl Memory/TransformObs/TransformAction and the network (a flax Dense with zero weights, so the logits are uniform);
#   the `JaxAgent` subclass (reads a yaml config through parse_config) left out; the `__main__` block is the harness.
import numpy as np
from typing import Any
import jax, chex
import jax.numpy as jnp
from functools import partial
import flax.linen as nn


# ---- stand-ins for the project's modules ----------------------------------
class EnvParams(dict):
    @classmethod
    def from_dict(cls, d):
        return cls(d)


class EnvObs(dict):
    @classmethod
    def from_dict(cls, d):
        return cls(d)


class Memory:
    def reset(self):
        return jnp.zeros(())

    def update(self, obs, team_id, memory_state, params):
        return memory_state + 1


class TransformObs:
    def convert(self, team_id, obs, params, memory_state):
        return {"x": jnp.asarray(obs["units"], dtype=jnp.float32)}


class TransformAction:
    def convert(self, team_id, action, obs, params):
        return np.asarray(action)


class Net(nn.Module):
    @nn.compact
    def __call__(self, x):
        logits = nn.Dense(16 * 6, kernel_init=nn.initializers.zeros)(x).reshape(x.shape[0], 16, 6)
        return logits, jnp.zeros(x.shape[0]), None


# ---- purejaxrl/utils.py ----------------------------------------------------
@jax.jit
def sample_group_action(key, logits_group, action_temperature: float = 1.0):
    """
    key: PRNG key for sampling.
    logits_group: Logits for the action of a group of ships. Shape: (16, action_dim).
    """
    def sample_action(key: chex.PRNGKey, logits: chex.Array, action_temperature: float = 1.0):
        """
        key: PRNG key for sampling.
        logits: Logits for the action of a single ship. Shape: (action_dim).
        """
        scaled_logits = (logits - jnp.mean(logits, axis=-1, keepdims=True)) / action_temperature
        action = jax.random.categorical(key=key, logits=scaled_logits, axis=-1)
        return action
    
    # Split the PRNG key into one key per group element
    group_keys = jax.random.split(key, num=logits_group.shape[0])
    
    # Use vmap to vectorize the sampling over group_keys and logits_group
    action_group = jax.vmap(sample_action, in_axes=(0, 0, None))(group_keys, logits_group, action_temperature)
    
    return action_group


# ---- purejaxrl/jax_agent.py ------------------------------------------------
def symetric_action_not_vectorized(action: int):
    return [0, 3, 4, 1, 2][action]


class RawJaxAgent:
    def __init__(
        self,
        player: str,
        env_cfg,
        state_dict,
        model,
        transform_obs: TransformObs,
        transform_action: TransformAction,
        memory: Memory,
    ):
        self.player = player
        self.opp_player = "player_1" if self.player == "player_0" else "player_0"
        self.team_id = 0 if self.player == "player_0" else 1
        self.opp_team_id = 1 if self.team_id == 0 else 0

        np.random.seed(0)
        self.env_params = env_cfg
        self.key = jax.random.PRNGKey(0)
        self.model = model
        self.state_dict = state_dict
        self.transform_obs = transform_obs
        self.transform_action = transform_action
        self.memory = memory
        self.memory_state = self.memory.reset()

    @partial(jax.jit, static_argnums=(0,))
    def forward(
        self,
        key: chex.PRNGKey,
        transformed_obs: Any,
    ):
        transformed_obs_batched = {feat: jnp.expand_dims(value, axis=0) for feat, value in transformed_obs.items()}
        logits, _, _ = self.model.apply(self.state_dict, **transformed_obs_batched) # logits is (16, 6)
        action = sample_group_action(key, logits[0])
        return action 


    def actions(
        self,
        obs: EnvObs,
        remainingOverageTime: int = 60
    ):
        self.memory_state = self.memory.update(obs = obs, team_id=self.team_id, memory_state=self.memory_state, params = EnvParams.from_dict(self.env_params))
        transformed_obs = self.transform_obs.convert(team_id=self.team_id, obs = obs, params=EnvParams.from_dict(self.env_params), memory_state=self.memory_state) 
        action = self.forward(self.key, transformed_obs=transformed_obs)  # expect: JIT502
        transformed_action = self.transform_action.convert(
            team_id=self.team_id,
            action=action,
            obs=transformed_obs,
            params=EnvParams.from_dict(self.env_params),
        )
        return transformed_action

    def act(self, step: int, obs: dict[str, Any], remainingOverageTime: int = 60):
        return self.actions(EnvObs.from_dict(obs))


if __name__ == "__main__":
    model = Net()
    state_dict = model.init(jax.random.PRNGKey(1), jnp.zeros((1, 8)))
    agent = RawJaxAgent("player_0", {"max_units": 16}, state_dict, model,
                        TransformObs(), TransformAction(), Memory())
    rng = np.random.default_rng(0)
    moves = [agent.act(step, {"units": rng.normal(size=8)}) for step in range(6)]
    assert all(np.array_equal(m, moves[0]) for m in moves), moves
    print("6 turns, same sampled moves every turn:", moves[0])

    # With the key advanced each turn (the fix of commit 8eaa668) the moves differ.
    key, fresh = jax.random.PRNGKey(0), []
    for step in range(6):
        key, sub = jax.random.split(key)
        fresh.append(np.asarray(agent.forward(sub, {"x": jnp.asarray(rng.normal(size=8), dtype=jnp.float32)})))
    assert not all(np.array_equal(m, fresh[0]) for m in fresh)
    print("advancing the key gives different moves")
