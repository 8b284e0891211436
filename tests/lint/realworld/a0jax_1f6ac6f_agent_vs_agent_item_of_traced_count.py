# source: https://github.com/NTT123/a0-jax/blob/1f6ac6f9fa0b807a52abe173dbe5da8e0a1aa8b3/play.py
# observed on jax 0.10.2 CPU: agent_vs_agent_multiple_games is jitted (num_games and the MCTS
#   flags static) and plays a batch of games with vmap over a lax.while_loop; commit 1f6ac6f
#   ("fix count type") turned the counts into Python ints with `.item()`, which inside the
#   jitted function raises ConcretizationTypeError at the first count (win_count). The next
#   commit, 1badadf ("use array instead of int to run on GPU"), returns the arrays instead.
# gap: other
# added: imports (chex, flax.struct in place of pax); the part of play.py up to
#   agent_vs_agent_multiple_games, as posted; stand-ins for what it imports: Connect2Game
#   (games/connect_two_game.py's rules as a flax struct dataclass with a functional step,
#   since pax is not installed), replicate/reset_env/env_step (utils.py), a linear policy
#   agent, and improve_policy_with_mcts/recurrent_fn (mctx-based, not reached: MCTS is
#   disabled here); the __main__ block.
import pickle
import random
import warnings
from functools import partial
from typing import NamedTuple

import chex
import jax
import jax.numpy as jnp
from flax import struct


@struct.dataclass
class Connect2Game:
    # stand-in for games/connect_two_game.py's Connect2Game (a pax.Module there)
    board: chex.Array
    who_play: chex.Array
    count: chex.Array
    terminated: chex.Array
    winner: chex.Array

    @staticmethod
    def new():
        return Connect2Game(
            board=jnp.zeros((4,), dtype=jnp.int32),
            who_play=jnp.array(1, dtype=jnp.int32),
            count=jnp.array(0, dtype=jnp.int32),
            terminated=jnp.array(0, dtype=jnp.bool_),
            winner=jnp.array(0, dtype=jnp.int32),
        )

    def reset(self):
        return Connect2Game.new()

    def step(self, action):
        invalid_move = self.board[action] != 0
        board_ = self.board.at[action].set(self.who_play)
        board = jnp.where(self.terminated, self.board, board_)
        pair_sums = board[:-1] + board[1:]
        winner = (jnp.max(pair_sums) == 2) * 1 + (jnp.min(pair_sums) == -2) * (-1)
        reward = winner * self.who_play
        count = self.count + 1
        terminated = jnp.logical_or(self.terminated, reward != 0)
        terminated = jnp.logical_or(terminated, count >= 4)
        terminated = jnp.logical_or(terminated, invalid_move)
        reward = jnp.where(invalid_move, -1.0, reward)
        env = self.replace(board=board, who_play=-self.who_play, count=count,
                           terminated=terminated, winner=winner)
        return env, reward

    def canonical_observation(self):
        return self.board * self.who_play

    def is_terminated(self):
        return self.terminated

    def max_num_steps(self) -> int:
        return 4


Enviroment = Connect2Game


@struct.dataclass
class LinearAgent:
    # stand-in for a policies/ network: action logits and a value from the board
    w: chex.Array
    v: chex.Array

    def __call__(self, obs):
        obs = obs.astype(jnp.float32)
        return obs @ self.w, jnp.tanh(obs @ self.v)


def replicate(value, repeat: int):
    """Replicate along the first axis."""
    return jax.tree_util.tree_map(lambda x: jnp.stack([x] * repeat), value)


def reset_env(env):
    """Return a reset enviroment."""
    return env.reset()


@jax.jit
def env_step(env, action):
    """Execute one step in the enviroment."""
    env, reward = env.step(action)
    return env, reward


def improve_policy_with_mcts(*args, **kwargs):  # stand-in (mctx), not reached
    raise NotImplementedError


def recurrent_fn(*args, **kwargs):  # stand-in, not reached
    raise NotImplementedError


class PlayResults(NamedTuple):
    win_count: int
    draw_count: int
    loss_count: int


