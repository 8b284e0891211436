# source: https://github.com/martiningram/jax-hmc/blob/a4e0b10ef37d7d1d12fb0e560fcf3168e4ac0e62/hmc.py
#   (a small Hamiltonian Monte Carlo library: jitted leapfrog and Metropolis steps taking the
#   gradient and log-posterior functions as static arguments, nested in two fori_loops)
# observed on jax 0.10.2 CPU: runs clean. The static arguments are function objects (hashable);
#   L travels in the loop carry, so the inner fori_loop gets a traced bound and becomes a
#   while_loop; the keys are split before every draw. (The position update uses `phi`, not the
#   half-step `phi_star`: an integrator slip, not a jit matter, left as written.)
#   Changed: jax.ops.index_update(x, i, v) -> x.at[i].set(v). Added: the __main__ block, with
#   the target and settings of the repository's notebook "JAX HMC.ipynb" (a correlated 2-D
#   normal, L=32, eps=0.01; 500 samples instead of 4000, and a diagonal M as this version takes).
# gap: other
import jax.numpy as jnp
from jax.random import PRNGKey, normal, split, uniform
from jax.lax import cond, fori_loop
from jax import jit
from functools import partial
from jax.scipy.stats import norm


@jit
def draw_phi(key, M):
    # M is assumed diagonal

    key, subkey = split(key)

    draw = normal(subkey, (M.shape[0],))
    phi = jnp.sqrt(M) * draw

    return key, phi


@partial(jit, static_argnums=4)
def leapfrog(theta, phi, M, eps, grad_fun):

    cur_grad = grad_fun(theta)

    phi_star = phi + 0.5 * eps * cur_grad
    theta = theta + eps * (phi / M)
    cur_grad = grad_fun(theta)
    phi_star = phi_star + 0.5 * eps * cur_grad

    return theta, phi_star


@partial(jit, static_argnums=6)
def metropolis_hastings(theta, theta_star, phi, phi_star, M, key, log_posterior):

    log_prob_phi_star = jnp.sum(
        norm.logpdf(phi_star, jnp.zeros_like(theta), jnp.sqrt(M))
    )
    log_prob_phi = jnp.sum(norm.logpdf(phi, jnp.zeros_like(theta), jnp.sqrt(M)))

    log_prob_theta = log_posterior(theta)
    log_prob_theta_star = log_posterior(theta_star)

    log_numerator = log_prob_theta_star + log_prob_phi_star
    log_denominator = log_prob_theta + log_prob_phi

    log_accept_prob = log_numerator - log_denominator

    accept_prob = jnp.exp(log_accept_prob)

    key, subkey = split(key)

    rand_draw = uniform(subkey)

    new_theta = cond(
        rand_draw < accept_prob, lambda _: theta_star, lambda _: theta, theta
    )

    return key, new_theta, accept_prob


@partial(jit, static_argnums=2)
def body_fun_leapfrog(i, val, grad_fun):

    theta_star, phi_star = leapfrog(
        val["theta"], val["phi"], val["M"], val["eps"], grad_fun
    )

    val["theta"] = theta_star
    val["phi"] = phi_star

    return val


@partial(jit, static_argnums=5)
def iterate_leapfrogs(theta, phi, eps, M, L, grad_fun):

    init_val = {"theta": theta, "phi": phi, "eps": eps, "M": M}

    to_iterate = lambda i, val: body_fun_leapfrog(i, val, grad_fun)

    final_res = fori_loop(0, L, to_iterate, init_val)

    return final_res["theta"], final_res["phi"]


@partial(jit, static_argnums=(2, 3))
def body_fun_sampling(i, val, grad_fun, log_posterior):

    key, phi = draw_phi(val["key"], val["M"])

    theta_star, phi_star = iterate_leapfrogs(
        val["theta"], phi, val["eps"], val["M"], val["L"], grad_fun
    )

    key, theta, accept_prob = metropolis_hastings(
        val["theta"], theta_star, phi, phi_star, val["M"], key, log_posterior
    )

    val["samples"] = val["samples"].at[i].set(theta)
    val['accept_probs'] = val['accept_probs'].at[i].set(accept_prob)
    val["theta"] = theta
    val["key"] = key

    return val


def draw_samples(init_theta, eps, M, L, key, n_samples, grad_fun, log_posterior):

    theta_dim = init_theta.shape[0]

    init_val = {
        "theta": init_theta,
        "eps": eps,
        "M": M,
        "key": key,
        "L": L,
        "samples": jnp.zeros((n_samples, theta_dim)),
        "accept_probs": jnp.zeros(n_samples)
    }

    to_iterate = lambda i, val: body_fun_sampling(i, val, grad_fun, log_posterior)

    final_res = fori_loop(0, n_samples, to_iterate, init_val)

    return final_res


if __name__ == "__main__":
    from jax import grad
    from jax.scipy.stats import multivariate_normal

    @jit
    def log_posterior(x):
        return multivariate_normal.logpdf(x, jnp.zeros_like(x), jnp.array([[1., 0.9],
                                                                           [0.9, 1.]]))

    grad_fun = jit(grad(log_posterior))
    theta_dim = 2
    M = jnp.ones(theta_dim)
    L = 32
    n_samples = 500
    eps = 0.01
    key = PRNGKey(2)
    final_result = draw_samples(jnp.zeros(theta_dim), eps, M, L, key, n_samples, grad_fun, log_posterior)
    samples = final_result["samples"]
    assert samples.shape == (n_samples, theta_dim)
    assert bool(jnp.all(jnp.isfinite(samples)))
    assert float(jnp.std(samples[:, 0])) > 0.0
