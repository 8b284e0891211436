# source: https://github.com/bcorfman/pgx-classicenvs/blob/465e5f5c66732cdd0c1638f74bbb4349625cb316/src/model.py
#   (a personal Connect Four game against a Monte Carlo tree search, reworked from pgx's
#   mcts_connect_four colab; src/gui.py calls game.ai_move() after every human move)
# observed on jax 0.10.2 CPU: ai_move wraps the bound method self.run_mcts in a new jax.jit on
#   every AI move; a bound method is a new object per access, so every move traces and compiles
#   the whole search again (same shapes, a compile per move). And self.key, set once in
#   setup_jit, is never split or replaced: every AI move runs its rollouts and search from the
#   same key. With typed keys, JAX's key-reuse checker raises KeyReuseError at the second
#   AI move's call (run_mcts consumes the key it is given).
# gap: per-call-recompile
# added: imports kept from the original; mctx and pgx are not installed, so small stand-ins
#   replace them: a pgx-like Connect Four env (init/step/observation_shape/num_actions, a
#   flax struct State), act_randomly, a no-op save_svg (the original writes state.svg), and a
#   one-step-lookahead muzero_policy (each root action expanded once through recurrent_fn;
#   num_simulations, max_depth and qtransform accepted and unused); the __main__ block.
#   Left out: the file's play_game helper (a notebook-style copy of the same functions).
import types
from functools import partial
from typing import NamedTuple

import chex
import jax
import jax.numpy as jnp
from flax import struct


# ---- stand-ins for pgx -------------------------------------------------------
@struct.dataclass
class State:
    current_player: jax.Array
    rewards: jax.Array
    terminated: jax.Array
    legal_action_mask: jax.Array
    board: jax.Array  # (6, 7): 0 empty, 1 / -1 the colours
    turn: jax.Array


class ConnectFour:
    num_actions = 7
    observation_shape = (6, 7, 2)

    def init(self, key):
        return State(
            current_player=jax.random.bernoulli(key).astype(jnp.int32),
            rewards=jnp.zeros(2, jnp.float32),
            terminated=jnp.bool_(False),
            legal_action_mask=jnp.ones(7, jnp.bool_),
            board=jnp.zeros((6, 7), jnp.int32),
            turn=jnp.int32(0),
        )

    def step(self, state, action, key=None):
        color = jnp.where(state.turn == 0, 1, -1)
        row = 5 - jnp.sum(state.board[:, action] != 0)
        board = state.board.at[row, action].set(color)
        b = board == color
        won = (
            (b[:, :-3] & b[:, 1:-2] & b[:, 2:-1] & b[:, 3:]).any()
            | (b[:-3] & b[1:-2] & b[2:-1] & b[3:]).any()
            | (b[:-3, :-3] & b[1:-2, 1:-2] & b[2:-1, 2:-1] & b[3:, 3:]).any()
            | (b[3:, :-3] & b[2:-1, 1:-2] & b[1:-2, 2:-1] & b[:-3, 3:]).any()
        )
        full = (board != 0).all()
        cp = state.current_player
        rewards = jnp.where(won, jnp.zeros(2).at[cp].set(1.0).at[1 - cp].set(-1.0), jnp.zeros(2))
        new = State(
            current_player=1 - cp,
            rewards=rewards.astype(jnp.float32),
            terminated=won | full,
            legal_action_mask=board[0] == 0,
            board=board,
            turn=1 - state.turn,
        )
        # a terminated state stays as it is, with zero rewards (as in pgx)
        return jax.tree.map(lambda a, b_: jnp.where(state.terminated, a, b_),
                            state.replace(rewards=jnp.zeros(2, jnp.float32)), new)


def act_randomly(rng, legal_action_mask):
    logits = jnp.log(legal_action_mask.astype(jnp.float32))
    return jax.random.categorical(rng, logits=logits, axis=-1)