@partial(
    jax.jit,
    static_argnames=("num_simulations", "disable_mcts", "random_action"),
)
def play_one_move(
    agent,
    env: Enviroment,
    rng_key: chex.Array,
    disable_mcts: bool = False,
    num_simulations: int = 1024,
    random_action: bool = True,
):
    """Play a move using agent's policy"""
    if disable_mcts:
        action_logits, value = agent(env.canonical_observation())
        action_weights = jax.nn.softmax(action_logits, axis=-1)
    else:
        batched_env: Enviroment = replicate(env, 1)  # type: ignore
        rng_key, rng_key_1 = jax.random.split(rng_key)  # type: ignore
        policy_output = improve_policy_with_mcts(
            agent,
            batched_env,
            rng_key_1,  # type: ignore
            rec_fn=recurrent_fn,
            num_simulations=num_simulations,
        )
        action_weights = policy_output.action_weights[0]
        root_idx = policy_output.search_tree.ROOT_INDEX
        value = policy_output.search_tree.node_values[0, root_idx]

    if random_action:
        action = jax.random.categorical(rng_key, jnp.log(action_weights), axis=-1)
    else:
        action = jnp.argmax(action_weights)
    return action, action_weights, value


def agent_vs_agent(
    agent1,
    agent2,
    env: Enviroment,
    rng_key: chex.Array,
    disable_mcts: bool = False,
    num_simulations_per_move: int = 1024,
):
    """A game of agent1 vs agent2."""

    def cond_fn(state):
        env, step = state[0], state[-1]
        # pylint: disable=singleton-comparison
        not_ended = env.is_terminated() == False
        not_too_long = step <= env.max_num_steps()
        return jnp.logical_and(not_ended, not_too_long)

    def loop_fn(state):
        env, a1, a2, _, rng_key, turn, step = state
        rng_key_1, rng_key = jax.random.split(rng_key)
        action, _, _ = play_one_move(
            a1,
            env,
            rng_key_1,
            disable_mcts=disable_mcts,
            num_simulations=num_simulations_per_move,
        )
        env, reward = env_step(env, action)
        state = (env, a2, a1, turn * reward, rng_key, -turn, step + 1)
        return state

    state = (
        reset_env(env),
        agent1,
        agent2,
        jnp.array(0),
        rng_key,
        jnp.array(1),
        jnp.array(1),
    )
    state = jax.lax.while_loop(cond_fn, loop_fn, state)
    return state[3]


@partial(jax.jit, static_argnums=(4, 5, 6))
def agent_vs_agent_multiple_games(
    agent1,
    agent2,
    env,
    rng_key,
    disable_mcts: bool = False,
    num_simulations_per_move: int = 1024,
    num_games: int = 128,
) -> PlayResults:
    """Fast agent vs agent evaluation."""
    rng_key_list = jax.random.split(rng_key, num_games)
    rng_keys = jnp.stack(rng_key_list, axis=0)  # type: ignore
    avsa = partial(
        agent_vs_agent,
        disable_mcts=disable_mcts,
        num_simulations_per_move=num_simulations_per_move,
    )
    batched_avsa = jax.vmap(avsa, in_axes=(None, None, 0, 0))
    envs = replicate(env, num_games)
    results = batched_avsa(agent1, agent2, envs, rng_keys)
    win_count = jnp.sum(results == 1).item()  # expect: JIT401
    draw_count = jnp.sum(results == 0).item()  # expect: JIT401
    loss_count = jnp.sum(results == -1).item()  # expect: JIT401
    return PlayResults(
        win_count=win_count, draw_count=draw_count, loss_count=loss_count
    )


if __name__ == "__main__":
    import traceback

    k1, k2, k3 = jax.random.split(jax.random.PRNGKey(0), 3)
    agent1 = LinearAgent(w=jax.random.normal(k1, (4, 4)), v=jnp.zeros((4,)))
    agent2 = LinearAgent(w=jax.random.normal(k2, (4, 4)), v=jnp.zeros((4,)))
    env = Connect2Game.new()
    try:
        agent_vs_agent_multiple_games(agent1, agent2, env, k3, True, 1024, 8)
        raise AssertionError("no error")
    except jax.errors.ConcretizationTypeError as e:
        frames = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__]
        # observed: line 221 raises ConcretizationTypeError under jit (`.item()` of the traced win count)
        assert frames[-1].lineno == 221
    # observed: line 222 and line 223 are the same `.item()` on traced counts (draw, loss); not reached, line 221 raises first
