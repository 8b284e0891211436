# source: https://github.com/Mathieu-van-Luijken/Lux-S3/blob/c6e4fcfa427fbd70c19ed4ada4e970a900fde628/kits/python/train.py (main), with kits/python/ppo_agent.py, utils.py, loss.py and reward.py at the same commit (a PPO agent for the Kaggle "NeurIPS 2024 - Lux AI Season 3" competition)
# observed on jax 0.10.2 CPU: the one key made in __main__ (and already used by init_agent) is passed unchanged to sample_action on every environment step and to ppo_loss on every update, so every step draws its actions with the same noise and every update uses the same minibatch permutation
# gap: flow-sensitive
# observed: line 697 every call of sample_action in the episode loop receives the same key (20 env steps, one key)
# observed: line 749 every ppo_loss update receives the same key, so jax.random.permutation gives the same minibatch order each time (4 updates)
# the five modules are put into one file (their imports merged); LuxAIS3GymEnv is replaced by the small FakeLuxEnv stand-in below (random observations with the
# same layout as the Lux S3 observation, episodes of 10 steps); num_episodes 5 -> 2, nr_updates 10 -> 2, update_step 101 -> 10 to keep the run short; the two
# orbax checkpoint lines at the end of each episode are removed so that nothing is written; the __main__ block is rewritten to record the keys
import jax
import flax.linen as nn
import jax.numpy as jnp
from jax import random, grad, value_and_grad
import jax.random as random
import optax
import numpy as np
from typing import Any, Tuple
from dataclasses import dataclass, field
from functools import partial
from jax import lax, jit
from tqdm import tqdm


@jit
def scatter_update(board, coords, values, valid_mask):
    """
    For each row in `coords` (shape [N, 2]), if valid_mask[i] is True, we use coords[i],
    otherwise we substitute a dummy coordinate (here (0,0)). In parallel, we zero out the update
    for invalid entries. Then we do a scatter-add.
    """
    # Use safe_coords: if valid, use the coordinate; if not, use (0, 0)
    safe_coords = jnp.where(valid_mask[:, None], coords, jnp.zeros_like(coords))
    # For invalid entries, update value becomes 0.
    updates = jnp.where(valid_mask, values, 0)
    return board.at[safe_coords[:, 0], safe_coords[:, 1]].add(updates)


@jit
def preproces(
    unit_positions,
    unit_energies,
    relic_positions,
    tile_board,
    energy_board,
    player,
):
    # Create a friendly unit board
    friendly_unit_board = jnp.zeros((24, 24), dtype=jnp.float32)
    friendly_units = unit_positions[player]
    friendly_valid = jnp.logical_not(jnp.all(friendly_units == -1, axis=-1))
    friendly_unit_board = scatter_update(
        friendly_unit_board,
        friendly_units,
        jnp.ones(friendly_units.shape[0], dtype=jnp.float32),
        friendly_valid,
    )

    # Create a friendly unit board
    enemy_unit_board = jnp.zeros((24, 24), dtype=jnp.float32)

    # Obtain all coords of existing friendly units
    enemy_units = unit_positions[1 - player]
    enemy_valid = jnp.logical_not(jnp.all(enemy_units == -1, axis=-1))
    enemy_unit_board = scatter_update(
        enemy_unit_board,
        enemy_units,
        jnp.ones(enemy_units.shape[0], dtype=jnp.float32),
        enemy_valid,
    )

    # Create the energy board for units
    friendly_energy_board = jnp.zeros((24, 24), dtype=jnp.float32)
    safe_friendly_energies = jnp.where(friendly_valid, unit_energies[0].flatten(), 0)
    friendly_energy_board = scatter_update(
        friendly_energy_board,
        friendly_units,
        safe_friendly_energies,
        friendly_valid,
    )

    # Create enemy energy board for units
    enemy_energy_board = jnp.zeros((24, 24), dtype=jnp.float32)
    safe_enemy_energies = jnp.where(enemy_valid, unit_energies[1].flatten(), 0)
    enemy_energy_board = scatter_update(
        enemy_energy_board, enemy_units, safe_enemy_energies, enemy_valid
    )

    # Create relic board
    relic_board = jnp.zeros((24, 24), dtype=jnp.float32)

    relic_valid = jnp.logical_not(jnp.all(relic_positions == -1, axis=-1))
    relic_board = scatter_update(
        relic_board,
        relic_positions,
        jnp.ones(relic_positions.shape[0], dtype=jnp.float32),
        relic_valid,
    )

    # Obtain the vision board
    vision_board = jnp.where(tile_board == -1, 0, 1)

    # Use onehot encoding to find locations of other tiles
    tile_types = jax.nn.one_hot(tile_board, num_classes=4, dtype=jnp.float32)
    normal_tiles = tile_types[..., 0]
    nebula_tiles = tile_types[..., 1]
    asteroid_tiles = tile_types[..., 2]

    # Stack all boards
    board_state_tensor = jnp.stack(
        [
            friendly_unit_board,
            enemy_unit_board,
            friendly_energy_board,
            enemy_energy_board,
            relic_board,
            vision_board,
            normal_tiles,
            nebula_tiles,
            asteroid_tiles,
            energy_board,
        ],
    )
    return board_state_tensor[None, ...]


