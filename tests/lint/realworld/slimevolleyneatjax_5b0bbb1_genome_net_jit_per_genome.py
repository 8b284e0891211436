# source: https://github.com/rs545837/SlimeVolley-NEAT-JAX/blob/5b0bbb19cccd1880e16408b4146a031e7d515550/main_jax.py
# observed on jax 0.10.2 CPU: `genome_to_jax_network` jits a fresh local `forward_fn` every time it
#   is called, and `eval_genomes` calls it for every genome of every generation, so each
#   evaluation compiles the network again, also for a genome NEAT carries unchanged into the next
#   generation (3 genomes over 2 generations: 6 compiles of forward_fn for 3 networks).
# gap: per-call-recompile
# added: stand-ins for neat-python (FeedForwardNetwork.create giving node_evals, a config with
#   input/output keys, three small genomes) and for gym's SlimeVolley-v0 (12 observations, an
#   episode of 4 steps); imports of neat/gym/slimevolleygym/imageio/matplotlib dropped. Left out:
#   render_best_genome, the reporter and run_neat (neat.Population drives eval_genomes once per
#   generation; the __main__ block does that for 2 generations).
import types

import jax
import jax.numpy as jnp
import numpy as np

# Set training parameters
POPULATION_SIZE = 128
MAX_ITER = 500000
TEST_INTERVAL = 5


# ---- stand-ins for neat-python and gym ----
class _FeedForwardNetwork:
    def __init__(self, node_evals):
        self.node_evals = node_evals

    @staticmethod
    def create(genome, config):
        return _FeedForwardNetwork(genome.node_evals)


neat = types.SimpleNamespace(nn=types.SimpleNamespace(FeedForwardNetwork=_FeedForwardNetwork))


class _Env:
    def reset(self):
        self.t = 0
        return np.linspace(0.0, 1.0, 12)

    def step(self, action):
        self.t += 1
        obs = np.linspace(0.0, 1.0, 12) * (1 + 0.1 * self.t)
        return obs, 0.0, self.t >= 4, {}

    def close(self):
        pass


gym = types.SimpleNamespace(make=lambda name: _Env())
# ---- end of stand-ins ----


def neat_activation_code(act_fn):
    if callable(act_fn):
        name = act_fn.__name__
        if 'sigmoid' in name:
            return 0
        elif 'tanh' in name:
            return 1
        elif 'relu' in name:
            return 2
        elif 'identity' in name or 'linear' in name:
            return 3
        else:
            raise ValueError(f"Unsupported activation function: {act_fn}")
    else:
        if act_fn == 'sigmoid':
            return 0
        elif act_fn == 'tanh':
            return 1
        elif act_fn == 'relu':
            return 2
        elif act_fn == 'identity':
            return 3
        else:
            raise ValueError(f"Unsupported activation function: {act_fn}")

def apply_activation(x, code):
    def do_sigmoid(x):
        return jax.nn.sigmoid(x)
    def do_tanh(x):
        return jax.nn.tanh(x)
    def do_relu(x):
        return jax.nn.relu(x)
    def do_identity(x):
        return x

    return jax.lax.switch(
        code,
        [do_sigmoid, do_tanh, do_relu, do_identity],
        x
    )

