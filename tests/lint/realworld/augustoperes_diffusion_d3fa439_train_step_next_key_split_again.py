# source: https://github.com/AugustoPeres/diffusion/blob/d3fa439b1762fb0ed2ec57fa2d3019cad8f35a07/diffusion/training.py
# observed on jax 0.10.2 CPU: model_training_step hands `key` to batch_loss, which splits it
#   into one key per example, and then derives the next step's key with jr.split(key, 1)[0]
#   from the same, already consumed key. split(key, 1)[0] is split(key, B)[0], so the next
#   step's key is the key example 0 of this step already used, and the next step's examples
#   0-2 get exactly the noise, model and timestep keys example 0 of this step drew from
#   (JAX's key-reuse checker raises KeyReuseError at the second split).
# gap: other
# observed: line 66 the key returned for the next step equals jr.split(key, B)[0], the key batch_loss gave example 0; the next step's per-example keys 0-2 equal this step's example-0 noise/model/t keys
# Kept: training.py as written. Added: a small stand-in for the repo's equinox UNet
#   (diffusion/models.py, called as model(t=t, y=..., key=...)), a stand-in alpha schedule and
#   data, and the __main__ block.
"""Model training functions"""
import os
import functools

import jax
import jax.numpy as jnp
import jax.random as jr

import optax

import equinox as eqx


@eqx.filter_jit
def add_noise_to_image(alphas, example, t, key):
    alpha_t = alphas[t]
    noise = jr.normal(key=key, shape=example.shape)
    return jnp.sqrt(alpha_t) * example + jnp.sqrt(1 - alpha_t) * noise, noise


@eqx.filter_jit
def single_example_loss(model, t_min, t_max, alphas, example, key):
    """
    Args:
      model: The mode to be trained
      t_min: minimum time_step
      t_max: max time_step
      alphas: List with the values of alpha_tilde_t
      example: A sample from the dataset
    """
    noise_key, model_key, t_key = jr.split(key, 3)
    t = jr.choice(a=jnp.array(range(t_min, t_max)), shape=(), key=t_key)
    model_input, noise = add_noise_to_image(alphas, example, t, noise_key)
    noise_prediction = model(t=t, y=model_input, key=model_key)
    return jnp.mean((noise - noise_prediction)**2)


@eqx.filter_jit
def batch_loss(model, t_min, t_max, alphas, batch, key):
    keys = jr.split(key, batch.shape[0])
    loss_fn = functools.partial(single_example_loss, model, t_min, t_max,
                                jnp.array(alphas))
    loss_fn = jax.vmap(loss_fn)
    return jnp.mean(loss_fn(batch, keys))


@eqx.filter_jit
def model_training_step(model, t_min, t_max, alphas, batch, key,
                        optimizer_state, optimizer):
    loss, grads = eqx.filter_value_and_grad(batch_loss)(model, t_min, t_max,
                                                        alphas, batch, key)
    updates, optimizer_state = optimizer.update(grads, optimizer_state)
    model = eqx.apply_updates(model, updates)
    key = jr.split(key, 1)[0]  # expect: JIT502
    return loss, model, key, optimizer_state


def train_model(model,
                t_min,
                t_max,
                alphas,
                dataloader,
                key,
                learning_rate,
                num_steps,
                accumulate_batches,
                log_frequency=50,
                output_dir=None,
                model_logging_frequency=100):
    optimizer = optax.adam(learning_rate)
    if accumulate_batches > 1:
        optimizer = optax.MultiSteps(optimizer,
                                     every_k_schedule=accumulate_batches)
    optimizer_state = optimizer.init(eqx.filter(model, eqx.is_inexact_array))

    for i, batch in zip(range(num_steps), dataloader):
        loss, model, key, optimizer_state = model_training_step(
            model, t_min, t_max, alphas, batch, key, optimizer_state,
            optimizer)

        if i % log_frequency == 0:
            print(f'loss at step {i} = {loss}')

        if output_dir is not None:
            if i % model_logging_frequency == 0:
                eqx.tree_serialise_leaves(
                    os.path.join(output_dir, f'model_step_{i}.eqx'), model)
                print(f'saving model at step {i} with loss {loss}')

    return model


# stand-in for the repo's UNet (diffusion/models.py): same call signature
class TinyDenoiser(eqx.Module):
    lin: eqx.nn.Linear

    def __init__(self, dim, key):
        self.lin = eqx.nn.Linear(dim + 1, dim, key=key)

    def __call__(self, t, y, key=None):
        return self.lin(jnp.concatenate([y, jnp.atleast_1d(t).astype(y.dtype)]))


if __name__ == "__main__":
    import numpy as np

    B, D, T = 4, 8, 10
    model = TinyDenoiser(D, jr.PRNGKey(1))
    alphas = list(np.linspace(0.99, 0.1, T))
    batch = jnp.asarray(np.random.default_rng(0).normal(size=(B, D)), jnp.float32)
    optimizer = optax.adam(1e-3)
    opt_state = optimizer.init(eqx.filter(model, eqx.is_inexact_array))

    key = jr.PRNGKey(0)
    loss, model2, next_key, _ = model_training_step(
        model, 0, T, alphas, batch, key, opt_state, optimizer)
    per_example = jr.split(key, B)          # what batch_loss gave each example  # tolerate: JIT502
    ex0_subkeys = jr.split(per_example[0], 3)   # example 0's noise, model, t keys
    next_per_example = jr.split(next_key, B)    # next step's per-example keys
    print("line 66: next key", np.asarray(next_key), "== example-0 key", np.asarray(per_example[0]))
    assert np.array_equal(np.asarray(next_key), np.asarray(per_example[0]))
    assert np.array_equal(np.asarray(next_per_example[:3]), np.asarray(ex0_subkeys))
    print("line 66: next step's example keys 0-2 are this step's example-0 noise/model/t keys")
    train_model(model, 0, T, alphas, [batch] * 3, jr.PRNGKey(0), 1e-3, 3, 1)