def get_relevant_info(obs, player):
    # Concatenate unit and energy per unit info
    player_unit_positions = jnp.array(obs["units"]["position"][player])

    unit_positions = jnp.array(obs["units"]["position"])
    unit_energies = jnp.array(obs["units"]["energy"]) / 100

    # Obtain Relic positions
    relic_positions = jnp.array(obs["relic_nodes"])

    # Get the board energies
    tile_board = jnp.array(obs["map_features"]["tile_type"])
    energy_board = jnp.array(obs["map_features"]["energy"])

    # num active units:
    valid_mask = player_unit_positions[:, 0] != -1
    num_active_units = jnp.asarray(
        player_unit_positions[valid_mask].shape[0], dtype=jnp.int32
    )

    return (
        unit_positions,
        player_unit_positions,
        unit_energies,
        relic_positions,
        tile_board,
        energy_board,
        num_active_units,
    )


class PPOAgent(nn.Module):

    @nn.compact
    def cnn_embedder(self, board_state_tensor):
        """Embeds the board state tensor into a 128-dimensional space."""
        x = board_state_tensor.transpose(0, 2, 3, 1)  # Add channel dimension
        x = nn.Conv(features=16, kernel_size=(3, 3), padding="SAME")(x)
        x = nn.relu(x)
        x = nn.max_pool(x, window_shape=(2, 2), strides=(2, 2), padding="VALID")
        x = nn.Conv(features=32, kernel_size=(3, 3), padding="SAME")(x)
        x = nn.relu(x)
        x = nn.max_pool(x, window_shape=(2, 2), strides=(2, 2), padding="VALID")
        x = x.reshape((x.shape[0], -1))  # Flatten
        x = nn.Dense(features=128)(x)
        board_embedding = nn.relu(x)
        # Somehow need to input the correct unit positions
        return board_embedding

    @nn.compact
    def critic(self, embedding):
        """Computes the value estimation."""
        x = nn.Dense(features=64)(embedding)
        x = nn.relu(x)
        value = nn.Dense(features=1)(x)
        return value

    @nn.compact
    def actor(self, embedding, player_unit_positions):
        board_embedding_broadcasted = jnp.broadcast_to(
            embedding, (player_unit_positions.shape[0], 128)
        )
        embedding = jnp.concat(
            [board_embedding_broadcasted, player_unit_positions], axis=-1
        )
        """Computes the action logits."""
        x = nn.Dense(features=64)(embedding)
        x = nn.relu(x)
        action_logits = nn.Dense(features=6)(x)
        return nn.softmax(action_logits)

    @nn.compact
    def __call__(self, player_unit_positions, board_state):
        """Forward pass of the PPO agent."""
        embedding = self.cnn_embedder(board_state)
        value = self.critic(embedding)
        action_probs = self.actor(embedding, player_unit_positions)
        return value, action_probs