def genome_to_jax_network(genome, config):
    ff_net = neat.nn.FeedForwardNetwork.create(genome, config)
    node_evals = ff_net.node_evals
    input_keys = config.genome_config.input_keys
    output_keys = config.genome_config.output_keys

    idx_map = {}
    current_idx = 0
    for k in input_keys:
        idx_map[k] = current_idx
        current_idx += 1

    for o in output_keys:
        if o not in idx_map:
            idx_map[o] = current_idx
            current_idx += 1

    for node_id, _, _, _, _, _ in node_evals:
        if node_id not in idx_map:
            idx_map[node_id] = current_idx
            current_idx += 1

    for o in output_keys:
        if o not in idx_map:
            raise KeyError(f"Output key {o} not found.")

    num_evals = len(node_evals)
    b_list = []
    r_list = []
    a_list = []
    ni_list = []
    max_in_links = max(len(n[5]) for n in node_evals)
    idx_list = []
    w_list = []

    for i, (node_id, act_fn, agg_fn, bias, response, links) in enumerate(node_evals):
        b_list.append(bias)
        r_list.append(response)
        a_list.append(neat_activation_code(act_fn))
        ni_list.append(idx_map[node_id])

        link_ids = [idx_map[in_id] for (in_id, w) in links]
        link_ws = [w for (in_id, w) in links]

        padded_ids = link_ids + [-1]*(max_in_links - len(link_ids))
        padded_ws = link_ws + [0.0]*(max_in_links - len(link_ws))
        idx_list.append(padded_ids)
        w_list.append(padded_ws)

    biases_arr = jnp.array(b_list, dtype=jnp.float32)
    responses_arr = jnp.array(r_list, dtype=jnp.float32)
    activation_codes = jnp.array(a_list, dtype=jnp.int32)
    node_indices = jnp.array(ni_list, dtype=jnp.int32)
    agg_indices_arr = jnp.array(idx_list, dtype=jnp.int32)
    agg_weights_arr = jnp.array(w_list, dtype=jnp.float32)
    output_indices = jnp.array([idx_map[o] for o in output_keys], dtype=jnp.int32)
    num_inputs = len(input_keys)

    @jax.jit  # expect: JIT301
    def forward_fn(inputs):
        out_values = jnp.zeros(current_idx, dtype=jnp.float32)
        out_values = out_values.at[0:num_inputs].set(inputs)

        def compute_node(i, out_vals):
            node_idx = node_indices[i]
            valid_mask = (agg_indices_arr[i] >= 0)
            in_ids = jnp.where(valid_mask, agg_indices_arr[i], 0)
            wts = agg_weights_arr[i] * valid_mask.astype(jnp.float32)
            z = jnp.sum(out_vals[in_ids] * wts)
            z = z * responses_arr[i] + biases_arr[i]
            activated = apply_activation(z, activation_codes[i])
            out_vals = out_vals.at[node_idx].set(activated)
            return out_vals

        out_values = jax.lax.fori_loop(0, num_evals, compute_node, out_values)
        return out_values[output_indices]

    return forward_fn

def eval_genomes(genomes, config):
    env = gym.make("SlimeVolley-v0")
    for genome_id, genome in genomes:
        net = genome_to_jax_network(genome, config)
        total_reward = 0.0
        for episode in range(5):
            observation = env.reset()
            done = False
            episode_reward = 0.0
            while not done:
                obs_j = jnp.array(observation, dtype=jnp.float32)
                action_values = net(obs_j)
                move_left = np.clip(action_values[0], 0, 1)
                move_right = np.clip(action_values[1], 0, 1)
                jump = np.clip(action_values[2], 0, 1)
                action = [move_left, move_right, jump]

                observation, reward, done, info = env.step(action)

                ball_x, ball_y = observation[2], observation[3]
                agent_x, agent_y = observation[0], observation[1]
                following_reward = 0.5 * (1 - (agent_x - ball_x))
                vertical_proximity_reward = 10.0 * (1 - abs(agent_y - ball_y)) if ball_y > 0.5 else 0
                hit_ball_reward = 1000.0 if reward > 0 else 0.0
                lose_point_penalty = -10.0 if reward < 0 else 0.0
                jump_reward = 5.0 if jump > 0.5 and ball_y > 0.5 else 0.0
                right_side_preference = 1.0 if agent_x > 0.5 else 0.0

                combined_reward = (
                    reward * 2.0 +
                    following_reward +
                    vertical_proximity_reward +
                    hit_ball_reward +
                    lose_point_penalty +
                    jump_reward +
                    right_side_preference
                )
                episode_reward += combined_reward
            total_reward += episode_reward

        genome.fitness = total_reward / 5.0
    env.close()


def _genome(seed):  # stand-in genome: 12 inputs (-1..-12), 3 outputs (0, 1, 2), one hidden node (3)
    rng = np.random.default_rng(seed)
    hidden = (3, 'tanh', 'sum', 0.1, 1.0, [(-k, float(rng.normal())) for k in range(1, 13)])
    outputs = [(o, 'sigmoid', 'sum', 0.0, 1.0, [(3, float(rng.normal())), (-1, float(rng.normal()))]) for o in range(3)]
    return types.SimpleNamespace(node_evals=[hidden] + outputs, fitness=None)


if __name__ == "__main__":
    config = types.SimpleNamespace(genome_config=types.SimpleNamespace(
        input_keys=[-k for k in range(1, 13)], output_keys=[0, 1, 2]))
    genomes = [(i, _genome(i)) for i in range(3)]

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, secs, **kw: compiles.append(kw.get("fun_name"))
        if name == "/jax/core/compile/backend_compile_duration" else None)
    fitness = []
    for generation in range(2):  # what neat.Population.run does: eval_genomes once per generation
        eval_genomes(genomes, config)
        fitness.append([g.fitness for _, g in genomes])
    assert fitness[0] == fitness[1]
    # observed: line 154 compiles forward_fn again for every genome in every generation: 6
    #   compiles for 3 unchanged genomes over 2 generations
    n = sum(1 for f in compiles if f and "forward_fn" in f)
    assert n == 6, compiles
