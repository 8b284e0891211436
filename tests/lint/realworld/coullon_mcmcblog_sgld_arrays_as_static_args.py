# source: https://github.com/jeremiecoullon/jax_MCMC_blog_post/blob/688b181e589bca4f0d50c414e5a7f781d930d966/sgld_samplers.py
#   (the code of the blog post "MCMC in Jax with benchmarks: 3 ways to write a sampler": SGLD for
#   Bayesian logistic regression as a NumPy loop, a Python loop over a jitted kernel, and a scan)
# observed on jax 0.10.2 CPU: the dataset X and labels y_data are declared static
#   (static_argnums 4, 5 of sgld_kernel and 5, 6 of sgld_sampler_full_jax); jit must hash static
#   arguments, so every call with the arrays raises ValueError "Non-hashable static arguments are
#   not supported" (JAX of 2020 hashed them by id). The author's next commit (a2de18b) drops 4, 5
#   and 5, 6 from static_argnums.
#   Changed: `from jax import partial` -> `from functools import partial`. Added: genCovMat,
#   logistic, gen_data and build_batch_grad_log_post from the repository's
#   logistic_regression_model.py (at 779a442, the data the run_SGLD scripts feed the samplers;
#   with `jnp = np`, the name that file gives jax.numpy),
#   and the __main__ block, with a smaller experiment (N=1000, 200 samples).
# gap: static-hashability
import jax.numpy as np
from functools import partial
from jax import jit, vmap, grad, random, lax, ops
import numpy as onp
import time
from jax import value_and_grad
from jax.scipy.special import logsumexp
jnp = np


def genCovMat(key, d):
    return jnp.eye(d)


def logistic(theta, x):
    return 1/(1+jnp.exp(-jnp.dot(theta, x)))

batch_logistic = jit(vmap(logistic, in_axes=(None, 0)))
batch_benoulli = vmap(random.bernoulli, in_axes=(0, 0))

def gen_data(key, dim, N):
    """
    Generate data with dimension `dim` and `N` data points

    Parameters
    ----------
    key: uint32
        random key
    dim: int
        dimension of data
    N: int
        Size of dataset

    Returns
    -------
    theta_true: ndarray
        Theta array used to generate data
    X: ndarray
        Input data, shape=(N,dim)
    y_data: ndarray
        Output data: 0 or 1s. shape=(N,)
    """
    key, subkey1, subkey2, subkey3 = random.split(key, 4)
    print(f"generating data, with N={N} and dim={dim}")
    theta_true = random.normal(subkey1, shape=(dim, ))*jnp.sqrt(10)
    covX = genCovMat(subkey2, dim)
    X = jnp.dot(random.normal(subkey3, shape=(N,dim)), jnp.linalg.cholesky(covX))

    p_array = batch_logistic(theta_true, X)
    keys = random.split(key, N)
    y_data = batch_benoulli(keys, p_array).astype(jnp.int32)
    return theta_true, X, y_data

def build_batch_grad_log_post(X, y_data, N):
    """
    Builds grad_log_post that takes in minibatches X and y_data
    """
    @jit
    def loglikelihood(theta, x_val, y_val):
        return -logsumexp(jnp.array([0., (1.-2.*y_val)*jnp.dot(theta, x_val)]))

    @jit
    def log_prior(theta):
        return -(0.5/10)*jnp.dot(theta,theta)

    batch_loglik = jit(vmap(loglikelihood, in_axes=(None, 0,0)))

    def log_post(theta, X, y_data):
        return log_prior(theta) + N*jnp.mean(batch_loglik(theta, X, y_data), axis=0)

    grad_log_post = jit(grad(log_post))
    return grad_log_post


# 1. Pure python/numpy (except for the function `grad_log_post`)
def sgld_sampler_python(grad_log_post, num_samples, dt, x_0, X, y_data, minibatch_size, print_rate=500):
    N, dim = X.shape
    samples = onp.zeros((num_samples, dim))
    paramCurrent = x_0
    idx_batch = onp.random.choice(N, minibatch_size)
    current_grad = grad_log_post(paramCurrent, X[idx_batch], y_data[idx_batch])
    print(f"Python sampler:")
    for i in range(num_samples):
        idx_batch = onp.random.choice(N, minibatch_size)
        paramGradCurrent = grad_log_post(paramCurrent, X[idx_batch], y_data[idx_batch])
        paramCurrent = paramCurrent + dt*paramGradCurrent + onp.sqrt(2*dt)*onp.random.normal(size=(paramCurrent.shape))
        samples[i] = paramCurrent
        if i%print_rate==0:
            print(f"Iteration {i}/{num_samples}")
    return samples

# ============
# ============

# 2. Python loop with Jax kernel
@partial(jit, static_argnums=(2,3,4,5,6))
def sgld_kernel(key, param, grad_log_post, dt, X, y_data, minibatch_size):
    N, _ = X.shape
    key, subkey1, subkey2 = random.split(key, 3)
    idx_batch = random.choice(subkey1, N, shape=(minibatch_size,))
    paramGrad = grad_log_post(param, X[idx_batch], y_data[idx_batch])
    param = param + dt*paramGrad + np.sqrt(2*dt)*random.normal(key=subkey2, shape=(param.shape))
    return key, param


