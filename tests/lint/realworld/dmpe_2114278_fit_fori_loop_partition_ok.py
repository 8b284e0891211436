# source: https://github.com/ExcitingSystems/DMPE/blob/211427875f2a5c637a062c8332d4828a9790caab/exciting_exciting_systems/algorithms/algorithms.py
#   (fit, after the commit "put the model training into a lax.fori_loop"; grad_loss,
#   make_step and load_single_batch from models/model_training.py, simulate_ahead from
#   models/model_utils.py and NeuralEulerODE from models/models.py at the same commit)
# observed on jax 0.10.2 CPU (equinox 0.13.8, optax): fit runs under eqx.filter_jit with
#   n_train_steps, sequence_length, tau, featurize and optim static; the model is split
#   with eqx.partition so only its arrays are carried through lax.fori_loop, the assert
#   compares the static halves (a Python bool), load_single_batch builds index slices with
#   jnp.linspace from traced starting points and a static num, and a second call with new
#   data and starting points reuses the compiled fit. Added: featurize_theta from the
#   dev notebook, random data, starting points and sizes, and the __main__ block.
# gap: exemption-vs-JAX
import jax
import jax.nn as jnn
import jax.numpy as jnp
import equinox as eqx
import optax


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


@eqx.filter_jit
def simulate_ahead(
    model: NeuralEulerODE,
    init_obs: jnp.ndarray,
    actions: jnp.ndarray,
    tau: float
) -> jnp.ndarray:
    def body_fun(carry, action):
        obs = carry
        obs = model(obs, action, tau)
        return obs, obs

    _, observations = jax.lax.scan(body_fun, init_obs, actions)
    observations = jnp.concatenate([init_obs[None, :], observations], axis=0)

    return observations


@eqx.filter_grad
def grad_loss(model, true_obs, actions, tau, featurize):

    pred_obs = jax.vmap(simulate_ahead, in_axes=(None, 0, 0, None))(model, true_obs[:, 0, :], actions, tau)

    feat_pred_obs = jax.vmap(featurize, in_axes=(0))(pred_obs)
    feat_true_obs = jax.vmap(featurize, in_axes=(0))(true_obs)

    return jnp.mean((feat_pred_obs - feat_true_obs) ** 2)


@eqx.filter_jit
def make_step(model, observations, actions, tau, opt_state, featurize, optim):
    grads = grad_loss(model, observations, actions, tau, featurize)
    updates, opt_state = optim.update(grads, opt_state)
    model = eqx.apply_updates(model, updates)
    return model, opt_state


@eqx.filter_jit
def load_single_batch(observations_array, actions_array, starting_points, sequence_length):

    slice = jnp.linspace(
            start=starting_points,
            stop=starting_points+sequence_length,
            num=sequence_length,
            dtype=int
        ).T

    batched_observations = observations_array[slice]
    batched_actions = actions_array[slice]

    batched_observations = batched_observations[:, :, :]
    batched_actions = batched_actions[:, :-1, :]
    return batched_observations, batched_actions


@eqx.filter_jit
def fit(
    model,
    n_train_steps,
    starting_points,
    sequence_length,
    observations,
    actions,
    tau,
    featurize,
    optim,
    init_opt_state
):
    """Fit the model on the gathered data."""

    dynamic_init_model_state, static_model_state = eqx.partition(model, eqx.is_array)
    init_carry = (dynamic_init_model_state, init_opt_state)

    def body_fun(i, carry):
        dynamic_model_state, opt_state = carry
        model_state = eqx.combine(static_model_state, dynamic_model_state)

        batched_observations, batched_actions = load_single_batch(
            observations, actions, starting_points[i, ...], sequence_length
        )
        new_model_state, new_opt_state = make_step(
            model_state,
            batched_observations,
            batched_actions,
            tau,
            opt_state,
            featurize,
            optim
        )

        new_dynamic_model_state, new_static_model_state = eqx.partition(new_model_state, eqx.is_array)
        assert eqx.tree_equal(static_model_state, new_static_model_state) is True
        return (new_dynamic_model_state, new_opt_state)

    final_dynamic_model_state, final_opt_state = jax.lax.fori_loop(lower=0, upper=n_train_steps,body_fun=body_fun, init_val=init_carry)
    final_model = eqx.combine(static_model_state, final_dynamic_model_state)
    return final_model, final_opt_state


def featurize_theta(obs):
    """The angle itself is difficult to properly """
    feat_obs = jnp.stack([jnp.sin(obs[..., 0] * jnp.pi), jnp.cos(obs[..., 0] * jnp.pi), obs[..., 1]], axis=-1)
    return feat_obs


if __name__ == "__main__":
    key = jax.random.PRNGKey(0)
    model_key, data_key, sp_key = jax.random.split(key, 3)
    model = NeuralEulerODE(obs_dim=2, action_dim=1, width_size=32, depth=2, key=model_key)
    optim = optax.adabelief(1e-3)
    opt_state = optim.init(eqx.filter(model, eqx.is_inexact_array))

    n_train_steps, sequence_length, batch_size, tau = 5, 10, 8, 1e-2
    traces = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, secs, **kw: traces.append(name) if name == "/jax/core/compile/jaxpr_trace_duration" else None
    )
    for rep in range(2):
        obs_key, act_key, sp_key = jax.random.split(jax.random.fold_in(data_key, rep), 3)
        observations = jax.random.uniform(obs_key, (100, 2), minval=-1.0, maxval=1.0)
        actions = jax.random.uniform(act_key, (100, 1), minval=-1.0, maxval=1.0)
        starting_points = jax.random.randint(sp_key, (n_train_steps, batch_size), 0, 100 - sequence_length)
        before = len(traces)
        model, opt_state = fit(
            model, n_train_steps, starting_points, sequence_length, observations, actions,
            tau, featurize_theta, optim, opt_state
        )
        if rep == 1:
            assert len(traces) == before, traces  # the second call reuses the compiled fit
    assert isinstance(model, NeuralEulerODE)
