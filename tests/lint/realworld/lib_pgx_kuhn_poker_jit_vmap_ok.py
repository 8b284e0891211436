# source: https://github.com/sotetsuk/pgx/blob/079b2d730e3845c25d49d99e0ccf9a374dd04cb9/pgx/kuhn_poker.py
# observed on jax 0.10.2 CPU: runs clean: a batch of 8 games is initialised under
#   jax.jit(jax.vmap(env.init)) and played to the end under jax.jit(jax.vmap(env.step)) with
#   random legal actions; every game terminates with zero-sum rewards and one compilation of
#   each function. kuhn_poker.py is kept as it is (license header left out); pgx.core's State
#   and Env (pgx/core.py at the same commit) are reduced to what KuhnPoker uses (docstrings,
#   visualisation and the num_actions/observation_shape properties left out), pgx's
#   `dataclass` is flax.struct.dataclass (pgx/_src/struct.py is a copy of it) behind a small
#   stand-in that wraps array defaults in default_factory (Python 3.11 rejects them), Array/PRNGKey
#   are jax.Array, and the driver uses pgx.experimental.utils.act_randomly (its v1 guard left
#   out).
# gap: exemption-vs-JAX
import abc
from typing import Optional

import jax
import jax.numpy as jnp
import dataclasses

import flax.struct

Array = jax.Array
PRNGKey = jax.Array


def dataclass(clz):
    # stand-in for pgx._src.struct.dataclass (a copy of flax.struct.dataclass); Python 3.11
    # rejects array defaults as mutable, so they are wrapped in default_factory first
    for name in clz.__annotations__:
        value = clz.__dict__.get(name, dataclasses.MISSING)
        if isinstance(value, jax.Array):
            setattr(clz, name, dataclasses.field(default_factory=lambda v=value: v))
    return flax.struct.dataclass(clz)


class core:
    # stand-in namespace for pgx.core
    EnvId = str

    class State(abc.ABC):
        current_player: Array
        observation: Array
        rewards: Array
        terminated: Array
        truncated: Array
        legal_action_mask: Array
        _step_count: Array

        @property
        @abc.abstractmethod
        def env_id(self):
            """Environment id (e.g. "go_19x19")"""
            ...

    class Env(abc.ABC):
        def __init__(self): ...

        def init(self, key: PRNGKey):
            state = self._init(key)
            observation = self.observe(state)
            return state.replace(observation=observation)  # type: ignore

        def step(
            self,
            state,
            action: Array,
            key: Optional[Array] = None,
        ):
            """Step function."""
            is_illegal = ~state.legal_action_mask[action]
            current_player = state.current_player

            # If the state is already terminated or truncated, environment does not take usual step,
            # but return the same state with zero-rewards for all players
            state = jax.lax.cond(
                (state.terminated | state.truncated),
                lambda: state.replace(rewards=jnp.zeros_like(state.rewards)),  # type: ignore
                lambda: self._step(state.replace(_step_count=state._step_count + 1), action, key),  # type: ignore
            )

            # Taking illegal action leads to immediate game terminal with negative reward
            state = jax.lax.cond(
                is_illegal,
                lambda: self._step_with_illegal_action(state, current_player),
                lambda: state,
            )

            # All legal_action_mask elements are **TRUE** at terminal state
            # This is to avoid zero-division error when normalizing action probability
            # Taking any action at terminal state does not give any effect to the state
            state = jax.lax.cond(
                state.terminated,
                lambda: state.replace(legal_action_mask=jnp.ones_like(state.legal_action_mask)),  # type: ignore
                lambda: state,
            )

            observation = self.observe(state)
            state = state.replace(observation=observation)  # type: ignore

            return state

        def observe(self, state, player_id: Optional[Array] = None) -> Array:
            """Observation function."""
            if player_id is None:
                player_id = state.current_player

            obs = self._observe(state, player_id)
            return jax.lax.stop_gradient(obs)

        @property
        def _illegal_action_penalty(self) -> float:
            """Negative reward given when illegal action is selected."""
            return -1.0

        def _step_with_illegal_action(self, state, loser: Array):
            penalty = self._illegal_action_penalty
            reward = jnp.ones_like(state.rewards) * (-1 * penalty) * (self.num_players - 1)
            reward = reward.at[loser].set(penalty)
            return state.replace(rewards=reward, terminated=TRUE)  # type: ignore


FALSE = jnp.bool_(False)
TRUE = jnp.bool_(True)
BET = jnp.int32(0)
PASS = jnp.int32(1)


