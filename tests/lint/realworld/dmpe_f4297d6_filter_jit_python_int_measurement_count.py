# source: https://github.com/ExcitingSystems/DMPE/commit/f4297d638e3d1c0ed356022fb82165ce34f83cf0
#   (dev.ipynb at the parent commit ff9b3ace: cells 37-40, the excitation loop whose
#   recompilation the commit "fixed recompilation problems for optimization loop" fixes by
#   making start_n_measurments a jnp array; NeuralEulerODE from models.py, the KDE helpers
#   from density_estimation.py and JSDLoss from metrics.py at the same commit)
# observed on jax 0.10.2 CPU (equinox 0.13.8): loss_function is an eqx.filter_jit function
#   called through jax.grad, which hands the non-differentiated start_n_measurments to it
#   as the Python int the loop increments; filter_jit keeps Python ints static, so every
#   time step traces and compiles loss_function again ("Recompiling you idiot" is printed
#   once per time step, not once). Added: a pendulum stand-in for
#   exciting_environments' Pendulum-v0 (reset/step and the observation-space bounds), a
#   uniform stand-in for signals.aprbs, a key for it, n_time_steps = 2 (5_000 in the
#   notebook), the plotting branch of the loop and tqdm removed, and the __main__ block.
# gap: per-call-recompile
import contextlib
import io

import jax
import jax.nn as jnn
import jax.numpy as jnp
import equinox as eqx
import optax


# --- models.py ---
class MLP(eqx.Module):
    mlp: eqx.nn.MLP

    def __init__(self, obs_dim, action_dim, width_size, depth, *, key, **kwargs):
        super().__init__(**kwargs)
        self.mlp = eqx.nn.MLP(
            in_size=(obs_dim + action_dim),
            out_size=obs_dim,
            width_size=width_size,
            depth=depth,
            activation=jnn.leaky_relu,
            key=key,
        )

    def __call__(self, obs, action):
        obs_action = jnp.hstack([obs, action])
        return self.mlp(obs_action)


class NeuralEulerODE(eqx.Module):
    func: MLP

    def __init__(self, obs_dim, action_dim, width_size, depth, *, key, **kwargs):
        super().__init__(**kwargs)
        self.func = MLP(obs_dim, action_dim, width_size, depth, key=key)

    def __call__(self, obs, action, tau):
        next_obs = obs + tau * self.func(obs, action)
        return next_obs


# --- density_estimation.py ---
@jax.jit
def gaussian_kernel(x: jnp.ndarray, bandwidth: float) -> jnp.ndarray:
    data_dim = x.shape[-1]
    factor = bandwidth**data_dim * jnp.power(2 * jnp.pi, data_dim / 2)
    return 1 / factor * jnp.exp(- jnp.linalg.norm(x, axis=-1)**2 / (2*bandwidth**2))


@jax.jit
def update_kde_grid(
        kde_grid: jnp.ndarray,
        x_eval: jnp.ndarray,
        observation: jnp.ndarray,
        n_observations: int,
        bandwidth: float,
    ) -> jnp.ndarray:
    kernel_value = gaussian_kernel(
        x=x_eval - observation,
        bandwidth=bandwidth
    )
    return 1 / (n_observations + 1) * (n_observations * kde_grid + kernel_value[..., None])


@jax.jit
def update_kde_grid_multiple_observations(
        p_est: jnp.ndarray,
        x_eval: jnp.ndarray,
        observations: jnp.ndarray,
        n_observations: int,
        bandwidth: float
    ) -> jnp.ndarray:
    shifted_gaussian_kernel = lambda x, observation, bandwidth : gaussian_kernel(x - observation, bandwidth)
    new_sum_part = jax.vmap(shifted_gaussian_kernel, in_axes=(None, 0, None))(x_eval, observations, bandwidth)
    new_sum_part = jnp.sum(new_sum_part, axis=0)[..., None]
    p_est = 1 / (n_observations + observations.shape[0]) * (n_observations * p_est + new_sum_part)

    return p_est


