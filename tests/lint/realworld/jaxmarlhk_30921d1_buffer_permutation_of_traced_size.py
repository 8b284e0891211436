# source: https://github.com/hkhattak09/jaxMARL/blob/30921d11d963167a5f89f1a468b74f2a4917881f/jax_marl/algo/buffers.py (the MADDPG replay buffer of a swarm-assembly multi-agent project; the author's own Code_audit.md at 675de83 lists "buffers.py:435 - sample_without_replacement() passes traced array to random.permutation() ... will fail inside a JIT-compiled context")
# observed on jax 0.10.2 CPU: `sample_without_replacement` called in jitted code (as the project's jitted MADDPG update calls `buffer.sample`) raises ConcretizationTypeError in `random.permutation(key, state.size)`: the buffer state is a jit argument, so its `size` field is a tracer and cannot be a permutation length
# gap: types
# (trimmed: the prioritized and per-agent buffers, `add_batch`, `can_sample`, `is_full`, `reset`, `get_average_rewards` and the helpers, and the long docstrings; added: the `__main__` block that fills a small buffer and samples from it under jit)
from typing import Tuple, Optional, NamedTuple, Dict, Any, Union

import jax
import jax.numpy as jnp
from jax import random, lax
from flax import struct
from functools import partial


class Transition(NamedTuple):
    """A single transition for replay buffer."""
    obs: jnp.ndarray
    actions: jnp.ndarray
    rewards: jnp.ndarray
    next_obs: jnp.ndarray
    dones: jnp.ndarray
    global_state: Optional[jnp.ndarray] = None
    next_global_state: Optional[jnp.ndarray] = None
    log_probs: Optional[jnp.ndarray] = None
    action_priors: Optional[jnp.ndarray] = None


class BatchTransition(NamedTuple):
    """Batched transitions for training."""
    obs: jnp.ndarray
    actions: jnp.ndarray
    rewards: jnp.ndarray
    next_obs: jnp.ndarray
    dones: jnp.ndarray
    global_state: Optional[jnp.ndarray] = None
    next_global_state: Optional[jnp.ndarray] = None
    log_probs: Optional[jnp.ndarray] = None
    action_priors: Optional[jnp.ndarray] = None


@struct.dataclass
class ReplayBufferState:
    """State of the replay buffer."""
    obs: jnp.ndarray
    actions: jnp.ndarray
    rewards: jnp.ndarray
    next_obs: jnp.ndarray
    dones: jnp.ndarray
    global_state: Optional[jnp.ndarray]
    next_global_state: Optional[jnp.ndarray]
    log_probs: Optional[jnp.ndarray]
    action_priors: Optional[jnp.ndarray]
    position: jnp.ndarray  # Use jnp.ndarray for JIT compatibility
    size: jnp.ndarray      # Use jnp.ndarray for JIT compatibility