def sample_action(key, move_probs, num_units):
    key, subkey = jax.random.split(key)

    existing_units = jnp.asarray(move_probs.shape[0], dtype=jnp.int32)
    final_moves = jnp.zeros((num_units, 3), dtype=jnp.int32)
    sampled_moves = random.categorical(key, logits=jnp.log(move_probs))
    final_moves = final_moves.at[:existing_units, 0].set(sampled_moves)
    final_moves = final_moves.at[final_moves[:, 0] == 6, 0].set(0)
    return final_moves


def calc_log_probs(move_probs, actions, num_units):

    sampled_actions = actions[:, 0]
    existing_units = move_probs.shape[0]
    output_log_probs = jnp.zeros(num_units, dtype=jnp.float32)

    if existing_units > 0:
        log_probs = jnp.log(move_probs + 1e-8)
        selected_log_probs = log_probs[jnp.arange(num_units), sampled_actions][
            :existing_units
        ]
        output_log_probs = output_log_probs.at[:existing_units].set(selected_log_probs)
    return output_log_probs


def dynamic_slice(
    player_unit_positions,
    board_state,
    num_active_units,
    actions,
    old_log_probs,
    advantages,
    returns,
    minibatch_size,
    batch_idx,
):

    player_unit_positions_batch = jax.lax.dynamic_slice(
        player_unit_positions,
        start_indices=(batch_idx, 0, 0),
        slice_sizes=(minibatch_size, 16, 2),
    )

    board_state_batch = jax.lax.dynamic_slice(
        board_state,
        start_indices=(batch_idx, 0, 0, 0, 0),
        slice_sizes=(minibatch_size, 1, 10, 24, 24),
    )

    num_active_units_batch = jax.lax.dynamic_slice(
        num_active_units,
        start_indices=(
            batch_idx,
            0,
        ),
        slice_sizes=(
            minibatch_size,
            1,
        ),
    )

    actions_batch = jax.lax.dynamic_slice(
        actions,
        start_indices=(batch_idx, 0, 0),
        slice_sizes=(minibatch_size, 16, 3),
    )

    old_log_probs_batch = jax.lax.dynamic_slice(
        old_log_probs,
        start_indices=(batch_idx, 0),
        slice_sizes=(minibatch_size, 16),
    )

    advantages_batch = jax.lax.dynamic_slice(
        advantages,
        start_indices=(batch_idx,),
        slice_sizes=(minibatch_size,),
    )

    returns_batch = jax.lax.dynamic_slice(
        returns,
        start_indices=(batch_idx,),
        slice_sizes=(minibatch_size,),
    )
    return (
        player_unit_positions_batch,
        board_state_batch,
        num_active_units_batch,
        actions_batch,
        old_log_probs_batch,
        advantages_batch,
        returns_batch,
    )


def calculate_reward(envobs) -> float:
    """
    Calculate the reward based on the environment observations.

    Parameters:
    envobs (EnvObs): An instance of EnvObs containing the environment observations.

    Returns:
    float: The calculated reward.
    """

    def process_relic_nodes(relic_nodes):
        """
        Process the relic nodes positions to calculate a reward component.

        Parameters:
        relic_nodes (chex.Array): Position of all relic nodes with shape (N, 2) for N max relic nodes and 2 features for position (x, y). Number is -1 if not visible.

        Returns:
        float: The reward component from the relic nodes positions.
        """
        # Example processing: count the number of visible relic nodes
        return sum(100 for node in relic_nodes if node[0] != -1 and node[1] != -1)

    # def process_units(units):
    #     """
    #     Process the units to calculate a reward component.

    #     Parameters:
    #     units (UnitState): The state of units in the environment.

    #     Returns:
    #     float: The reward component from the units.
    #     """
    #     # Example processing: sum the energy of all units
    #     return sum(unit[2] for team in units for unit in team)

    def process_team_points(team_points):
        """
        Process the team points to calculate a reward component.

        Parameters:
        team_points (chex.Array): The points of each team.

        Returns:
        float: The reward component from the team points.
        """

        # Example processing: sum the points of all teams
        return sum(team_points * 10)

    def process_map_features(map_features):
        """
        Process the map features to calculate a reward component.

        Parameters:
        map_features (chex.Array): The features of the map.

        Returns:
        float: The reward component from the map features.
        """
        energy = map_features["energy"]
        tile_type = map_features["tile_type"]
        # Example processing: sum the features of the map
        return sum(1 for row in tile_type for value in row if value > -1)

    # Define a list of reward processing functions
    reward_functions = [
        # process_units,
        process_team_points,
        process_map_features,
        process_relic_nodes,
    ]

    # Calculate the total reward by applying each function
    total_reward = sum(
        func(envobs[func.__name__.replace("process_", "")]) for func in reward_functions
    )

    return total_reward


