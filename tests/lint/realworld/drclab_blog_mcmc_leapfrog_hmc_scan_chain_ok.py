# source: https://github.com/drclab/drclab.github.io/blob/28eedac2d456e16cc5ef284e8c1521a78b697942/content/ipynb/MCMC_Leapfrog.ipynb (a lab blog's notebook: HMC with a jitted leapfrog trajectory, a jitted HMC step and a scanned chain on a correlated Gaussian)
# observed on jax 0.10.2 CPU: runs clean. leapfrog takes num_steps traced (lax.fori_loop with
#   a traced bound), hmc_step and run_chain take num_steps/num_samples as static_argnames, each
#   HMC step splits its own scan key into momentum and acceptance keys, and the chain compiles
#   once; acceptance rate about 0.99 and posterior mean near target_mean, as in the notebook.
# gap: other
# (added: the __main__ block; the notebook's version printout and its matplotlib cell left out)
import jax

import jax.numpy as jnp
import numpy as np

precision = jnp.array([[1.4, 0.6],
                       [0.6, 1.8]], dtype=jnp.float32)
target_mean = jnp.array([1.0, -1.0], dtype=jnp.float32)

def log_prob(position):
    """Log-density up to a constant for the correlated Gaussian."""
    centered = position - target_mean
    return -0.5 * centered @ (precision @ centered)

def potential_energy(position):
    return -log_prob(position)

grad_U = jax.grad(potential_energy)

print("Potential at the mean:", float(potential_energy(target_mean)))
print("Gradient at the mean:", grad_U(target_mean))

from functools import partial
from jax import lax, random, jit

@jit
def leapfrog(position, momentum, step_size, num_steps):
    """One leapfrog trajectory consisting of num_steps full updates."""
    momentum = momentum - 0.5 * step_size * grad_U(position)

    def body(_, state):
        q, p = state
        q = q + step_size * p
        p = p - step_size * grad_U(q)
        return q, p

    position, momentum = lax.fori_loop(
        0, num_steps - 1, body, (position, momentum)
    )
    position = position + step_size * momentum
    momentum = momentum - 0.5 * step_size * grad_U(position)

    return position, -momentum  # flip momentum to make trajectories reversible

test_q = jnp.array([3.0, 3.0], dtype=jnp.float32)
test_p = jnp.array([0.2, -0.4], dtype=jnp.float32)
proposal_q, proposal_p = leapfrog(test_q, test_p, 0.3, 5)
print("Proposed q:", proposal_q)
print("Proposed p:", proposal_p)

@partial(jit, static_argnames=("num_steps",))
def hmc_step(rng_key, position, step_size, num_steps):
    """Single HMC transition using fresh momentum."""
    key_momentum, key_accept = random.split(rng_key)
    momentum = random.normal(key_momentum, shape=position.shape)

    proposal_q, proposal_p = leapfrog(position, momentum, step_size, num_steps)

    current_U = potential_energy(position)
    current_K = 0.5 * jnp.dot(momentum, momentum)
    proposed_U = potential_energy(proposal_q)
    proposed_K = 0.5 * jnp.dot(proposal_p, proposal_p)

    log_accept = current_U + current_K - proposed_U - proposed_K
    accept_prob = jnp.minimum(1.0, jnp.exp(log_accept))

    next_position = lax.cond(
        random.uniform(key_accept) < accept_prob,
        lambda _: proposal_q,
        lambda _: position,
        operand=None,
    )

    return next_position, accept_prob

@partial(jit, static_argnames=("num_samples", "num_steps"))
def run_chain(rng_key, initial_position, num_samples, step_size, num_steps):
    def transition(position, key):
        next_position, accept_prob = hmc_step(key, position, step_size, num_steps)
        return next_position, (next_position, accept_prob)

    keys = random.split(rng_key, num_samples)
    final_position, (positions, accept_probs) = lax.scan(
        transition, initial_position, keys
    )
    return positions, accept_probs

num_samples = 2000
num_warmup = 500
step_size = 0.28
num_steps = 5

rng_key = random.PRNGKey(8)
initial_position = jnp.array([3.0, 3.0], dtype=jnp.float32)

trajectory, accept_probs = run_chain(
    rng_key, initial_position, num_samples, step_size, num_steps
)

samples = np.array(trajectory[num_warmup:])
accept_rate = float(np.array(accept_probs[num_warmup:]).mean())
posterior_mean = samples.mean(axis=0)
posterior_cov = np.cov(samples, rowvar=False)

print("Acceptance rate:", round(accept_rate, 3))
print("Posterior mean:", posterior_mean)
print("Posterior covariance:\\n", posterior_cov)


if __name__ == "__main__":
    assert accept_rate > 0.9, accept_rate
    assert np.allclose(posterior_mean, np.array([1.0, -1.0]), atol=0.2), posterior_mean
    assert run_chain._cache_size() == 1
    # a second chain with another step size reuses the compiled chain (step_size is traced)
    run_chain(random.PRNGKey(9), initial_position, num_samples, 0.25, num_steps)
    assert run_chain._cache_size() == 1
    # the draws of one chain are not all equal: every step has its own key
    assert len(np.unique(samples[:, 0])) > 100
