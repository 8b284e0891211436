# source: https://github.com/RobertTLange/gymnax/commit/1b3b85d55e619594467a12c864bef235228a21aa
#   (gymnax/rollouts/replay_buffer.py before "Small fixes - key in learner_update, jit
#   init_buffer", which changed static_argnums=(0, 1, 2, 3) to static_argnums=(3))
# observed on jax 0.10.2 CPU: the notebook's `init_buffer(state, obs, action, capacity)`
#   raises TypeError: unhashable type: ArrayImpl, because the state,
#   obs and action templates are jax arrays marked static. replay_buffer.py is kept as it was;
#   jax.ops.index_update(x, jax.ops.index[i, :], v) is spelled x.at[i, :].set(v) (the
#   jax.ops API no longer exists). The driver is the notebook's "Replay Buffer Tryout" cells
#   (notebooks/rollout_wrappers.ipynb at the parent commit), with gymnax.make("Pendulum-v0")
#   replaced by the repository's pendulum reset/step of that time
#   (gymnax/environments/classic_control/pendulum.py), trimmed to what the cells use.
# gap: static-hashability
import jax
import jax.numpy as jnp
from jax import jit
from functools import partial


@partial(jit, static_argnums=(0, 1, 2, 3))
def init_buffer(state_template, obs_template, action_template, capacity):
    """ Initialize jnp arrays based on shape of obs and capacity. """
    # Get shape of obs, state, action from template arrays
    state_shape = list(state_template.shape)
    obs_shape = list(obs_template.shape)
    action_shape = list(action_template.shape)
    buffer = {}

    # Initialize buffers for s_t, s_t_1, o_t, o_t_1, a_t, r_t_1, done_t
    buffer["state"] = jnp.zeros([capacity] + state_shape)
    buffer["next_state"] = jnp.zeros([capacity] + state_shape)
    buffer["obs"] = jnp.zeros([capacity] + obs_shape)
    buffer["next_obs"] = jnp.zeros([capacity] + obs_shape)
    buffer["action"] = jnp.zeros([capacity] + action_shape)
    buffer["reward"] =jnp.zeros(capacity)
    buffer["done"] = jnp.zeros(capacity)

    # Use pointer in buffer to overwrite entries once buffer runs over
    buffer["capacity"] = capacity
    buffer["pointer"] = 0
    buffer["total_transitions"] = 0
    return buffer


@jax.jit
def push_to_buffer(buffer, step_experience):
    """ Store transition tuple data at step pointer location. """
    buffer["state"] = buffer["state"].at[buffer["pointer"], :].set(
                        step_experience["state"])
    buffer["next_state"] = buffer["next_state"].at[buffer["pointer"], :].set(
                        step_experience["next_state"])
    buffer["obs"] = buffer["obs"].at[buffer["pointer"], :].set(
                      step_experience["obs"])
    buffer["next_obs"] = buffer["next_obs"].at[buffer["pointer"], :].set(
                           step_experience["next_obs"])
    buffer["action"] = buffer["action"].at[buffer["pointer"], :].set(
                         step_experience["action"])
    buffer["reward"] = buffer["reward"].at[buffer["pointer"]].set(
                         step_experience["reward"])
    buffer["done"] = buffer["done"].at[buffer["pointer"]].set(
                        step_experience["done"])

    # Update the buffer pointer, reset once capacity is full - overwrite
    buffer["pointer"] += 1
    buffer["pointer"] = buffer["pointer"] % buffer["capacity"]
    buffer["total_transitions"] = jnp.minimum(buffer["total_transitions"]
                                              + 1, buffer["capacity"])
    return buffer


@partial(jit, static_argnums=(2,))
def sample_from_buffer(key, buffer, batch_size):
    """ Sample a batch from buffer: (idx, o_t, o_t_1, a_t, r_t_1, done_t) """
    sample_idx = jax.random.randint(key, shape=(batch_size, ),
                                    minval=0,
                                    maxval=buffer["total_transitions"])
    # TODO: Figure how to do sampling without replacement without
    # random.choice + jnp.arange since arange varies in shape = no jit
    #valid_idx = jnp.arange(start=0, stop=buffer["total_transitions"],
    #                       step=1)
    #sample_idx = jax.random.choice(key, valid_idx, shape=(batch_size, ),
    #                               replace=False)
    batch_out = {}
    batch_out["idx"] = sample_idx
    batch_out["obs"] = jnp.take(buffer["obs"], sample_idx, axis=0)
    batch_out["next_obs"] = jnp.take(buffer["next_obs"], sample_idx, axis=0)
    batch_out["action"] = jnp.take(buffer["action"], sample_idx, axis=0)
    batch_out["reward"] = jnp.take(buffer["reward"], sample_idx, axis=0)
    batch_out["done"] = jnp.take(buffer["done"], sample_idx, axis=0)
    return batch_out


# --- gymnax's Pendulum-v0 of the time (stand-in for gymnax.make("Pendulum-v0")) ---
params_pendulum = {"max_speed": 8,
                   "max_torque": 2.,
                   "dt": 0.05,
                   "g": 10.0,
                   "m": 1.,
                   "l": 1.,
                   "max_steps_in_episode": 200}


def step(rng_input, params, state, u):
    """ Integrate pendulum ODE and return transition. """
    th, thdot = state
    u = jnp.clip(u, -params["max_torque"], params["max_torque"])
    costs = angle_normalize(th) ** 2 + .1 * thdot ** 2 + .001 * (u ** 2)

    newthdot = thdot + (-3 * params["g"] /
                        (2 * params["l"]) * jnp.sin(th + jnp.pi) + 3. /
                        (params["m"] * params["l"] ** 2) * u) * params["dt"]
    newth = th + newthdot * params["dt"]
    newthdot = jnp.clip(newthdot, -params["max_speed"], params["max_speed"])

    state = jnp.array([newth, newthdot])
    return get_obs(state), state.squeeze(), -costs[0].squeeze(), False, {}


def reset(rng_input, params):
    """ Reset environment state by sampling theta, thetadot. """
    high = jnp.array([jnp.pi, 1])
    state = jax.random.uniform(rng_input, shape=(2,),
                               minval=-high, maxval=high)
    return get_obs(state), state


def get_obs(state):
    """ Return angle in polar coordinates and change. """
    th, thdot = state[0], state[1]
    return jnp.array([jnp.cos(th), jnp.sin(th), thdot]).squeeze()


def angle_normalize(x):
    """ Normalize the angle - radians. """
    return (((x+jnp.pi) % (2*jnp.pi)) - jnp.pi)


if __name__ == "__main__":
    rng, env_params = jax.random.PRNGKey(0), params_pendulum
    # Make a dummy step transition & store it in buffer
    rng, key_reset, key_step = jax.random.split(rng, 3)
    obs, state = reset(key_reset, env_params)
    action = jnp.array([1])
    next_obs, next_state, reward, done, _ = step(key_step, env_params,
                                                 state, action)

    capacity = 5
    # Initialize buffer with templates
    #buffer = ReplayBuffer(state, obs, action, capacity)
    buffer = init_buffer(state, obs, action, capacity)  # expect: JIT302
    step_experience = {"state": state,
                       "next_state": next_state,
                       "obs": obs,
                       "next_obs": next_obs,
                       "action": action,
                       "reward": reward,
                       "done": done}
    for i in range(10):
        buffer = push_to_buffer(buffer, step_experience)

    rng, key_sample = jax.random.split(rng)
    sample_from_buffer(key_sample, buffer, 3)
