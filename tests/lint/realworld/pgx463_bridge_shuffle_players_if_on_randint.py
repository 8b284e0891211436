# source: https://github.com/sotetsuk/pgx/pull/463
#   (pgx/bridge_bidding.py before "[BridgeBidding] Change each function to be jittable",
#   which put @jax.jit on init and _shuffle_players and turned the `if` into jax.lax.cond)
# observed on jax 0.10.2 CPU: jax.jit(init)(key) raises TracerBoolConversionError at the
#   `if jax.random.randint(rng4, (1,), 1, 2) == 1:` in _shuffle_players: the draw is a
#   tracer under jit. The State dataclass, init and _shuffle_players are kept as they were
#   (init_by_key and the rest of the module left out); the annotation
#   jax.random.KeyArray, which no longer exists, is spelled jax.Array; pgx.core.State is a
#   stand-in with the fields of the time, and pgx.flax.struct.dataclass is
#   flax.struct.dataclass behind a small stand-in that wraps array defaults in
#   default_factory (Python 3.11 rejects them). The driver jits init as the fix does.
# gap: other
import dataclasses

import flax.struct
import jax
import jax.numpy as jnp


def dataclass(clz):
    # stand-in for pgx.flax.struct.dataclass (a copy of flax.struct.dataclass)
    for name in clz.__annotations__:
        value = clz.__dict__.get(name, dataclasses.MISSING)
        if isinstance(value, jax.Array):
            setattr(clz, name, dataclasses.field(default_factory=lambda v=value: v))
    return flax.struct.dataclass(clz)


class core:
    # stand-in namespace for pgx.core at the time
    class State:
        curr_player: jnp.ndarray
        observation: jnp.ndarray
        reward: jnp.ndarray
        terminated: jnp.ndarray
        legal_action_mask: jnp.ndarray
        _rng_key: jax.Array


@dataclass
class State(core.State):
    # turn 現在のターン数
    turn: jnp.ndarray = jnp.int16(0)
    # curr_player 現在のプレイヤーid
    curr_player: jnp.ndarray = jnp.int8(-1)
    # 各プレイヤーの観測
    observation: jnp.ndarray = jnp.zeros(52, dtype=jnp.bool_)
    # 報酬　player_id: 0, 1, 2, 3
    reward: jnp.ndarray = jnp.int16([0, 0, 0, 0])
    # シャッフルされたプレイヤーの並び
    shuffled_players: jnp.ndarray = jnp.zeros(4, dtype=jnp.int8)
    # 終端状態
    terminated: jnp.ndarray = jnp.bool_(False)
    _rng_key: jax.Array = jax.random.PRNGKey(0)
    # hand 各プレイヤーの手札
    # index = 0 ~ 12がN, 13 ~ 25がE, 26 ~ 38がS, 39 ~ 51がWの持つ手札
    # 各要素にはカードを表す0 ~ 51の整数が格納される
    hand: jnp.ndarray = jnp.zeros(52, dtype=jnp.int8)
    # bidding_history 各プレイヤーのbidを時系列順に記憶
    # 最大の行動系列長 = 319
    # 各要素には、行動を表す整数が格納される
    # bidを表す0 ~ 34, passを表す35, doubleを表す36, redoubleを表す37, 行動が行われていない-1
    # 各ビッドがどのプレイヤーにより行われたかは、要素のindexから分かる（ix % 4）
    bidding_history: jnp.ndarray = jnp.full(319, -1, dtype=jnp.int8)
    # dealer どのプレイヤーがdealerかを表す
    # 0 = N, 1 = E, 2 = S, 3 = W
    # dealerは最初にbidを行うプレイヤー
    dealer: jnp.ndarray = jnp.zeros(4, dtype=jnp.int8)
    # vul_NS NSチームがvulかどうかを表す
    # 0 = non vul, 1 = vul
    vul_NS: jnp.ndarray = jnp.bool_(False)
    # vul_EW EWチームがvulかどうかを表す
    # 0 = non vul, 1 = vul
    vul_EW: jnp.ndarray = jnp.bool_(False)
    # last_bid 最後にされたbid
    # last_bidder 最後にbidをしたプレイヤー
    # call_x 最後にされたbidがdoubleされているか
    # call_xx 最後にされたbidがredoubleされているか
    last_bid: jnp.ndarray = jnp.int8(-1)
    last_bidder: jnp.ndarray = jnp.int8(-1)
    call_x: jnp.ndarray = jnp.bool_(False)
    call_xx: jnp.ndarray = jnp.bool_(False)
    # legal_actions プレイヤーの可能なbidの一覧
    legal_action_mask: jnp.ndarray = jnp.ones(38, dtype=jnp.bool_)
    # first_denominaton_NS NSチームにおいて、各denominationをどのプレイヤー
    # が最初にbidしたかを表す
    # デノミネーションの順番は C, D, H, S, NT = 0, 1, 2, 3, 4
    first_denomination_NS: jnp.ndarray = jnp.full(5, -1, dtype=jnp.int8)
    # first_denominaton_EW EWチームにおいて、各denominationをどのプレイヤー
    # が最初にbidしたかを表す
    first_denomination_EW: jnp.ndarray = jnp.full(5, -1, dtype=jnp.int8)
    # passの回数
    pass_num: jnp.ndarray = jnp.array(0, dtype=jnp.int8)


