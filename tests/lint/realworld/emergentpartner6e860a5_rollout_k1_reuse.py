# source: https://github.com/selenashe/emergent_partner_grid/blob/6e860a5596bc80b4589aa0b81f28c50eb819d8a7/baselines/IPPO/test_ippo_rnn_overcooked_v2_ff_blind.py
# observed on jax 0.10.2 CPU: inside the scanned step_fn the key k1 is consumed three times (pi1.sample(seed=k1), jax.random.uniform(k1), jax.random.randint(k1, ...)); rand_val is exactly the uniform number that pi1.sample turned into the Gumbel noise of action 0, so the "randomness" coin and the partner's sampled action are coupled: with a uniform partner policy and AGENT_1_1_RANDOMNESS=0.5 the partner picks action 0 on ~8.6% of steps instead of 1/6
# gap: other
# observed: line 145 rand_val = uniform(k1) equals the uniform behind the Gumbel noise of action 0 in pi1.sample(seed=k1) (the __main__ block checks -log(-log(rand_val)) == that noise); over 4 rollouts of 300 steps with a uniform partner and randomness 0.5 the partner picks action 0 on 8% of steps (15.7% with an independent key)
# added: imports, stand-ins for the jaxmarl overcooked_v2 env (ToyGridEnv), for ActorCritic_ff (imported from ippo_ff_overcooked_v2 in the original: here a one-layer flax
#        module with zero kernel, i.e. a uniform policy) and for distrax.Categorical (same sampling as distrax: jax.random.categorical with shape (1,)); the hydra/wandb/h5py
#        main() is replaced by the __main__ block
import jax
import jax.numpy as jnp
import flax.linen as nn
from jax import lax
from jax.tree_util import tree_map


class Categorical:
    """Stand-in for distrax.Categorical (sample(seed=) draws jax.random.categorical with shape (1,) + batch)."""

    def __init__(self, logits):
        self.logits = logits

    def sample(self, seed):
        draws = jax.random.categorical(seed, self.logits, axis=-1, shape=(1,) + self.logits.shape[:-1])
        return draws[0]


class ActorCritic_ff(nn.Module):
    """Stand-in for ippo_ff_overcooked_v2.ActorCritic (uniform policy: zero kernel and bias)."""
    action_dim: int
    activation: str = "tanh"

    @nn.compact
    def __call__(self, x):
        logits = nn.Dense(self.action_dim, kernel_init=nn.initializers.zeros)(x)
        value = nn.Dense(1)(x)
        return Categorical(logits=logits), jnp.squeeze(value, axis=-1)


class _Discrete:
    def __init__(self, n):
        self.n = n


class _Box:
    def __init__(self, shape):
        self.shape = shape


class ToyGridEnv:
    """Stand-in for jaxmarl.make("overcooked_v2"): 5x5 grid, 3 channels, agent marked in channel 0."""
    H, W, C = 5, 5, 3

    def action_space(self, agent=None):
        return _Discrete(6)

    def observation_space(self, agent=None):
        return _Box((self.H, self.W, self.C))

    def _obs(self, pos):
        grid = jnp.zeros((self.H, self.W, self.C)).at[pos[0], pos[1], 0].set(1.0)
        return {"agent_0": grid, "agent_1": grid}

    def reset(self, key):
        pos = jax.random.randint(key, (2,), 0, self.H)
        state = {"pos": pos, "last_actions": jnp.zeros((2,), jnp.int32)}
        return self._obs(pos), state

    def step(self, key, state, actions):
        moves = jnp.array([[0, 1], [0, -1], [1, 0], [-1, 0], [0, 0], [0, 0]])
        pos = jnp.clip(state["pos"] + moves[actions["agent_0"]], 0, self.H - 1)
        state = {"pos": pos, "last_actions": jnp.stack([actions["agent_0"], actions["agent_1"]]).astype(jnp.int32)}
        reward = {"agent_0": jnp.float32(0.0), "agent_1": jnp.float32(0.0)}
        done = {"agent_0": False, "agent_1": False, "__all__": jnp.bool_(False)}
        return self._obs(pos), state, reward, done, {}


def crop_local_view(obs: jnp.ndarray, radius: int = 1, pad_val: float = 0.0):
    """Return an egocentric (2r+1)x(2r+1) crop around the agent.
       Areas outside the map are padded with `pad_val` (usually 0)."""
    h, w, c = obs.shape

    # agent is the only pixel with 1 in channel 0
    y, x = jnp.divmod(jnp.argmax(obs[..., 0].reshape(-1)), w)

    pad = radius
    obs_padded = jnp.pad(obs, ((pad, pad), (pad, pad), (0, 0)),
                         constant_values=pad_val)
    y, x = y + pad, x + pad
    return jax.lax.dynamic_slice(obs_padded,
                                 (y - radius, x - radius, 0),
                                 (2 * radius + 1, 2 * radius + 1, c))