class PPOLoss(nn.Module):
    epsilon: float = 0.2
    gamma: float = 0.99
    lambda_: float = 0.95
    c1: float = 0.5
    c2: float = 0.01
    minibatch_size: int = 10
    learning_rate: float = 0.001

    def __init__(self):
        self.optimizer = optax.adam(self.learning_rate)
        self.key = jax.random.PRNGKey(1480928)

    def __call__(self, params, trajectory, agent, key, opt_state):
        (
            player_unit_positions,
            board_state,
            num_active_units,
            actions,
            log_probs,
            advantages,
            returns,
        ) = (
            trajectory.player_unit_positions,
            trajectory.board_state,
            trajectory.num_active_units,
            trajectory.actions,
            trajectory.log_probs,
            trajectory.advantages,
            trajectory.returns,
        )

        num_samples = player_unit_positions.shape[0]
        perm = jax.random.permutation(key, num_samples)

        # Shuffle the data to obtain random batches
        shuffled_player_unit_positions = player_unit_positions[perm]
        shuffled_board_state = board_state[perm]
        shuffled_num_active_units = num_active_units[perm]
        shuffled_actions = actions[perm]
        shuffled_log_probs = log_probs[perm]
        shuffled_advantages = advantages[perm]
        shuffled_returns = returns[perm]

        def batch_update(carry, batch_idx):
            params, opt_state = carry
            (
                player_unit_positions_batch,
                board_state_batch,
                num_active_units_batch,
                actions_batch,
                old_log_probs_batch,
                advantages_batch,
                returns_batch,
            ) = dynamic_slice(
                player_unit_positions=shuffled_player_unit_positions,
                board_state=shuffled_board_state,
                num_active_units=shuffled_num_active_units,
                actions=shuffled_actions,
                old_log_probs=shuffled_log_probs,
                advantages=shuffled_advantages,
                returns=shuffled_returns,
                minibatch_size=self.minibatch_size,
                batch_idx=batch_idx,
            )

            loss, grads = value_and_grad(self.loss_fn)(
                params,
                agent,
                player_unit_positions_batch,
                board_state_batch,
                num_active_units_batch,
                actions_batch,
                old_log_probs_batch,
                advantages_batch,
                returns_batch,
            )
            updates, opt_state = self.optimizer.update(grads, opt_state)
            params = optax.apply_updates(params, updates)
            return (params, opt_state), loss

        (params, opt_state), losses = jax.lax.scan(
            lambda carry, batch_idx: batch_update(carry, batch_idx),
            (params, opt_state),
            jnp.arange(0, num_samples, self.minibatch_size),
        )
        return params, opt_state, jnp.mean(losses)

    def loss_fn(
        self,
        params,
        agent,
        player_unit_positions_batch,
        board_state_batch,
        num_active_units_batch,
        actions_batch,
        old_log_probs_batch,
        advantages_batch,
        returns_batch,
    ):

        def agent_call(carry, batch_idx):
            (
                player_unit_positions,
                board_state,
                _,
                _,
                _,
                _,
                _,
            ) = dynamic_slice(
                player_unit_positions=player_unit_positions_batch,
                board_state=board_state_batch,
                num_active_units=num_active_units_batch,
                actions=actions_batch,
                old_log_probs=old_log_probs_batch,
                advantages=advantages_batch,
                returns=returns_batch,
                minibatch_size=1,
                batch_idx=batch_idx,
            )

            new_value, new_move_probs = agent.apply(
                params,
                board_state=board_state.squeeze(0),
                player_unit_positions=player_unit_positions.squeeze(),
            )
            return carry, (new_value, new_move_probs)

        # Initialize carry as a tuple of zeros with the same shape as value and move_probs
        initial_carry = None

        # Run the scan over the batch
        carry, (values, move_probs) = jax.lax.scan(
            agent_call, initial_carry, jnp.arange(player_unit_positions_batch.shape[0])
        )

        # Get all new log probs
        action_indices = actions_batch[:, :, 0]
        chosen_move_probs = jnp.take_along_axis(
            move_probs, action_indices[..., None], axis=-1
        )
        chosen_move_probs = chosen_move_probs[..., 0]
        new_log_probs = jnp.log(chosen_move_probs)

        # Compute the actual values
        new_values = values.squeeze()

        # Not all units actually existed at prediction time so mask them out
        active_units_mask = (
            jnp.arange(old_log_probs_batch.shape[1])
            < num_active_units_batch.squeeze()[:, None]
        )
        ratio = jnp.exp(new_log_probs - old_log_probs_batch) * active_units_mask

        # Normalize the values such that only relevant units are used in the calculation
        normalized_ratio = normalized_ratio = (
            jnp.sum(ratio, axis=1) / num_active_units_batch.squeeze()
        )

        # Calculate the surrogate objectives
        clipped_ratio = jnp.clip(
            normalized_ratio, 1.0 - self.epsilon, 1.0 + self.epsilon
        )
        surrogate1 = normalized_ratio * advantages_batch
        surrogate2 = clipped_ratio * advantages_batch

        # Calculate the policy loss
        policy_loss = -jnp.mean(jnp.minimum(surrogate1, surrogate2))

        # Value loss
        value_loss = jnp.mean((returns_batch - new_values) ** 2)

        # Cross-entropy loss for action probabilities
        entropy = -jnp.sum(move_probs * jnp.log(move_probs + 1e-8), axis=-1)
        entropy_loss = jnp.mean(entropy)

        return policy_loss + self.c1 * value_loss + self.c2 * entropy_loss

    def calculate_advantage(self, trajectory):
        rewards = jnp.array(trajectory.rewards)
        values = jnp.array(trajectory.values)
        next_values = jnp.append(values[1:], 0)
        deltas = rewards + self.gamma * next_values - values
        advantages = jnp.zeros_like(rewards, dtype=jnp.float32)
        adv = 0
        for t in reversed(range(len(rewards))):
            adv = deltas[t] + self.gamma * self.lambda_ * adv
            advantages = advantages.at[t].set(adv)

        # Normalize advantages: subtract mean and divide by std (across the entire batch)
        advantages = (advantages - jnp.mean(advantages)) / (
            jnp.std(advantages) + 1e-8
        )  # Avoid division by zero
        returns = advantages + values
        return advantages, returns