@dataclass
class State(core.State):
    current_player: Array = jnp.int32(0)
    observation: Array = jnp.zeros((8, 8, 2), dtype=jnp.bool_)
    rewards: Array = jnp.float32([0.0, 0.0])
    terminated: Array = FALSE
    truncated: Array = FALSE
    legal_action_mask: Array = jnp.ones(2, dtype=jnp.bool_)
    _step_count: Array = jnp.int32(0)
    # --- Kuhn poker specific ---
    _cards: Array = jnp.int32([-1, -1])
    # [(player 0),(player 1)]
    _last_action: Array = jnp.int32(-1)
    # 0(Bet) 1(Pass)
    _pot: Array = jnp.int32([0, 0])

    @property
    def env_id(self) -> core.EnvId:
        return "kuhn_poker"


class KuhnPoker(core.Env):
    def __init__(self):
        super().__init__()

    def _init(self, key: PRNGKey) -> State:
        return _init(key)

    def _step(self, state: core.State, action: Array, key) -> State:
        del key
        assert isinstance(state, State)
        return _step(state, action)

    def _observe(self, state: core.State, player_id: Array) -> Array:
        assert isinstance(state, State)
        return _observe(state, player_id)

    @property
    def id(self) -> core.EnvId:
        return "kuhn_poker"

    @property
    def version(self) -> str:
        return "v1"

    @property
    def num_players(self) -> int:
        return 2


def _init(rng: PRNGKey) -> State:
    rng1, rng2 = jax.random.split(rng)
    current_player = jnp.int32(jax.random.bernoulli(rng1))
    init_card = jax.random.choice(rng2, jnp.int32([[0, 1], [0, 2], [1, 0], [1, 2], [2, 0], [2, 1]]))
    return State(  # type:ignore
        current_player=current_player,
        _cards=init_card,
        legal_action_mask=jnp.bool_([1, 1]),
    )


def _step(state: State, action):
    action = jnp.int32(action)
    pot = jax.lax.cond(
        (action == BET),
        lambda: state._pot.at[state.current_player].add(1),
        lambda: state._pot,
    )

    terminated, reward = jax.lax.cond(
        (state._last_action == BET) & (action == PASS),
        lambda: (
            TRUE,
            jnp.float32([-1, -1]).at[1 - state.current_player].set(1),
        ),
        lambda: (FALSE, jnp.float32([0, 0])),
    )
    terminated, reward = jax.lax.cond(
        (state._last_action == BET) & (action == BET),
        lambda: (TRUE, _get_unit_reward(state) * 2),
        lambda: (terminated, reward),
    )
    terminated, reward = jax.lax.cond(
        (state._last_action == PASS) & (action == PASS),
        lambda: (TRUE, _get_unit_reward(state)),
        lambda: (terminated, reward),
    )

    legal_action = jax.lax.select(terminated, jnp.bool_([0, 0]), jnp.bool_([1, 1]))

    return state.replace(  # type:ignore
        current_player=1 - state.current_player,
        _last_action=action,
        legal_action_mask=legal_action,
        terminated=terminated,
        rewards=reward,
        _pot=pot,
    )


def _get_unit_reward(state: State):
    return jax.lax.cond(
        state._cards[state.current_player] > state._cards[1 - state.current_player],
        lambda: jnp.float32([-1, -1]).at[state.current_player].set(1),
        lambda: jnp.float32([-1, -1]).at[1 - state.current_player].set(1),
    )


def _observe(state: State, player_id) -> Array:
    """
    Index   Meaning
    0~2     J ~ K in hand
    3~4     0~1 chips for the current player
    5~6     0~1 chips for the opponent
    """
    obs = jnp.zeros(7, dtype=jnp.bool_)
    obs = obs.at[state._cards[player_id]].set(TRUE)
    obs = obs.at[3 + state._pot[player_id]].set(TRUE)
    obs = obs.at[5 + state._pot[1 - player_id]].set(TRUE)

    return obs


def act_randomly(rng: PRNGKey, legal_action_mask: Array) -> Array:
    # pgx.experimental.utils.act_randomly
    logits = jnp.log(legal_action_mask.astype(jnp.float32))
    return jax.random.categorical(rng, logits=logits, axis=1)


if __name__ == "__main__":
    env = KuhnPoker()
    init_fn = jax.jit(jax.vmap(env.init))
    step_fn = jax.jit(jax.vmap(env.step))

    key = jax.random.PRNGKey(0)
    key, subkey = jax.random.split(key)
    state = init_fn(jax.random.split(subkey, 8))
    total = jnp.zeros((8, 2))
    for _ in range(4):
        key, subkey = jax.random.split(key)
        action = act_randomly(subkey, state.legal_action_mask)
        state = step_fn(state, action)
        total = total + state.rewards
    assert bool(state.terminated.all()), state.terminated
    assert jnp.allclose(total.sum(axis=1), 0.0), total
    assert bool((jnp.abs(total[:, 0]) >= 1).all()), total
    assert init_fn._cache_size() == 1 and step_fn._cache_size() == 1