def get_rollout(train_state, config, network2_params=None,  rnn_params=None, model1_params=None, model2_params=None, 
                AGENT_1_1_RANDOMNESS=1, AGENT_1_2_RANDOMNESS=1, 
                seed_num=0, layout_name=None):
    
    env = ToyGridEnv()  # jaxmarl.make(config["ENV_NAME"], **config["ENV_KWARGS"])
    network = ActorCritic_ff(env.action_space().n, activation=config["ACTIVATION"])
    network2 = ActorCritic_ff(env.action_space().n, activation="tanh")
    network3 = ActorCritic_ff(env.action_space().n, activation="tanh")

    key = jax.random.PRNGKey(seed_num)
    key, key_r, key_a = jax.random.split(key, 3)

    if rnn_params:
        network_params = rnn_params
    else:
        network_params = train_state.params

    obs, state = env.reset(key_r)
    last_done = jnp.zeros((1), dtype=bool) #<--
    model_status_1 = 0


    if network2_params:
         init_x = jnp.zeros(env.observation_space().shape)
         init_x = init_x.flatten()
         network2.init(key_a, init_x)   


    AGENT_0_COOLDOWN = 2
    carry_init = (key, state, obs, last_done)

    def step_fn(carry, _):
        key, st, obs, last_done_flag = carry
        key, k0, k1, ks = jax.random.split(key, 4)

        obs_cropped_0 = crop_local_view(obs["agent_0"], radius=0)
        obs_flat_0 = obs_cropped_0.flatten()[None]

        # pi0, _ = network.apply(network_params, obs["agent_0"])

        pi0, _ = network.apply(network_params, obs_flat_0)
        pi1, _ = network.apply(network_params, obs_flat_0)

        action_0 = pi0.sample(seed=k0).squeeze()


        obs1 = obs["agent_1"].flatten().reshape(1, *env.observation_space().shape)
        obs_flat = obs1.flatten()

        pi1, _ = network2.apply(network2_params, obs_flat)
        action_1 = pi1.sample(seed=k1).squeeze()

        rand_val      = jax.random.uniform(k1)  # expect: JIT502
        random_action = jax.random.randint(k1, (), 0, env.action_space().n)  # tolerate: JIT502
        action_1      = jax.lax.select(rand_val < AGENT_1_1_RANDOMNESS, action_1, random_action)


        obs, st, rw, dn, info = env.step(ks, st, {"agent_0": action_0, "agent_1": action_1})
        rw_val = rw['agent_0']
        partner_tuple = (AGENT_1_1_RANDOMNESS, AGENT_1_2_RANDOMNESS)
        return (key, st, obs, jnp.asarray([dn["__all__"]])), (st, rw_val, partner_tuple)


    T = int(config["ENV_KWARGS"]["max_steps"])
    (state_seq, reward_seq, partner_tuple_seq) = lax.scan(step_fn, carry_init, jnp.arange(T))[1]


    def serialise_state(state):
        state_dict = state.__dict__ if hasattr(state, '__dict__') else dict(state)
        state_dict = jax.device_get(state_dict)
        return tree_map(lambda x: x.tolist() if hasattr(x, "tolist") else x, state_dict)  # Convert to native

    state_seq = [jax.tree_util.tree_map(lambda x: x[i], state_seq) for i in range(T)]
    reward_seq = [jax.tree_util.tree_map(lambda x: x[i], reward_seq) for i in range(T)]
    partner_tuple_seq = [jax.tree_util.tree_map(lambda x: x[i], partner_tuple_seq) for i in range(T)]

    serialised_state_seq = [serialise_state(s) for s in state_seq]


    data_to_save = {
        "state_seq": serialised_state_seq,
        "rewards": [float(r) for r in reward_seq],
        "agent1_speed_seq": [[int(a), int(b)] for a, b in partner_tuple_seq],
    }

    artifact_basename = f"ff_rollout_data_seed_{seed_num}_layout_name_{layout_name}_speeds_{AGENT_1_1_RANDOMNESS}"

    return state_seq, reward_seq, data_to_save, artifact_basename


if __name__ == "__main__":
    config = {"ACTIVATION": "tanh", "ENV_KWARGS": {"max_steps": 300}}
    env = ToyGridEnv()
    net = ActorCritic_ff(env.action_space().n)
    params_mlp = net.init(jax.random.PRNGKey(1), jnp.zeros((1, 3)))           # agent 0 sees a 1x1x3 crop
    params_partner = net.init(jax.random.PRNGKey(2), jnp.zeros((5 * 5 * 3,)))  # agent 1 sees the full grid

    # 1) the coin rand_val is the same number the partner's sample turned into Gumbel noise
    key = jax.random.PRNGKey(0)
    key, key_r, key_a = jax.random.split(key, 3)
    key, k0, k1, ks = jax.random.split(key, 4)   # step 0 keys, as step_fn derives them
    rand_val = jax.random.uniform(k1)  # tolerate: JIT502
    gumbel_noise = jax.random.gumbel(k1, (1, env.action_space().n))  # tolerate: JIT502
    print("rand_val:", float(rand_val), " -log(-log(rand_val)):", float(-jnp.log(-jnp.log(rand_val))),
          " Gumbel noise of action 0 in pi1.sample(seed=k1):", float(gumbel_noise[0, 0]))
    assert jnp.allclose(-jnp.log(-jnp.log(rand_val)), gumbel_noise[0, 0])

    # 2) consequence in the rollout: uniform partner policy, 50% randomness
    counts = []
    for seed_num in range(4):
        state_seq, reward_seq, data, _ = get_rollout(
            None, config, network2_params=params_partner, rnn_params=params_mlp,
            AGENT_1_1_RANDOMNESS=0.5, AGENT_1_2_RANDOMNESS=6, seed_num=seed_num)
        a1 = jnp.array([s["last_actions"][1] for s in state_seq])
        counts.append(float((a1 == 0).mean()))
    freq = sum(counts) / len(counts)
    print("fraction of steps the partner picks action 0:", round(freq, 3), "(independent keys: 1/6 = 0.167)")
    assert freq < 0.12, freq
