import jax
import jax.numpy as jnp
from jax.scipy.stats import norm


@jax.jit
def potential(theta, data):
    mu, log_sigma = theta
    sigma = jnp.exp(log_sigma)
    if sigma < 1e-3:  # expect: JIT101
        return jnp.inf
    return -jnp.sum(norm.logpdf(data, mu, sigma))


@jax.jit
def potential_ok(theta, data):
    mu, log_sigma = theta
    sigma = jnp.exp(log_sigma)
    lp = -jnp.sum(norm.logpdf(data, mu, sigma))
    return jnp.where(sigma < 1e-3, jnp.inf, lp)


def hmc_step(key, theta, data, step_size, n_leapfrog):
    grad_u = jax.grad(potential_ok)
    key, sub = jax.random.split(key)
    p = jax.random.normal(sub, jnp.shape(theta))
    for _ in range(n_leapfrog):
        p = p - 0.5 * step_size * grad_u(theta, data)
        theta = theta + step_size * p
    return key, theta
