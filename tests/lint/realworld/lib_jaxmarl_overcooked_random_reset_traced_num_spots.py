# source: https://github.com/FLAIROx/JaxMARL/blob/1b39f4286b52206a9760df4ccb5f957499ec55ad/smax/environments/overcooked/overcooked.py
#   (Overcooked.reset_env at commit 1b39f42 "(WIP) Randomized starts work but do not jit",
#   which replaced `num_spots = empty_table_mask.sum().item()` by
#   `num_spots = empty_table_mask.sum()` with the note "This sampling has the desired
#   behaviour won't jit due to variable num_spots. Find a fix."; the next commit, ae90d97
#   "Remove EnvParams, Remove random reset, Fix bug", removed the random items instead)
# observed on jax 0.10.2 CPU: MultiAgentEnv.reset is jitted with `self` static, so the
#   counter mask built with jnp ops is traced and `jax.random.randint(num_key, (num_spots,),
#   0, 4)` raises for the traced shape. Past it (tolerated, never reached): the item counts
#   are traced shapes of jax.random.choice, and `num_onions > 0 and random_reset` asks for
#   the truth of a traced comparison, for onions, plates and dishes alike.
#   Kept verbatim: State, EnvParams, MultiAgentEnv.__init__ and reset, the Overcooked
#   constructor (less its action set and commented-out params), default_params, reset_env,
#   the cramped_room layout, OBJECT_TO_INDEX and DIR_TO_VEC. Stand-ins: make_overcooked_map and get_obs, which the
#   reset reaches only after the raising line, return placeholders. Added: the __main__
#   block, a reset as the environment's users call it.
# gap: omnistaging
from functools import partial
from typing import Dict, Optional, Tuple

import chex
import jax
import jax.numpy as jnp
import numpy as np
from flax import struct
from flax.core.frozen_dict import FrozenDict
from jax import lax

OBJECT_TO_INDEX = {
	"unseen": 0,
	"empty": 1,
	"wall": 2,
	"onion": 3,
	"onion_pile": 4,
	"plate": 5,
	"plate_pile": 6,
	"goal": 7,
	"pot": 8,
	"dish": 9,
	"agent": 10,
}

DIR_TO_VEC = jnp.array([
	# Pointing right (positive X)
	(1, 0), # right
	(0, 1), # down
	(-1, 0), # left
	(0, -1), # up
], dtype=jnp.int8)

cramped_room = {
    "height" : 4,
    "width" : 5,
    "wall_idx" : jnp.array([0,1,2,3,4,
                            5,9,
                            10,14,
                            15,16,17,18,19]),
    "agent_idx" : jnp.array([6, 8]),
    "goal_idx" : jnp.array([18]),
    "plate_pile_idx" : jnp.array([16]),
    "onion_pile_idx" : jnp.array([5,9]),
    "pot_idx" : jnp.array([2])
}
layouts = {"cramped_room": cramped_room}


def make_overcooked_map(*args, **kwargs):
    # stand-in for common.make_overcooked_map (not reached: reset_env raises before it)
    return jnp.zeros((9, 9, 3), dtype=jnp.uint8)


@struct.dataclass
class State:
    agent_pos: chex.Array
    agent_dir: chex.Array
    agent_dir_idx: chex.Array
    agent_inv: chex.Array
    goal_pos: chex.Array
    pot_pos: chex.Array
    wall_map: chex.Array
    maze_map: chex.Array
    time: int
    terminal: bool


# TODO: Cleanup params and layout handling
@struct.dataclass
class EnvParams:
    agent_view_size: int = 5
    see_through_walls: bool = True
    see_agent: bool = True
    normalize_obs: bool = False
    sample_n_walls: bool = False  # Sample n_walls uniformly in [0, n_walls]
    max_steps: int = 400
    random_reset: bool = False


class MultiAgentEnv(object):
    """Jittable abstract base class for all SMAX Environments."""

    def __init__(self,
                 num_agents: int,
    ) -> None:
        """
            num_agents (int): maximum number of agents within the environment
        """
        self.num_agents = num_agents
        self.observation_spaces = dict()
        self.action_spaces = dict()

    @partial(jax.jit, static_argnums=(0,))
    def reset(
        self, key: chex.PRNGKey, params: Optional[EnvParams] = None
    ) -> Tuple[Dict[str, chex.Array], State]:
        """Performs resetting of the environment."""
        if params is None:
            params = self.default_params

        return self.reset_env(key, params)


