# source: https://github.com/Bazooh/Lux-Design-S3/blob/8eaa668024f772fb3b35448afb3396a5b7cf5e89/purejaxrl/base_agent.py and purejaxrl/purejaxrl_agent.py at the same commit (the fix of the never-advanced `self.key` of purejaxrl/jax_agent.py at b3256366f10a936fe5a05bb3cec457e5b714ba02: `actions` now splits `self.key` and keeps the new key)
# observed on jax 0.10.2 CPU: runs clean; each turn gets a fresh subkey, `forward` (static `self` and `team_id`, everything that changes per turn passed as arguments) compiles once
# gap: stale-state-attributes
# added: stand-ins (flax struct dataclasses / small classes) for luxai_s3.state.EnvParams/EnvObs, purejaxrl Memory/TransformObs/TransformAction and the network
#   (a flax Dense with zero weights, so the logits are uniform); `sample_group_action` copied from purejaxrl/utils.py at the same commit;
#   the `PureJaxRLAgent` subclass (reads a yaml config through parse_config) left out; the `__main__` block is the harness.
import numpy as np
from typing import Any
import jax, chex
import jax.numpy as jnp
from functools import partial
from abc import ABC, abstractmethod
import flax.linen as nn
from flax import struct


# ---- stand-ins for the project's modules ----------------------------------
@struct.dataclass
class EnvParams:
    max_units: int = 16

    @classmethod
    def from_dict(cls, d):
        return cls(**d)


@struct.dataclass
class EnvObs:
    units: jax.Array

    @classmethod
    def from_dict(cls, d):
        return cls(units=jnp.asarray(d["units"], dtype=jnp.float32))


class Memory:
    def reset(self):
        return jnp.zeros(())

    def update(self, obs, team_id, memory_state, params):
        return memory_state + 1


class TransformObs:
    def convert(self, team_id, obs, params, memory_state):
        return {"x": obs.units}


class TransformAction:
    def convert(self, team_id, action, obs, params):
        return action


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


# ---- purejaxrl/base_agent.py -----------------------------------------------
class JaxAgent(ABC):
    def __init__(
        self,
        player: str,
        env_params,
        memory: Memory        
    ):
        self.player = player
        self.opp_player = "player_1" if self.player == "player_0" else "player_0"
        self.team_id = 0 if self.player == "player_0" else 1
        self.opp_team_id = 1 if self.team_id == 0 else 0
        self.env_params = EnvParams.from_dict(env_params)
        self.key = jax.random.PRNGKey(0)
        
        self.memory = memory        
        self.memory_state = self.memory.reset()

    @abstractmethod
    @partial(jax.jit, static_argnums=(0,1))
    def forward(
        self,
        team_id,
        key: chex.PRNGKey,
        obs: Any,
        memory_state: Any,
        env_params: EnvParams
    ):
        ...

    def actions(
        self,
        obs: EnvObs,
        remainingOverageTime: int = 60
    ):
        new_key, key = jax.random.split(self.key)
        self.key = new_key
        self.memory_state = self.memory.update(obs = obs, team_id=self.team_id, memory_state=self.memory_state, params = self.env_params)
        action = self.forward(team_id = self.team_id, key = key, obs = obs, memory_state = self.memory_state, env_params = self.env_params)
        return action

    def act(self, step: int, obs: dict[str, Any], remainingOverageTime: int = 60):
        return self.actions(EnvObs.from_dict(obs))


# ---- purejaxrl/purejaxrl_agent.py ------------------------------------------
class RawPureJaxRLAgent(JaxAgent):
    def __init__(
        self,
        player: str,
        env_params,
        state_dict,
        model,
        transform_obs: TransformObs,
        transform_action: TransformAction,
        memory: Memory,
    ):
        super().__init__(player, env_params, memory)
        
        self.model = model
        self.state_dict = state_dict
        self.transform_obs = transform_obs
        self.transform_action = transform_action

    @partial(jax.jit, static_argnums=(0,1))
    def forward(
        self,
        team_id,
        key: chex.PRNGKey,
        obs: Any,
        memory_state: Any,
        env_params: EnvParams
    ):
        transformed_obs = self.transform_obs.convert(team_id=self.team_id, obs = obs, params=env_params, memory_state=memory_state) 
        transformed_obs_batched = {feat: jnp.expand_dims(value, axis=0) for feat, value in transformed_obs.items()}
        logits, _, _ = self.model.apply(self.state_dict, **transformed_obs_batched) # logits is (16, 6)
        action = sample_group_action(key, logits[0])[0]
        transformed_action = self.transform_action.convert(
            team_id=self.team_id,
            action=action,
            obs=obs,
            params=env_params,
        )
        return transformed_action 


if __name__ == "__main__":
    model = Net()
    state_dict = model.init(jax.random.PRNGKey(1), jnp.zeros((1, 8)))
    agent = RawPureJaxRLAgent("player_0", {"max_units": 16}, state_dict, model,
                              TransformObs(), TransformAction(), Memory())
    rng = np.random.default_rng(0)
    moves = [int(agent.act(step, {"units": rng.normal(size=8)})) for step in range(12)]
    assert len(set(moves)) > 1, moves
    print("moves over 12 turns:", moves)
