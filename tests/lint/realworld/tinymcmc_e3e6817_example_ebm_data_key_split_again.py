# source: https://github.com/MatthewQuenneville/tinymcmc/blob/e3e6817ce5b2904fa47145b96768c5a66e406848/examples/example_ebm.py
#   (the example script of a small MCMC library: an energy-based model trained with MALA
#   samples on a four-component Gaussian mixture)
# observed on jax 0.10.2 CPU: the dataset splits `key` into key, key_normal, key_choice,
#   then draws the Gaussian noise with `key` itself (not key_normal) and later splits that
#   same `key` again for the model parameters: a consumed key is reused, so the keys of the
#   parameters, the initial samples and every training step descend from the key whose
#   normal draw is the data. With the file's typed key and `jax_debug_key_reuse` on, the
#   split raises KeyReuseError "Previously-consumed key passed to random_split" (__main__).
# gap: other
# added: `tinymcmc.step_mala` copied from tinymcmc/tinymcmc.py at the same commit (docstring
#   dropped) behind a `types.SimpleNamespace`, since the package is not installed; the
#   training loop runs 3 iterations instead of 5000 and without tqdm; the plotting
#   function and its call (matplotlib) are left out.
import types

import jax.random as jrandom
import jax.numpy as jnp
import jax
from flax import linen as nn
import optax
import numpy as np
from functools import partial


@partial(jax.jit, static_argnames=('E_dist', 'metropolize'))
def step_mala(key, E_dist, samples, proposal_std,
              bounds = (-jnp.inf, jnp.inf), metropolize = True,
              noise_scale = 1.0):
    E_grad = jax.vmap(jax.grad(E_dist))

    key_step, key_accept = jrandom.split(key, 2)

    proposal = samples
    proposal = proposal - 0.5*proposal_std**2*E_grad(samples)
    proposal = proposal + noise_scale * \
        jrandom.normal(key_step, shape=samples.shape)*proposal_std

    def E_q(xp, x):
        return 1/2/proposal_std**2*jnp.einsum('i...->i',(xp-x+0.5*proposal_std**2*E_grad(x))**2)

    # Metropolis-Hastings acceptance/Rejection
    if metropolize:
        log_alpha = E_dist(samples) - E_dist(proposal) - (E_q(samples, proposal) - E_q(proposal, samples))
        alpha = jnp.exp(jnp.minimum(log_alpha,0.))
        accept = jrandom.uniform(key_accept, minval=0, maxval=1, shape = alpha.shape)<alpha
    else:
        accept = jnp.ones(samples.shape[0], dtype=bool)

    # Enforce bound constraints
    out_of_bounds = jnp.logical_or(proposal>bounds[1],
                                   proposal<bounds[0])
    for i in samples.shape[1:]:
        out_of_bounds = jnp.any(out_of_bounds, axis=-1)

    accept = jnp.where(out_of_bounds, False, accept)
    for i in samples.shape[1:]:
        accept = jnp.repeat(accept[...,jnp.newaxis], i, axis=-1)
    samples = jnp.where(accept, proposal, samples)
    return samples


tinymcmc = types.SimpleNamespace(step_mala=step_mala)

# Generate dataset
n_data = 10000
key = jrandom.key(0)

key, key_normal, key_choice = jrandom.split(key, 3)
data = jrandom.normal(key, shape=(n_data,2)) \
    + jrandom.choice(key_choice, 
                     jnp.array([[-5.,-5.],[-5.,5.],[5., 5.],[5.,-5.]]),
                     shape=(n_data,),
                     p=jnp.array([0.1, 0.2, 0.3, 0.4]))

# Initialize model
n_hidden = 5
hidden_size = 25

class MLP(nn.Module):
    hidden_size: int
    n_hidden: int

    @nn.compact
    def __call__(self, x):
        for i in range(self.n_hidden):
            x = nn.Dense(self.hidden_size)(x)
            x = nn.swish(x)
        x = nn.Dense(1,use_bias=False)(x)
        return x

model = MLP(hidden_size=hidden_size, n_hidden=n_hidden)
key, key_params = jrandom.split(key,2)  # expect: JIT502
params = model.init(key_params, jnp.ones([1, 2]))

# Initialize samples
bounds = (-15,15)
batch_size = 100

key, key_sample = jrandom.split(key,2)
samples = jrandom.uniform(key_sample, shape=(batch_size, 2), minval=bounds[0], maxval=bounds[1])

# Define training and sampling update
@jax.jit
def get_train_grads(params, data_batch, sample_batch):
    def loss_fn(p):
        return jnp.mean(model.apply(p, data_batch)) \
            - jnp.mean(model.apply(p, sample_batch))
    grad_loss = jax.grad(loss_fn)
    grads = grad_loss(params)
    return grads

@partial(jax.jit, static_argnames=('n_steps'))
def sampling_step(params, samples, key, step_size=0.1, n_steps=10):
    for i in range(n_steps):
        key, key_step = jrandom.split(key, 2)
        samples = tinymcmc.step_mala(
            key_step, 
            lambda x: model.apply(params, x)[0],
            samples,
            step_size, bounds=bounds, metropolize=False)
    return samples

# Initialize and train optimizer
learning_rate = 0.00005
optimizer = optax.adam(learning_rate)
opt_state = optimizer.init(params)

for i in range(3):
    key, key_sample, key_batch, key_tempering = jrandom.split(key, 4)
    samples = sampling_step(params, samples, key_sample)
    data_batch = data[jrandom.choice(key_batch, n_data, shape=(batch_size,), replace=False)]
    grads = get_train_grads(params, data_batch, samples)
    updates, opt_state = optimizer.update(grads, opt_state)
    params = optax.apply_updates(params, updates)


if __name__ == "__main__":
    assert bool(jnp.all(jnp.isfinite(samples)))
    jax.config.update("jax_debug_key_reuse", True)
    k = jrandom.key(0)
    k, k_normal, k_choice = jrandom.split(k, 3)
    jrandom.normal(k, shape=(n_data, 2))
    try:
        jrandom.split(k, 2)  # tolerate: JIT502
        raise AssertionError("the reused key was not detected")
    except jax.errors.KeyReuseError as e:
        # observed: line 93 splits the key whose normal draw is the dataset's noise
        assert str(e).startswith("Previously-consumed key passed to random_split"), e