@dataclass
class Trajectory:
    max_steps: int
    index: int = 0  # Tracks the current step

    player_unit_positions: jnp.ndarray = field(default_factory=lambda: jnp.array([]))
    board_state: jnp.ndarray = field(default_factory=lambda: jnp.array([]))
    num_active_units: jnp.ndarray = field(default_factory=lambda: jnp.array([]))
    actions: jnp.ndarray = field(default_factory=lambda: jnp.array([], dtype=jnp.int32))
    log_probs: jnp.ndarray = field(default_factory=lambda: jnp.array([]))
    rewards: jnp.ndarray = field(
        default_factory=lambda: jnp.array([], dtype=jnp.float32)
    )
    values: jnp.ndarray = field(
        default_factory=lambda: jnp.array([], dtype=jnp.float32)
    )
    advantages: jnp.ndarray = field(default_factory=lambda: jnp.array([]))
    returns: jnp.ndarray = field(default_factory=lambda: jnp.array([]))

    def __post_init__(self):
        """Initialize arrays with fixed preallocated size."""
        self.player_unit_positions = jnp.zeros((self.max_steps, 16, 2), dtype=jnp.int32)
        self.board_state = jnp.zeros((self.max_steps, 1, 10, 24, 24), dtype=jnp.float32)
        self.num_active_units = jnp.zeros((self.max_steps, 1), dtype=jnp.int32)
        self.actions = jnp.zeros((self.max_steps, 16, 3), dtype=jnp.int32)
        self.log_probs = jnp.zeros((self.max_steps, 16), jnp.float32)
        self.rewards = jnp.zeros(self.max_steps, dtype=jnp.int32)
        self.values = jnp.zeros(self.max_steps, dtype=jnp.float32)
        self.advantages = jnp.zeros(self.max_steps, dtype=jnp.float32)
        self.returns = jnp.zeros(self.max_steps, dtype=jnp.float32)

    def add_step(self, **kwargs):
        """
        Add new step data at the current index.
        Handles scalar values by converting them to arrays before concatenation.
        """
        if self.index >= self.max_steps:
            raise ValueError("Trajectory buffer is full!")

        for key, value in kwargs.items():
            if hasattr(self, key):
                current_attr = getattr(self, key)

                setattr(self, key, current_attr.at[self.index].set(value))
            else:
                raise ValueError(f"Invalid field name: {key}")
        self.index += 1  # Move to next index

    def reset(self):
        """Reset all fields to zero and reset index."""
        self.index = 0
        self.__post_init__()  # Reinitialize to zero


