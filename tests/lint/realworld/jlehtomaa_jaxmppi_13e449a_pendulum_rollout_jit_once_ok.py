# source: https://github.com/jlehtomaa/JAX_MPPI/blob/13e449a53643a13d3a1367f97e986bc47eb243a6/src/mppi.py (with src/rollout.py, main.py and config/pendulum.yaml at the same commit)
# observed on jax 0.10.2 CPU: runs correctly under jit. The vectorised pendulum rollout is
#   built once in MPPI.__init__ (`jax.jit(jax.vmap(rollout_fn, in_axes=(None, 0)))`), and
#   every control step calls it with new NumPy observations and noisy action sequences of
#   the same shapes, so it compiles once for the whole episode; the action noise is drawn on
#   the host with np.random outside the traced code (fresh each step), and the environment
#   parameters it closes over never change. Its rollouts equal those computed without jit.
#   Kept: src/rollout.py (its long module docstring about Pendulum-v0 left out) and
#   src/mppi.py as written, merged into one file (the `from src.rollout import ...` line
#   dropped). Added: the config of config/pendulum.yaml as a dict (read_config loads that
#   YAML), a small NumPy stand-in for gym's Pendulum-v0 (gym is not installed), a shorter
#   episode, and the __main__ block following main.py.
# gap: per-call-recompile
import numpy as np
from functools import partial
import jax
import jax.numpy as jnp
from typing import Iterable, Tuple


def angle2coords(angle: float) -> jnp.ndarray:
    """ Transforms an angle on a 2D plance to (x, y) coordinates.
    
    """
    return jnp.array([jnp.cos(angle), jnp.sin(angle)])


def coords2angle(coords: Iterable) -> jnp.ndarray:
    """ Transforms (x, y) coordinates into the corresponding vector angle.

    Arguments:
    ----------
    coords : iterable of length 2.
    
    """
    cos, sin = coords
    return jnp.arctan2(sin, cos)


def angle_normalize(x: float) -> float:
    """ Normalize an angle to the [-pi, pi] interval.

    From the Gym repository at :
    /gym/blob/master/gym/envs/classic_control/pendulum.py

    """
    return ((x + jnp.pi) % (2 * jnp.pi)) - jnp.pi


def step(
    obs: jnp.ndarray,
    act: jnp.ndarray,
    params: dict) -> Tuple[jnp.ndarray, float]:
    """ Take one step forward in the pendulum model.

    Follows the Pendulum-v0 model from OpenAI Gym.

    Arguments:
    ---------
    obs : jnp.ndarray of size (3,) The state observation
    act : jnp.ndarray of size (1,) The control input
    params : dict of environment parameters

    Output:
    -------
    newobs : jnp.ndarray of size (3,) New obs after applying act once.
    reward : float Instantaneus reward from the enviornment.
    
    """
    
    x, y, thdot = obs
    th = coords2angle((x, y))
    u = jnp.clip(act, -params["max_torque"], params["max_torque"])

    g = params["g"]
    l = params["l"]
    m = params["m"]
    dt = params["dt"]

    cost = angle_normalize(th) ** 2 + 0.1 * thdot ** 2 + 0.001 * (u ** 2)

    thdot += (3 * g / (2 * l) * jnp.sin(th) + 3.0 / (m * l ** 2) * u) * dt
    thdot = jnp.clip(thdot, -params["max_speed"], params["max_speed"])
    newth = th + thdot * dt

    newx, newy = angle2coords(newth)
    newobs = jnp.array([newx, newy, thdot])

    return newobs, -cost


def lax_wrapper_step(carry, input, params):
    """ Wrapper of a step function.

    This step is not strictly necessary, but makes using the jax.lax.scan
    easier in situations where the dynamics are, say, varying in time,
    or have random components that require the JAX PRNGKey. 

    See https://jax.readthedocs.io/en/latest/_autosummary/jax.lax.scan.html
    for more details.

    Arguments:
    ---------
    carry : tuple The item that lax carries (and accumulates) from one step
            to the next. Here, it only contains the current state.
    input : array The current control input.
    params : dict Parameters for the nominal environment model.

    Output:
    -------
    new_carry : tuple Updated carry value for the next iteration. Carry must
                have the same shape and dtype across all iterations.

    output : The outputs we want to track at each step over the scan loop.
    """
    state = carry[0]
    next_state, reward = step(state, input, params)

    new_carry = (next_state, )
    output = (next_state, reward)

    return new_carry, output


def make_vec_rollout_fn(model_step_fn, model_params):
    """ Build a vectorized call to the rollout function.
    """

    step_fn = partial(model_step_fn, params=model_params)

    def rollout_fn(obs, act_sequence):
        """
        Arguments:
        ---------
        obs : (obs_dim) - shaped array, starting state of sequence.
        act_sequence : (n_steps, act_dim) - shaped array.

        """
        carry = (obs, )
        _, obs_and_rews = jax.lax.scan(f=step_fn, init=carry, xs=act_sequence)

        return obs_and_rews

    # Vectorize the rollout_fn over the first dim of the action sequence.
    # That is, the act_sequence for func should have the following shape:
    # (n_samples, n_steps, act_dim).
    func = jax.jit(jax.vmap(rollout_fn, in_axes=(None, 0)))

    return func