def init(rng: jax.Array) -> State:
    rng1, rng2, rng3, rng4, rng5, rng6 = jax.random.split(rng, num=6)
    hand = jnp.arange(0, 52)
    hand = jax.random.permutation(rng2, hand)
    vul_NS = jax.random.randint(rng3, (1,), 0, 2)
    vul_EW = jax.random.randint(rng4, (1,), 0, 2)
    dealer = jax.random.randint(rng5, (1,), 0, 4)
    # shuffled players and arrange in order of NESW
    shuffled_players = _shuffle_players(rng6)
    curr_player = shuffled_players[dealer]
    legal_actions = jnp.ones(38, dtype=jnp.bool_)
    # 最初はdable, redoubleできない
    legal_actions = legal_actions.at[36].set(False)
    legal_actions = legal_actions.at[37].set(False)
    state = State(  # type: ignore
        shuffled_players=shuffled_players,
        curr_player=curr_player,
        hand=hand,
        dealer=dealer,
        vul_NS=vul_NS,
        vul_EW=vul_EW,
        legal_action_mask=legal_actions,
    )
    return state


def _shuffle_players(rng: jax.Array) -> jnp.ndarray:
    """Randomly arranges player IDs in a list in NESW order.

    Returns:
        jnp.ndarray: A list of 4 player IDs randomly arranged in NESW order.

    Example:
        >>> key = jax.random.PRNGKey(0)
        >>> _shuffle_players(key)
        Array([0, 3, 1, 2], dtype=int8)
    """
    rng1, rng2, rng3, rng4 = jax.random.split(rng, num=4)
    # player_id = 0, 1 -> team a
    team_a_players = jax.random.permutation(
        rng2, jnp.arange(2, dtype=jnp.int8)
    )
    # player_id = 2, 3 -> team b
    team_b_players = jax.random.permutation(
        rng3, jnp.arange(2, 4, dtype=jnp.int8)
    )
    # decide which team is on
    # Randomly determine NSteam and EWteam
    # Arrange in order of NESW
    if jax.random.randint(rng4, (1,), 1, 2) == 1:  # expect: JIT101
        shuffled_players = jnp.array(
            [
                team_a_players[0],
                team_b_players[0],
                team_a_players[1],
                team_b_players[1],
            ]
        )
    else:
        shuffled_players = jnp.array(
            [
                team_b_players[0],
                team_a_players[0],
                team_b_players[1],
                team_a_players[1],
            ]
        )
    return shuffled_players


if __name__ == "__main__":
    state = jax.jit(init)(jax.random.PRNGKey(0))