def init_agent(key):
    # Initialize the gameplay agent
    ppo_agent = PPOAgent()

    sample_player_unit_positions = jax.numpy.zeros((16, 2), dtype=jnp.int32)
    sample_board_state = jnp.zeros((1, 10, 24, 24), dtype=jnp.int32)
    params = ppo_agent.init(
        key,
        sample_player_unit_positions,
        sample_board_state,
    )
    return ppo_agent, params


def main(env, agent: PPOAgent, params, key):
    ppo_loss = PPOLoss()
    num_episodes = 2
    nr_updates = 2
    update_step = 10

    optimizer = optax.adam(learning_rate=3e-4)
    opt_state = optimizer.init(params=params)
    pbar = tqdm(total=101)
    trajectory = Trajectory(max_steps=update_step)

    for episode in range(num_episodes):
        obs, info = env.reset()
        done = False
        episode_reward = jnp.array(0, dtype=jnp.int32)
        trajectory.reset()
        episode_count = 0
        while not done:
            actions_dict = {}
            episode_count += 1
            for player in [0, 1]:
                if isinstance(obs, tuple):
                    obs = obs[0]
                if player == 1:
                    (
                        unit_positions,
                        player_unit_positions,
                        unit_energies,
                        relic_positions,
                        tile_board,
                        energy_board,
                        num_active_units,
                    ) = get_relevant_info(obs[f"player_{player}"], player)
                    board_state = preproces(
                        unit_positions=unit_positions,
                        unit_energies=unit_energies,
                        relic_positions=relic_positions,
                        tile_board=tile_board,
                        energy_board=energy_board,
                        player=player,
                    )
                    value, move_probs = agent.apply(
                        params,
                        board_state=board_state,
                        player_unit_positions=player_unit_positions,
                    )

                    # Save the correct values
                    traj_actions = sample_action(  # expect: JIT502
                        key=key,
                        move_probs=move_probs,
                        num_units=jnp.asarray(
                            unit_positions[0].shape[0], dtype=jnp.int32
                        ),
                    )
                    # Calculate and save the log proabilities
                    traj_log_probs = calc_log_probs(
                        move_probs=move_probs,
                        actions=traj_actions,
                        num_units=unit_positions[0].shape[0],
                    )
                    traj_value = jnp.asarray(value.item(), dtype=jnp.float32)
                else:
                    traj_actions = jnp.zeros((16, 3), dtype=jnp.int32)

                actions_dict[f"player_{player}"] = traj_actions

            (
                obs,
                state,
                reward,
                done,
                _,
            ) = env.step(actions_dict)

            # Obtain done state for one player only
            done = done["player_0"]

            # Obtain the reward
            episode_reward += calculate_reward(obs["player_1"])

            # Update the trajectory:
            trajectory.add_step(
                player_unit_positions=player_unit_positions,
                num_active_units=num_active_units,
                board_state=board_state,
                actions=traj_actions,
                log_probs=traj_log_probs,
                rewards=episode_reward,
                values=traj_value,
            )

            pbar.update(1)
            # Compute loss and update parameters after 101 steps
            if episode_count % update_step == 0:
                trajectory.advantages, trajectory.returns = (
                    ppo_loss.calculate_advantage(trajectory)
                )
                # Run the training loop a number of times
                for i in range(nr_updates):
                    params, opt_state, batch_loss = ppo_loss(  # expect: JIT502
                        params=params,
                        trajectory=trajectory,
                        agent=agent,
                        key=key,
                        opt_state=opt_state,
                    )
                    print(
                        f"Epoch: {episode} \n"
                        f"Update Loop: {i} \n"
                        f"Training Loss: {batch_loss}"
                    )
                trajectory.reset()  # Reset trajectory for next batch


