# source: https://github.com/jeremiecoullon/jax_reading_group/blob/b70007642f077469493143890572f8a0c606ee79/vmap_pmap-March2021/mala.py
#   (a reading group's hand-written MALA sampler: a kernel jitted with the log posterior and
#   the dimension static, run by lax.scan over a carry that holds the key)
# observed on jax 0.10.2 CPU: runs clean; the scan body splits the carried key at every step
#   and the kernel splits its subkey into two fresh keys for the proposal and the accept
#   test, so no key is drawn from twice and every step proposes new noise (1688 distinct
#   values of the first coordinate over 2000 steps, acceptance 84%); the static log_post and
#   dim of the jitted kernel are hashable (a function and an int).
# gap: other
# changed: `from jax import random, partial, jit, lax` spelled with functools.partial (JAX no
#   longer exports partial). Added: a stand-in for util.progress_bar_scan_parallel (a tqdm bar
#   driven by jax.experimental.host_callback, which JAX has removed) that returns the step
#   unchanged, and the __main__ block, which samples a 3-d standard normal.
import numpy as onp

import jax.numpy as jnp
from jax import random, jit, lax
from functools import partial
import time


def progress_bar_scan_parallel(num_samples, num_chains):  # stand-in for util.progress_bar_scan_parallel
    return lambda func: func


@partial(jit, static_argnums=(3,6))
def mala_kernel(key, paramCurrent, paramGradCurrent, log_post, logpostCurrent, dt, dim):
    subkey1, subkey2 = random.split(key)
    paramProp = paramCurrent + dt*paramGradCurrent + jnp.sqrt(2*dt)*random.normal(key=subkey1, shape=(dim,))
    new_log_post, new_grad = log_post(paramProp)

    term1 = paramProp - paramCurrent - dt*paramGradCurrent
    term2 = paramCurrent - paramProp - dt*new_grad
    q_new = -0.25*(1/dt)*jnp.dot(term1, term1)
    q_current = -0.25*(1/dt)*jnp.dot(term2, term2)

    log_ratio = new_log_post - logpostCurrent + q_current - q_new
    acceptBool = jnp.log(random.uniform(key=subkey2)) < log_ratio
    paramCurrent = jnp.where(acceptBool, paramProp, paramCurrent)
    current_grad = jnp.where(acceptBool, new_grad, paramGradCurrent)
    current_log_post = jnp.where(acceptBool, new_log_post, logpostCurrent)
    accepts_add = jnp.where(acceptBool, 1,0)
    return paramCurrent, current_grad, current_log_post, accepts_add


def mala_sampler(key, num_samples, dt, val_and_grad_log_post, x_0, num_chains=1):
    dim, = x_0.shape

    @progress_bar_scan_parallel(num_samples, num_chains)
    def mala_step(carry, x):
        key, paramCurrent, gradCurrent, logpostCurrent, accepts = carry
        key, subkey = random.split(key)
        paramCurrent, gradCurrent, logpostCurrent, accepts_add = mala_kernel(subkey, paramCurrent, gradCurrent, val_and_grad_log_post, logpostCurrent, dt, dim)
        accepts += accepts_add
        return (key, paramCurrent, gradCurrent, logpostCurrent, accepts), (paramCurrent, gradCurrent)

    paramCurrent = x_0
    logpostCurrent, gradCurrent = val_and_grad_log_post(x_0)
    carry = (key, paramCurrent, gradCurrent, logpostCurrent, 0)
    (_, _, _, _, accepts), (samples, grads) = lax.scan(mala_step, carry, jnp.arange(num_samples))
    return samples, grads, 100*(accepts/num_samples)


if __name__ == "__main__":
    import jax

    val_and_grad_log_post = jax.value_and_grad(lambda x: -0.5 * jnp.sum(x ** 2))
    samples, grads, accept_rate = mala_sampler(random.PRNGKey(0), 2000, 0.5, val_and_grad_log_post, jnp.zeros(3))
    assert samples.shape == (2000, 3)
    assert 0 < float(accept_rate) <= 100
    assert len(onp.unique(onp.asarray(samples[:, 0]))) > 500
    assert abs(float(jnp.mean(samples))) < 0.2 and abs(float(jnp.var(samples)) - 1) < 0.3