def sgld_sampler_jax_kernel(key, grad_log_post, num_samples, dt, x_0, X, y_data, minibatch_size, print_rate=500):
    dim, = x_0.shape
    samples = onp.zeros((num_samples, dim))
    param = x_0
    print(f"Python loop with Jax kernel")
    for i in range(num_samples):
        key, param = sgld_kernel(key, param, grad_log_post, dt, X, y_data, minibatch_size)  # expect: JIT302
        samples[i] = param
        if i%print_rate==0:
            print(f"Iteration {i}/{num_samples}")
    return samples

# ============
# ============

# 3. Pure Jax
@partial(jit, static_argnums=(1,2,3,5,6,7))
def sgld_sampler_full_jax(key, grad_log_post, num_samples, dt, x_0, X, y_data, minibatch_size):

    def sgld_step(carry, x):
        key, param = carry
        key, param = sgld_kernel(key, param, grad_log_post, dt, X, y_data, minibatch_size)  # expect: JIT302
        return (key, param), param

    carry = (key, x_0)
    _, samples = lax.scan(sgld_step, carry, None, num_samples)
    return samples

# ============
# ============

# ============
# ============

def run_3_sgld_samplers(key, grad_log_post, N, dim, dt, num_samples, theta_true, X, y_data, minibatch_size):
    """
    Run and time the 3 sgld samplers:
    - python loop
    - python loop with Jax kernel
    - full Jax: run twice
    """
    print_rate = num_samples/2

    print(f"Time the 3 samplers with N={N}, dim={dim}\n")
    start = time.time()
    sgld_samples_python = sgld_sampler_python(grad_log_post, num_samples, dt=dt,
                                            x_0=theta_true, X=X, y_data=y_data,
                                            minibatch_size=minibatch_size, print_rate=print_rate)
    end = time.time()
    running_time_1 = end-start
    lemin = int(running_time_1/60)
    lesec = int(running_time_1 % 60)
    print(f"Python sampler: {running_time_1:.1f}sec ({lemin}min {lesec}sec)\n")

    # ======

    start = time.time()
    sgld_samples_jax1 = sgld_sampler_jax_kernel(key, grad_log_post, num_samples,
                                              dt=dt, x_0=theta_true, X=X, y_data=y_data,
                                              minibatch_size=minibatch_size, print_rate=print_rate)
    end = time.time()
    running_time_2 = end-start
    lemin = int(running_time_2/60)
    lesec = int(running_time_2 % 60)
    print(f"Jax kernel sampler: {(end-start):.2f}sec ({lemin}min {lesec}sec)\n")

    # =======

    start = time.time()
    sgld_samples_jax_full = sgld_sampler_full_jax(key, grad_log_post, num_samples,  # expect: JIT302
                                                       dt, theta_true, X, y_data, minibatch_size)
    _ = sgld_samples_jax_full[0][0].block_until_ready()
    end = time.time()
    running_time_3 = end-start
    print(f"Pure Jax sampler, 1st run: {(end-start):.3f}sec\n")

    start = time.time()
    sgld_samples_jax_full = sgld_sampler_full_jax(key, grad_log_post, num_samples,  # expect: JIT302
                                                       dt, theta_true, X, y_data, minibatch_size)
    _ = sgld_samples_jax_full[0][0].block_until_ready()
    end = time.time()
    running_time_4 = end-start
    print(f"Pure Jax sampler, 2nd run: {(end-start):.3f}sec\n")
    print("Done.")

    return [running_time_1, running_time_2, running_time_3, running_time_4]


if __name__ == "__main__":
    import os
    import traceback

    def raising_line(fn):
        try:
            fn()
        except ValueError as e:
            assert "Non-hashable static arguments" in str(e), e
            frames = traceback.extract_tb(e.__traceback__)
            here = [f.lineno for f in frames if os.path.basename(f.filename) == os.path.basename(__file__)]
            return here[-1]
        raise AssertionError("no error")

    data_key, key = random.split(random.PRNGKey(0))
    N, dim, num_samples, dt = 1000, 5, 200, 5e-3
    minibatch_size = int(N * 0.1)
    theta_true, X, y_data = gen_data(data_key, dim, N)
    grad_log_post = build_batch_grad_log_post(X, y_data, N)

    # observed: line 126 raises ValueError: X and y_data reach static positions 4, 5 of
    # sgld_kernel (run_3_sgld_samplers gets there after the NumPy sampler)
    assert raising_line(lambda: run_3_sgld_samplers(key, grad_log_post, N, dim, dt, num_samples,
                                                    theta_true, X, y_data, minibatch_size)) == 126
    # observed: line 189 and line 197 make this same call, X and y_data in static positions 5, 6
    # of sgld_sampler_full_jax, and raise the same ValueError (run_3_sgld_samplers never reaches
    # them because line 126 raises first)
    assert raising_line(lambda: sgld_sampler_full_jax(key, grad_log_post, num_samples, dt, theta_true, X, y_data, minibatch_size)) == 235  # tolerate: JIT302
    # observed: line 141 raises the same ValueError once the scan body is traced: inside
    # sgld_sampler_full_jax X and y_data are the static (concrete) arrays, handed on to static
    # positions 4, 5 of sgld_kernel (shown by running the undecorated function)
    assert raising_line(lambda: sgld_sampler_full_jax.__wrapped__(key, grad_log_post, num_samples, dt, theta_true, X, y_data, minibatch_size)) == 141