pgx = types.SimpleNamespace(EnvId=str, State=State, make=lambda env_id: ConnectFour(),
                            save_svg=lambda state, path: None)


# ---- stand-ins for mctx ------------------------------------------------------
class RootFnOutput(NamedTuple):
    prior_logits: jax.Array
    value: jax.Array
    embedding: object


class RecurrentFnOutput(NamedTuple):
    reward: jax.Array
    discount: jax.Array
    prior_logits: jax.Array
    value: jax.Array


class PolicyOutput(NamedTuple):
    action: jax.Array
    action_weights: jax.Array


def _qtransform_by_min_max(tree=None, node_index=None, *, min_value, max_value):
    return None


def _muzero_policy(params, rng_key, root, recurrent_fn, num_simulations,
                   invalid_actions=None, max_depth=None, qtransform=None,
                   dirichlet_fraction=0.25):
    """One-step lookahead stand-in: every root action is expanded once."""
    batch, num_actions = root.prior_logits.shape
    keys = jax.random.split(rng_key, num_actions)
    actions = jnp.broadcast_to(jnp.arange(num_actions)[:, None], (num_actions, batch))
    out, _ = jax.vmap(recurrent_fn, in_axes=(None, 0, 0, None))(params, keys, actions,
                                                               root.embedding)
    q = (out.reward + out.discount * out.value).T  # [B, A]
    q = jnp.where(invalid_actions, -jnp.inf, q)
    action = jnp.argmax(q, axis=-1)
    return PolicyOutput(action=action, action_weights=jax.nn.one_hot(action, num_actions))


mctx = types.SimpleNamespace(RootFnOutput=RootFnOutput, RecurrentFnOutput=RecurrentFnOutput,
                             qtransform_by_min_max=_qtransform_by_min_max,
                             muzero_policy=_muzero_policy)


# ---- user code (src/model.py at 465e5f5) -------------------------------------
class Config(NamedTuple):
    env_id: pgx.EnvId
    seed: int = 0
    num_simulations: int = 1000
    batch_size: int = 1