# --- metrics.py ---
@jax.jit
def kullback_leibler_divergence(p: jnp.ndarray, q: jnp.ndarray):
    assert p.shape == q.shape, "The two inputs need to be of the same shape."
    assert p.shape[-1] == q.shape[-1] == 1, "Last dim needs to be of length 1 for PDFs"

    eps=1e-12

    kld = (p + eps) * jnp.log((p + eps)  / (q + eps))
    return jnp.sum(kld, axis=-2)


@jax.jit
def jensen_shannon_divergence(p: jnp.ndarray, q: jnp.ndarray):
    assert p.shape == q.shape, "The two inputs need to be of the same shape."
    assert p.shape[-1] == q.shape[-1] == 1, "Last dim needs to be of length 1 for PDFs"

    return (kullback_leibler_divergence(p, q) + kullback_leibler_divergence(q, p)) / 2


@jax.jit
def JSDLoss(p: jnp.ndarray, q: jnp.ndarray):
    """Reduce mapped JSD to loss value."""
    return jnp.mean(jensen_shannon_divergence(p, q))


# --- optimization_utils.py ---
@jax.jit
def soft_penalty(a, a_max=1):
    """Computes penalty for the given input. Assumes symmetry in all dimensions."""
    penalty = jnp.sum(jax.nn.relu(jnp.abs(a) - a_max), axis=(-2, -1))
    return jnp.squeeze(penalty)


# --- stand-ins (added) ---
class _Space:
    low = -1.0
    high = 1.0


class _PendulumStandIn:
    env_observation_space = _Space()

    def reset(self):
        obs = jnp.array([[0.5, 0.0]])
        return obs, obs

    def step(self, action, state):
        theta, omega = state[:, 0], state[:, 1]
        omega = omega + 1e-2 * (-jnp.sin(theta * jnp.pi) + action[:, 0])
        theta = theta + 1e-2 * omega
        obs = jnp.stack([theta, omega], axis=-1)
        return obs, None, None, None, obs


def aprbs(n_steps, batch_size, n_min, n_max, key):
    return jax.random.uniform(key, (batch_size, n_steps, 1), minval=-1.0, maxval=1.0)


env = _PendulumStandIn()
tau = 1e-2
batch_size = 1
model_key, data_key = jax.random.split(jax.random.PRNGKey(21))
model = NeuralEulerODE(obs_dim=2, action_dim=1, width_size=128, depth=3, key=model_key)


# --- dev.ipynb, cell 37 ---
@eqx.filter_jit
def simulate_ahead(
    model,  # typehint for the time being...
    n_steps: int,
    obs: jnp.ndarray,
    state: jnp.ndarray,
    actions: jnp.ndarray,
    tau
) -> jnp.ndarray:
    """Uses the given model to look ahead and simulate future observations."""

    obs_dim = obs.shape[0]
    observations = jnp.zeros([n_steps, obs_dim])
    observations = observations.at[0, :].set(obs)

    def body_fun(n, carry):
        obs, state, observations = carry

        action = actions[n-1, :]

        obs = model(obs, action, tau)

        # obs, _, _, _, state = step(action, state)
        observations = observations.at[n, :].set(obs)

        return (obs, state, observations)

    obs, state, observations = jax.lax.fori_loop(lower=1, upper=n_steps, body_fun=body_fun, init_val=(obs, state, observations))

    return observations