class Overcooked(MultiAgentEnv):
    """Vanilla Overcooked"""
    def __init__(
            self,
            height=4,
            width=5,
            n_walls=1,
            agent_view_size=5,
            layout = FrozenDict(layouts["cramped_room"]),
    ):
        # Sets self.num_agents to 2
        super().__init__(num_agents=2)

        # self.obs_shape = (agent_view_size, agent_view_size, 3)
        # Observations given by 26 channels, most of which are boolean masks
        self.obs_shape = (width, height, 26)

        self.height = height
        self.width = width
        self.n_walls = n_walls     # Here for future compatibility reasons with randomized starts

        self.agent_view_size = agent_view_size
        self.layout = layout
        self.agents = ["agent_0", "agent_1"]

    @property
    def default_params(self) -> EnvParams:
        # Default environment parameters
        return EnvParams()

    def get_obs(self, state, params):
        # stand-in (not reached: reset_env raises before it)
        return {"agent_0": jnp.zeros(self.obs_shape), "agent_1": jnp.zeros(self.obs_shape)}

    def reset_env(
            self,
            key: chex.PRNGKey,
            params: EnvParams
    ) -> Tuple[Dict[str, chex.Array], State]:
        """Reset environment state by resampling contents of maze_map
        - initial agent position
        - goal position
        - wall positions
        """

        # Whether to fully randomize the start state
        random_reset = params.random_reset
        layout = self.layout

        h = self.height
        w = self.width
        num_agents = self.num_agents
        all_pos = np.arange(np.prod([h, w]), dtype=jnp.uint32)


        # TODO: Cleanup random map generation
        # Reset wall map, with shape H x W, and value of 1 at (i,j) iff there is a wall at (i,j)
        # key, subkey = jax.random.split(key)
        # wall_idx = jax.random.choice(
        #     subkey, all_pos,
        #     shape=(self.n_walls,),
        #     replace=False)

        # Replace wall_idx with fixed layout if applicable
        # wall_idx = random_reset * wall_idx + (1-random_reset) * layout.get("wall_idx", wall_idx)
        wall_idx = layout.get("wall_idx")

        occupied_mask = jnp.zeros_like(all_pos)
        occupied_mask = occupied_mask.at[wall_idx].set(1)
        wall_map = occupied_mask.reshape(h, w).astype(jnp.bool_)

        # Reset agent position + dir
        key, subkey = jax.random.split(key)
        agent_idx = jax.random.choice(subkey, all_pos, shape=(num_agents,),
                                      p=(~occupied_mask.astype(jnp.bool_)).astype(jnp.float32), replace=False)

        # Replace with fixed layout if applicable. Also randomize if agent position not provided
        agent_idx = random_reset*agent_idx + (1-random_reset)*layout.get("agent_idx", agent_idx)
        agent_pos = jnp.array([agent_idx % w, agent_idx // w], dtype=jnp.uint32).transpose() # dim = n_agents x 2
        occupied_mask = occupied_mask.at[agent_idx].set(1)

        key, subkey = jax.random.split(key)
        agent_dir_idx = jax.random.choice(subkey, jnp.arange(len(DIR_TO_VEC), dtype=jnp.int32), shape=(num_agents,))
        agent_dir = DIR_TO_VEC.at[agent_dir_idx].get() # dim = n_agents x 2

        # Keep track of empty counter space (table)
        empty_table_mask = jnp.zeros_like(all_pos)
        empty_table_mask = empty_table_mask.at[wall_idx].set(1)

        goal_idx = layout.get("goal_idx")
        goal_pos = jnp.array([goal_idx % w, goal_idx // w], dtype=jnp.uint32).transpose()
        empty_table_mask = empty_table_mask.at[goal_idx].set(0)

        onion_pile_idx = layout.get("onion_pile_idx")
        onion_pile_pos = jnp.array([onion_pile_idx % w, onion_pile_idx // w], dtype=jnp.uint32).transpose()
        empty_table_mask = empty_table_mask.at[onion_pile_idx].set(0)

        plate_pile_idx = layout.get("plate_pile_idx")
        plate_pile_pos = jnp.array([plate_pile_idx % w, plate_pile_idx // w], dtype=jnp.uint32).transpose()
        empty_table_mask = empty_table_mask.at[plate_pile_idx].set(0)

        pot_idx = layout.get("pot_idx")
        pot_pos = jnp.array([pot_idx % w, pot_idx // w], dtype=jnp.uint32).transpose()
        empty_table_mask = empty_table_mask.at[pot_idx].set(0)

        key, subkey = jax.random.split(key)
        # Pot status is determined by a number between 0 (inclusive) and 24 (exclusive)
        # 23 corresponds to an empty pot (default)
        pot_status = jax.random.randint(subkey, (pot_idx.shape[0],), 0, 24)
        pot_status = pot_status * random_reset + (1-random_reset) * jnp.ones((pot_idx.shape[0])) * 23

        # Set random items on the map if `random_reset == True`
        def set_pos_fn(item_idx, empty_table_mask):
            empty_table_mask = empty_table_mask.at[item_idx].set(0)
            item_pos = jnp.array([item_idx % w, item_idx // w], dtype=jnp.uint32).transpose()
            return item_pos, empty_table_mask

        def empty_pos_fn(item_idx, empty_table_mask):
            # This operation works even if item_idx is empty
            item_idx = jnp.array([])
            item_pos = jnp.array([item_idx % w, item_idx // w], dtype=jnp.uint32).transpose()
            return item_pos, empty_table_mask

        # Set items at random on counters:
        # Sample items (0: empty, 1: onion, 2: plate, 3: dish)
        key, num_key, which_key = jax.random.split(key, 3)

        # TODO: This sampling has the desired behaviour won't jit due to variable num_spots. Find a fix.
        # TODO: Consider having multiple masks with "items" being of same shape as all_pos
        num_spots = empty_table_mask.sum()
        items = jax.random.randint(num_key, (num_spots,), 0, 4)  # expect: JIT404

        num_onions = (items == 1).sum()
        onion_idx = jax.random.choice(which_key, all_pos, shape=(num_onions,),  # tolerate: JIT404
                                      p=(empty_table_mask.astype(jnp.bool_)).astype(jnp.float32), replace=False)
        onion_pos, empty_table_mask = jax.lax.cond(num_onions > 0 and random_reset, set_pos_fn, empty_pos_fn,  # tolerate: JIT103
                                                   onion_idx, empty_table_mask)

        key, which_key = jax.random.split(key, 2)
        num_plates = (items == 2).sum()
        plate_idx = jax.random.choice(which_key, all_pos, shape=(num_plates,),  # tolerate: JIT404
                                      p=(empty_table_mask.astype(jnp.bool_)).astype(jnp.float32), replace=False)
        plate_pos, empty_table_mask = jax.lax.cond(num_plates > 0 and random_reset, set_pos_fn, empty_pos_fn,  # tolerate: JIT103
                                                   plate_idx, empty_table_mask)

        key, which_key = jax.random.split(key, 2)
        num_dishes = (items == 3).sum()
        dish_idx = jax.random.choice(which_key, all_pos, shape=(num_dishes,),  # tolerate: JIT404
                                      p=(empty_table_mask.astype(jnp.bool_)).astype(jnp.float32), replace=False)
        dish_pos, empty_table_mask = jax.lax.cond(num_dishes > 0 and random_reset, set_pos_fn, empty_pos_fn,  # tolerate: JIT103
                                                   dish_idx, empty_table_mask)

        maze_map = make_overcooked_map(
            params,
            wall_map,
            goal_pos,
            agent_pos,
            agent_dir_idx,
            plate_pile_pos,
            onion_pile_pos,
            pot_pos,
            pot_status,
            onion_pos,
            plate_pos,
            dish_pos,
            pad_obs=True,
            num_agents=self.num_agents,
            agent_view_size=self.agent_view_size
        )

        # agent inventory (empty by default, can be randomized)
        key, subkey = jax.random.split(key)
        possible_items = jnp.array([OBJECT_TO_INDEX['empty'], OBJECT_TO_INDEX['onion'],
                          OBJECT_TO_INDEX['plate'], OBJECT_TO_INDEX['dish']])
        random_agent_inv = jax.random.choice(subkey, possible_items, shape=(num_agents,), replace=True)
        agent_inv = random_reset * random_agent_inv + \
                    (1-random_reset) * jnp.array([OBJECT_TO_INDEX['empty'], OBJECT_TO_INDEX['empty']])

        # Random reset must also set timestep since we have a "urgency" feature for last 40 timesteps
        key, subkey = jax.random.split(key)
        timestep = jax.random.randint(subkey, (1,), 0, params.max_steps) * random_reset

        state = State(
            agent_pos=agent_pos,
            agent_dir=agent_dir,
            agent_dir_idx=agent_dir_idx,
            agent_inv=agent_inv,
            goal_pos=goal_pos,
            pot_pos=pot_pos,
            wall_map=wall_map.astype(jnp.bool_),
            maze_map=maze_map,
            time=jnp.array(timestep, dtype=jnp.int32),
            terminal=jnp.array(False),
        )

        obs = self.get_obs(state, params)

        return lax.stop_gradient(obs), lax.stop_gradient(state)


if __name__ == "__main__":
    env = Overcooked()
    obs, state = env.reset(jax.random.PRNGKey(0))