class RLGame:
    def __init__(self, id):
        self.config = Config(env_id=id)
        self.env = pgx.make(self.config.env_id)
        self.key = None
        self.state = None
        self.step_fn = None

    def policy_fn(self, legal_action_mask):
        """Return the logits of random policy. -Inf is set to illegal actions."""
        chex.assert_shape(legal_action_mask, (self.env.num_actions,))

        f_logits = legal_action_mask.astype(jnp.float32)
        logits = jnp.where(legal_action_mask, f_logits, jnp.finfo(f_logits.dtype).min)
        return logits

    def value_fn(self, key, state):
        """Return the value based on random rollout."""
        chex.assert_rank(state.current_player, 0)

        def cond_fn(x):
            state, key = x
            return ~state.terminated

        def body_fn(x):
            state, key = x
            key, key_act, key_step = jax.random.split(key, 3)
            action = act_randomly(key_act, state.legal_action_mask)
            state = self.env.step(state, action, key_step)
            return (state, key)

        current_player = state.current_player
        state, _ = jax.lax.while_loop(cond_fn, body_fn, (state, key))
        return state.rewards[current_player]

    def recurrent_fn(self, params, rng_key, action, state):
        del params
        current_player = state.current_player
        state = self.env.step(state, action)
        logits = self.policy_fn(state.legal_action_mask)
        value = self.value_fn(rng_key, state)
        reward = state.rewards[current_player]
        value = jax.lax.select(state.terminated, 0.0, value)
        discount = jax.lax.select(state.terminated, 0.0, -1.0)
        recurrent_fn_output = mctx.RecurrentFnOutput(
            reward=reward,
            discount=discount,
            prior_logits=logits,
            value=value,
        )
        return recurrent_fn_output, state

    def run_mcts(self, key, state):
        key, subkey = jax.random.split(key)
        keys = jax.random.split(subkey, self.config.batch_size)
        key, subkey = jax.random.split(key)

        root = mctx.RootFnOutput(
            prior_logits=jax.vmap(self.policy_fn)(state.legal_action_mask),
            value=jax.vmap(self.value_fn)(keys, state),
            embedding=state,
        )
        policy_output = mctx.muzero_policy(
            params=None,
            rng_key=subkey,
            root=root,
            invalid_actions=~state.legal_action_mask,
            recurrent_fn=jax.vmap(self.recurrent_fn, in_axes=(None, None, 0, 0)),
            num_simulations=self.config.num_simulations,
            max_depth=self.env.observation_shape[0]
            * self.env.observation_shape[1],  # 42 in connect four
            qtransform=partial(mctx.qtransform_by_min_max, min_value=-1, max_value=1),
            dirichlet_fraction=0.0,
        )
        return policy_output

    def setup_jit(self):
        assert self.config.batch_size == 1
        key = jax.random.PRNGKey(self.config.seed)
        init_fn = jax.jit(jax.vmap(self.env.init))
        self.step_fn = jax.jit(jax.vmap(self.env.step))

        self.key, subkey = jax.random.split(key)
        keys = jax.random.split(subkey, self.config.batch_size)
        self.state: pgx.State = init_fn(keys)

    def human_move(self, move):
        pgx.save_svg(self.state, "state.svg")
        if self.state.terminated.all():
            is_terminated = True
        else:
            action = jnp.int32([move])
            self.state = self.step_fn(self.state, action)
            is_terminated = False
        return is_terminated

    def ai_move(self):
        pgx.save_svg(self.state, "state.svg")
        if self.state.terminated.all():
            is_terminated = True
        else:
            policy_output = jax.jit(self.run_mcts)(self.key, self.state)  # expect: JIT301,JIT502
            action = policy_output.action
            self.state = self.step_fn(self.state, action)
            is_terminated = False
        return is_terminated


if __name__ == "__main__":
    import traceback

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, *a, **kw: compiles.append(name)
        if name == "/jax/core/compile/backend_compile_duration" else None)

    game = RLGame("connect_four")
    game.setup_jit()
    game.human_move(3)
    key_before = game.key
    n0 = len(compiles)
    game.ai_move()
    first = len(compiles) - n0
    game.human_move(3)
    n1 = len(compiles)
    game.ai_move()
    second = len(compiles) - n1
    print("compiles in the first AI move:", first, "in the second:", second)
    # observed: line 240 jits a new bound method on every AI move: the second move (same shapes) compiles the search again
    assert first >= 1 and second == first, (first, second)
    # observed: line 240 passes the same self.key to every AI move: the key is never split or replaced
    assert game.key is key_before
    # control: one jit of the same method, called on the second position twice, compiles once
    once = jax.jit(game.run_mcts)
    n2 = len(compiles)
    once(jax.random.PRNGKey(1), game.state)
    once(jax.random.PRNGKey(2), game.state)
    assert len(compiles) - n2 == 1, len(compiles) - n2

    # the same two moves with a typed key, under JAX's key-reuse checker
    this_file = __file__
    expect_line = next(i for i, l in enumerate(open(this_file).read().splitlines(), 1)
                       if "# expect" + ": JIT301,JIT502" in l)
    with jax.debug_key_reuse(True):
        g = RLGame("connect_four")
        g.setup_jit()
        g.key = jax.random.key(0)
        g.human_move(3)
        g.ai_move()
        g.human_move(3)
        try:
            g.ai_move()
            raise SystemExit("no KeyReuseError")
        except jax.errors.KeyReuseError as e:
            lines = [f.lineno for f in traceback.extract_tb(e.__traceback__)
                     if f.filename == this_file]
            print("KeyReuseError:", str(e).splitlines()[0], "| lines of this file:", lines)
            assert lines and lines[-1] == expect_line, (lines, expect_line)
