# source: https://github.com/MatthewQuenneville/tinymcmc/blob/0f314ea11d9a17350ab270eb6c5633f0b954d752/tinymcmc/tinymcmc.py
#   (a hand-written MCMC package: step_hmc, one Hamiltonian Monte Carlo step, jitted with only
#   E_dist, L and metropolize static; its docstring offers perturb_step as an optional float)
# observed on jax 0.10.2 CPU: with the default perturb_step (a Python float bound inside the
#   function) the step runs, but passing perturb_step=0.1, as the docstring invites, makes it
#   a tracer of step_hmc's jit, and `perturb_step>=0 and perturb_step<1` in the assert raises
#   TracerBoolConversionError at the `and`.
# gap: other
# trimmed: the other samplers of the module (step_rwm, step_mala, step_exchange,
#   step_tempering) and step_hmc's docstring. Added: the __main__ block, which follows the
#   repository's examples/example_hmc.py (a standard normal, epsilon 0.5, L 3, 1000 samples)
#   and passes perturb_step=0.1.
import jax.numpy as jnp
import jax.random as jrandom
import jax
from functools import partial


@partial(jax.jit, static_argnames=('E_dist', 'L', 'metropolize'))
def step_hmc(key, E_dist, samples, epsilon, L, M=1.,
             bounds=(-jnp.inf, jnp.inf), perturb_step = 0.2, metropolize = True):
    key_step, key_perturb, key_accept = jrandom.split(key, 3)
    try:
        initial_momentum = jrandom.multivariate_normal(key_step,
                                                       mean=jnp.zeros(samples.shape[0]),
                                                       cov = M)
    except ValueError:
        initial_momentum = jrandom.normal(key_step, shape = samples.shape)*jnp.sqrt(M)

    E_grad = jax.vmap(jax.grad(E_dist))

    assert perturb_step>=0 and perturb_step<1  # expect: JIT103
    proposal = samples
    momentum = initial_momentum
    for i in range(L):
        step_size = epsilon*(1+perturb_step*jax.random.uniform(key_perturb))
        momentum = momentum - 0.5*step_size*E_grad(proposal)
        proposal = proposal + step_size*momentum/M
        momentum = momentum - 0.5*step_size*E_grad(proposal)

    # Metropolis-Hastings acceptance/rejection
    if metropolize:
        log_alpha = (E_dist(samples)+0.5*jnp.einsum('i...,...->i',initial_momentum**2,1/M)) \
            - (E_dist(proposal)+0.5*jnp.einsum('i...,...->i',momentum**2,1/M))
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


def minus_log_likelihood(x):
    return 0.5*x**2


if __name__ == "__main__":
    key = jax.random.key(1)
    key, key_init, key_step = jax.random.split(key, 3)
    samples = jax.random.uniform(key_init, (1000,), minval=-1, maxval=1)
    samples = step_hmc(key_step, minus_log_likelihood, samples, 0.5, 3, perturb_step=0.1)