class ReplayBuffer:
    """Replay buffer for multi-agent reinforcement learning.

    Features:
    - Circular buffer with fixed capacity
    - Optional global state storage for CTDE
    - JIT-compatible operations
    - Efficient batch sampling
    """

    def __init__(
        self,
        capacity: int,
        n_agents: int,
        obs_dim: int,
        action_dim: int,
        global_state_dim: Optional[int] = None,
        use_global_state: bool = True,
        store_log_probs: bool = False,
        store_action_priors: bool = False,
        dtype: jnp.dtype = jnp.float32,
    ):
        self.capacity = capacity
        self.n_agents = n_agents
        self.obs_dim = obs_dim
        self.action_dim = action_dim
        self.global_state_dim = global_state_dim
        self.use_global_state = use_global_state and global_state_dim is not None
        self.store_log_probs = store_log_probs
        self.store_action_priors = store_action_priors
        self.dtype = dtype

    def init(self) -> ReplayBufferState:
        obs = jnp.zeros((self.capacity, self.n_agents, self.obs_dim), dtype=self.dtype)
        actions = jnp.zeros((self.capacity, self.n_agents, self.action_dim), dtype=self.dtype)
        rewards = jnp.zeros((self.capacity, self.n_agents), dtype=self.dtype)
        next_obs = jnp.zeros((self.capacity, self.n_agents, self.obs_dim), dtype=self.dtype)
        dones = jnp.zeros((self.capacity, self.n_agents), dtype=self.dtype)

        if self.use_global_state:
            global_state = jnp.zeros((self.capacity, self.global_state_dim), dtype=self.dtype)
            next_global_state = jnp.zeros((self.capacity, self.global_state_dim), dtype=self.dtype)
        else:
            global_state = None
            next_global_state = None

        if self.store_log_probs:
            log_probs = jnp.zeros((self.capacity, self.n_agents), dtype=self.dtype)
        else:
            log_probs = None

        if self.store_action_priors:
            action_priors = jnp.zeros((self.capacity, self.n_agents, self.action_dim), dtype=self.dtype)
        else:
            action_priors = None

        return ReplayBufferState(
            obs=obs,
            actions=actions,
            rewards=rewards,
            next_obs=next_obs,
            dones=dones,
            global_state=global_state,
            next_global_state=next_global_state,
            log_probs=log_probs,
            action_priors=action_priors,
            position=jnp.array(0, dtype=jnp.int32),
            size=jnp.array(0, dtype=jnp.int32),
        )

    def add(
        self,
        state: ReplayBufferState,
        transition: Transition,
    ) -> ReplayBufferState:
        pos = state.position

        # Update arrays at current position
        new_obs = state.obs.at[pos].set(transition.obs)
        new_actions = state.actions.at[pos].set(transition.actions)
        new_rewards = state.rewards.at[pos].set(transition.rewards)
        new_next_obs = state.next_obs.at[pos].set(transition.next_obs)
        new_dones = state.dones.at[pos].set(transition.dones)

        # Update global states if used
        if self.use_global_state and transition.global_state is not None:
            new_global_state = state.global_state.at[pos].set(transition.global_state)
            new_next_global_state = state.next_global_state.at[pos].set(transition.next_global_state)
        else:
            new_global_state = state.global_state
            new_next_global_state = state.next_global_state

        # Update log_probs if used
        if self.store_log_probs and transition.log_probs is not None:
            new_log_probs = state.log_probs.at[pos].set(transition.log_probs)
        else:
            new_log_probs = state.log_probs

        # Update action_priors if used
        if self.store_action_priors and transition.action_priors is not None:
            new_action_priors = state.action_priors.at[pos].set(transition.action_priors)
        else:
            new_action_priors = state.action_priors

        # Update position (circular)
        new_position = (pos + 1) % self.capacity

        # Update size
        new_size = jnp.minimum(state.size + 1, self.capacity)

        return ReplayBufferState(
            obs=new_obs,
            actions=new_actions,
            rewards=new_rewards,
            next_obs=new_next_obs,
            dones=new_dones,
            global_state=new_global_state,
            next_global_state=new_next_global_state,
            log_probs=new_log_probs,
            action_priors=new_action_priors,
            position=new_position,
            size=new_size,
        )

    def sample(
        self,
        state: ReplayBufferState,
        key: jax.Array,
        batch_size: int,
    ) -> BatchTransition:
        # Sample random indices from valid range
        indices = random.randint(key, (batch_size,), 0, state.size)

        # Gather sampled transitions
        obs = state.obs[indices]
        actions = state.actions[indices]
        rewards = state.rewards[indices]
        next_obs = state.next_obs[indices]
        dones = state.dones[indices]

        if self.use_global_state:
            global_state = state.global_state[indices]
            next_global_state = state.next_global_state[indices]
        else:
            global_state = None
            next_global_state = None

        if self.store_log_probs:
            log_probs = state.log_probs[indices]
        else:
            log_probs = None

        if self.store_action_priors:
            action_priors = state.action_priors[indices]
        else:
            action_priors = None

        return BatchTransition(
            obs=obs,
            actions=actions,
            rewards=rewards,
            next_obs=next_obs,
            dones=dones,
            global_state=global_state,
            next_global_state=next_global_state,
            log_probs=log_probs,
            action_priors=action_priors,
        )

    def sample_without_replacement(
        self,
        state: ReplayBufferState,
        key: jax.Array,
        batch_size: int,
    ) -> BatchTransition:
        """Sample a batch without replacement (no duplicate samples)."""
        # Use permutation to sample without replacement
        indices = random.permutation(key, state.size)[:batch_size]  # expect: JIT404  # tolerate: JIT401

        # Gather sampled transitions
        obs = state.obs[indices]
        actions = state.actions[indices]
        rewards = state.rewards[indices]
        next_obs = state.next_obs[indices]
        dones = state.dones[indices]

        if self.use_global_state:
            global_state = state.global_state[indices]
            next_global_state = state.next_global_state[indices]
        else:
            global_state = None
            next_global_state = None

        if self.store_log_probs:
            log_probs = state.log_probs[indices]
        else:
            log_probs = None

        if self.store_action_priors:
            action_priors = state.action_priors[indices]
        else:
            action_priors = None

        return BatchTransition(
            obs=obs,
            actions=actions,
            rewards=rewards,
            next_obs=next_obs,
            dones=dones,
            global_state=global_state,
            next_global_state=next_global_state,
            log_probs=log_probs,
            action_priors=action_priors,
        )


if __name__ == "__main__":
    n_agents, obs_dim, action_dim, global_state_dim = 3, 4, 2, 6
    buffer = ReplayBuffer(capacity=32, n_agents=n_agents, obs_dim=obs_dim,
                          action_dim=action_dim, global_state_dim=global_state_dim)
    state = buffer.init()
    for t in range(10):
        tr = Transition(
            obs=jnp.full((n_agents, obs_dim), t, jnp.float32),
            actions=jnp.zeros((n_agents, action_dim)),
            rewards=jnp.full((n_agents,), float(t)),
            next_obs=jnp.full((n_agents, obs_dim), t + 1, jnp.float32),
            dones=jnp.zeros((n_agents,)),
            global_state=jnp.zeros((global_state_dim,)),
            next_global_state=jnp.zeros((global_state_dim,)),
        )
        state = buffer.add(state, tr)

    batch_size = 4  # a Python int from the config, as in the project's jitted update
    key = random.PRNGKey(0)
    key, k1, k2 = random.split(key, 3)
    batch = jax.jit(lambda s, k: buffer.sample(s, k, batch_size))(state, k1)  # works under jit
    assert batch.obs.shape == (batch_size, n_agents, obs_dim)
    batch = jax.jit(lambda s, k: buffer.sample_without_replacement(s, k, batch_size))(state, k2)