class FakeLuxEnv:
    """Stand-in for src.luxai_s3.wrappers.LuxAIS3GymEnv(numpy_output=True)."""

    def __init__(self, episode_len=10, seed=0):
        self.episode_len = episode_len
        self.rs = np.random.RandomState(seed)
        self.t = 0

    def _obs(self):
        pos = self.rs.randint(0, 24, (2, 16, 2)).astype(np.int32)
        pos[:, 8:] = -1
        one = {
            "units": {"position": pos,
                      "energy": self.rs.randint(0, 100, (2, 16)).astype(np.int32)},
            "relic_nodes": np.full((6, 2), -1, dtype=np.int32),
            "map_features": {"tile_type": self.rs.randint(0, 3, (24, 24)).astype(np.int32),
                             "energy": self.rs.randint(0, 5, (24, 24)).astype(np.int32)},
            "team_points": np.zeros(2, dtype=np.int32),
        }
        return {"player_0": one, "player_1": one}

    def reset(self):
        self.t = 0
        return self._obs(), {}

    def step(self, actions):
        self.t += 1
        done = self.t >= self.episode_len
        return self._obs(), None, 0, {"player_0": done, "player_1": done}, {}


if __name__ == "__main__":
    import sys
    step_keys, update_keys = [], []
    _sample_action = sample_action

    def recording_sample_action(key, **kwargs):
        step_keys.append(np.asarray(key))
        return _sample_action(key=key, **kwargs)

    globals()["sample_action"] = recording_sample_action
    _ppo_call = PPOLoss.__call__

    def recording_call(self, params, trajectory, agent, key, opt_state):
        update_keys.append(np.asarray(key))
        return _ppo_call(self, params, trajectory, agent, key, opt_state)

    PPOLoss.__call__ = recording_call

    env = FakeLuxEnv()
    key = jax.random.PRNGKey(2504)
    agent, params = init_agent(key=key)
    main(env, agent, params, key)

    assert len(step_keys) == 20 and all((k == step_keys[0]).all() for k in step_keys)
    assert len(update_keys) == 4 and all((k == update_keys[0]).all() for k in update_keys)
    perms = {tuple(np.asarray(jax.random.permutation(k, 10)).tolist()) for k in update_keys}
    assert len(perms) == 1
    print(f"line 697: {len(step_keys)} env steps all sampled with the same key", file=sys.stderr)
    print(f"line 749: {len(update_keys)} PPO updates all shuffled with the same permutation", file=sys.stderr)