class MPPI:
    """ JAX implementation of the MPPI algorithm.

    Williams et al. 2017,
    Information Theoretic MPC for Model-Based Reinforcement Learning    
    https://ieeexplore.ieee.org/document/7989202

    Some MPPI modifications based on Nagabandi et al. 2019,
    Deep Dynamics Models for Learning Dexterous Manipulation.
    https://github.com/google-research/pddm

    Much inspired by the MPPI implementation by Shunichi09, see
    https://github.com/Shunichi09/PythonLinearNonlinearControl

    Assume terminal cost phi(x) = 0.

    """
    def __init__(self, config):
        self.env_cfg = config["environment"]
        self.ctrl_cfg = config["controller"]
        
        self.temperature = self.ctrl_cfg["temperature"] # \lambda
        self.n_samples = self.ctrl_cfg["n_samples"]     # K
        self.n_timesteps = self.ctrl_cfg["n_timesteps"] # T
        self.noise_sigma = self.ctrl_cfg["noise_sigma"] # \Sigma

        self.act_dim = self.env_cfg["act_dim"]
        self.act_max = self.env_cfg["max_torque"]
        self.act_min = -self.env_cfg["max_torque"]
        
        self.rollout_fn = self._build_rollout_fn(lax_wrapper_step, self.env_cfg)
        self.reset()

    def reset(self):
        """Reset the previous control trajectory to zero (assumes that
        the action space is symmetric around zero)."""
        self.plan = np.zeros((self.n_timesteps, self.act_dim))

    def _build_rollout_fn(self, step_fn, env_params):
        """Construct the JAX rollout function.
        
        Arguments:
        ---------
        step_fn: a rollout function that takes as input the current state
                 of the system and a sequence of noisy control inputs
                 with shape (n_samples, n_timesteps, act_dim). 
        env_params: a dict of parameters consumed by the rollout fn.

        The resulting rollout function should return a (states, rewards) tuple, 
        where states has the shape (n_samples, n_timesteps, obs_dim), and
        rewards the shape (n_samples, n_timesteps, 1).
        """
        return make_vec_rollout_fn(step_fn, env_params)

    def _get_action_noise(self):
        """Get the additive noise applied to the nominal control trajectory."""

        noise = np.random.normal(size=(
            self.n_samples, self.n_timesteps, self.act_dim)) * self.noise_sigma

        return noise

    def get_action(self, obs):
        """ Determine the next optimal action.

        Uses https://github.com/Shunichi09/PythonLinearNonlinearControl ...
        controllers/mppi.py, based on
        Nagabandi et al. (2019). Deep Dynamics Models for Learning
        Dexterous Manipulation. arXiv:1909.11652.

        Arguments:
        ----------
        obs (np.ndarray) : the current state of the system

        Returns:
        --------
        act (np.ndarray): the next optimal control input
        
        """

        noise = self._get_action_noise()
        acts = self.plan + noise
        acts = np.clip(acts, self.act_min, self.act_max)

        _, rewards = self.rollout_fn(obs, acts) # (K, T, 1)

        # Stage costs from the environment.
        rewards = rewards.sum(axis=1).squeeze()  # (K,)
        exp_rewards = np.exp(self.temperature * (rewards - np.max(rewards)))
        denom = np.sum(exp_rewards) + 1e-10

        weighted_inputs = exp_rewards[:, np.newaxis, np.newaxis] * acts
        sol = np.sum(weighted_inputs, axis=0) / denom

        # Return the first element as an immediate input, and roll the next
        # actions forward by one position.
        self.plan[:-1] = sol[1:]
        self.plan[-1] = sol[-1]

        return sol[0]


# --- config/pendulum.yaml ---
config = {
    "environment": {"seed": 0, "max_speed": 8.0, "max_torque": 2.0, "dt": 0.05, "g": 10.0,
                    "m": 1.0, "l": 1.0, "obs_max": [1.0, 1.0, 8.0], "act_dim": 1, "obs_dim": 3},
    "controller": {"seed": 0, "temperature": 1, "n_timesteps": 20, "n_samples": 1000,
                   "noise_sigma": 0.9},
}


class PendulumEnv:  # stand-in for gym.make("Pendulum-v0"), the same dynamics in NumPy
    def __init__(self, seed=0):
        self.rng = np.random.default_rng(seed)

    def reset(self):
        self.state = np.array([np.pi, 0.0])  # hanging down, at rest
        return self._obs()

    def _obs(self):
        th, thdot = self.state
        return np.array([np.cos(th), np.sin(th), thdot])

    def step(self, u):
        th, thdot = self.state
        u = float(np.clip(u, -2.0, 2.0)[0])
        cost = (((th + np.pi) % (2 * np.pi)) - np.pi) ** 2 + 0.1 * thdot ** 2 + 0.001 * u ** 2
        thdot = np.clip(thdot + (3 * 10.0 / 2 * np.sin(th) + 3.0 * u) * 0.05, -8.0, 8.0)
        self.state = np.array([th + thdot * 0.05, thdot])
        return self._obs(), -cost, False, {}


if __name__ == "__main__":
    import jax

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, *a, **k: compiles.append(name) if name == "/jax/core/compile/backend_compile_duration" else None
    )
    np.random.seed(0)
    mppi = MPPI(config)
    env = PendulumEnv()

    mppi.reset()
    obs, done, rew = env.reset(), False, 0.
    n_compiles = None
    for t in range(150):
        act = mppi.get_action(obs.reshape((-1, 1)))
        obs, r, done, _ = env.step(act)
        rew += r
        if t == 0:
            n_compiles = len(compiles)
    assert len(compiles) == n_compiles, (n_compiles, len(compiles))
    print("return over 150 steps:", rew, "compilations after the first step:", len(compiles) - n_compiles)

    acts = np.clip(mppi.plan + mppi._get_action_noise(), mppi.act_min, mppi.act_max)
    jitted = mppi.rollout_fn(obs.reshape((-1, 1)), acts)
    with jax.disable_jit():
        eager = mppi.rollout_fn(obs.reshape((-1, 1)), acts)
    assert np.allclose(jitted[1], eager[1], atol=1e-4)
    assert abs(np.cos(env.state[0]) - 1.0) < 0.2, env.state  # swung up