@eqx.filter_jit
def loss_function(
        actions,
        model,
        init_obs,
        init_state,
        n_steps,
        p_est,
        x,
        start_n_measurments,
        bandwidth,
        target_distribution
    ):

    print("Recompiling you idiot")  # tolerate: JIT203

    observations = simulate_ahead(
        model=model,
        n_steps=n_steps,
        obs=init_obs,
        state=init_state,
        actions=actions,
        tau = 1e-2
    )

    p_est = update_kde_grid_multiple_observations(p_est, x, observations, start_n_measurments, bandwidth)

    loss = JSDLoss(
        p=p_est,
        q=target_distribution
    )

    # TODO: pull this automatically, maybe penalty_kwargs or something
    rho_obs = 1e4
    rho_act = 1e4
    penalty_terms = rho_obs * soft_penalty(a=observations, a_max=1) + rho_act * soft_penalty(a=actions, a_max=1)

    return loss + penalty_terms


def optimize(
        grad_loss_function,
        proposed_actions,
        model,
        init_obs,
        init_state,
        n_steps,
        p_est,
        x,
        start_n_measurments,
        bandwidth,
        target_distribution
    ):

    solver = optax.adabelief(learning_rate=1e-1)
    opt_state = solver.init(proposed_actions)

    for iter in range(5):
        grad = grad_loss_function(  # expect: JIT301
            proposed_actions,
            model,
            init_obs,
            init_state,
            n_steps,
            p_est,
            x,
            start_n_measurments,
            bandwidth,
            target_distribution
        )
        updates, opt_state = solver.update(grad, opt_state, proposed_actions)
        proposed_actions = optax.apply_updates(proposed_actions, updates)

    return proposed_actions, 0


# --- cell 38 ---
x1, x2 = [
    jnp.linspace(env.env_observation_space.low, env.env_observation_space.high, 40),
    jnp.linspace(env.env_observation_space.low, env.env_observation_space.high, 40)
]

x = jnp.meshgrid(*[x1, x2])
x = jnp.stack([x for x in x], axis=-1)
x = x.reshape(-1, 2)
n_grid_points = x.shape[0]

start_n_measurments = 0

bandwidth = 0.05
p_est = jnp.zeros([n_grid_points, 1])

target_distribution = jnp.ones(shape=(n_grid_points, 1))
target_distribution *= 1 / (env.env_observation_space.high - env.env_observation_space.low)**2

n_prediction_steps = 10
n_time_steps = 2

# --- cell 39 ---
grad_loss_function = jax.grad(loss_function, argnums=(0))

# --- cell 40 ---
observations = []
actions = []

obs, state = env.reset()
obs = obs.astype(jnp.float32)[0, ...]
state = state.astype(jnp.float32)[0, ...]

proposed_actions = aprbs(n_prediction_steps, batch_size, 20, 50, data_key)[0, ...]

for k in range(n_time_steps):

    proposed_actions, final_loss = optimize(
        grad_loss_function=grad_loss_function,
        proposed_actions=proposed_actions,
        model=model,
        init_obs=obs,
        init_state=state,
        n_steps=n_prediction_steps,
        p_est=p_est,
        x=x,
        start_n_measurments=start_n_measurments,
        bandwidth=bandwidth,
        target_distribution=target_distribution
    )

    p_est = update_kde_grid(
        p_est,
        x,
        obs,
        k,
        bandwidth
    )
    start_n_measurments += 1

    action = proposed_actions[0, :]

    actions.append(action)
    observations.append(obs)

    obs, _, _, _, state = env.step(action[None, :], state[None, :])

    obs = jnp.squeeze(obs)
    state = jnp.squeeze(state)

    proposed_actions = proposed_actions.at[:-1, :].set(proposed_actions[1:, :])


if __name__ == "__main__":
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        for n in range(start_n_measurments, start_n_measurments + 3):
            optimize(grad_loss_function, proposed_actions, model, obs, state, n_prediction_steps,  # tolerate: JIT301
                     p_est, x, n, bandwidth, target_distribution)
    # observed: line 252 hands loss_function a new Python int on every time step; filter_jit
    #   keeps it static, so three further time steps trace loss_function three more times
    assert buf.getvalue().count("Recompiling you idiot") == 3, buf.getvalue()
