# source: https://github.com/jeremiecoullon/SGMCMCJax/blob/6102477b1501ba612af0ce0103813ca736b0c37d/sgmcmcjax/gradient_estimation.py
#   (before commit https://github.com/jeremiecoullon/SGMCMCJax/commit/c714d2b766ce1ae7a515db0249da7898695d7320,
#   "fix gradient estimation bug: data with numpy arrays", which adds
#   `data = tuple([jnp.array(elem) for elem in data])` and a test "check that having data as
#   numpy arrays doesn't raise a `TracerArrayConversionError`")
# observed on jax 0.10.2 CPU: with the dataset given as a NumPy array, the jitted
#   `estimate_gradient` indexes the closed-over NumPy array with the traced minibatch indices
#   from `random.choice`, and NumPy's indexing raises TracerArrayConversionError at
#   `minibatch_data = tuple([elem[idx_batch] for elem in data])`.
#   Kept, from the same commit: `build_grad_log_post` (sgmcmcjax/util.py),
#   `build_gradient_estimation_fn`, `constant`, `welling_teh_schedule`, `make_schedule` and `sgld`
#   (sgmcmcjax/diffusions.py), `_build_langevin_kernel` and `build_sgld_kernel`
#   (sgmcmcjax/kernels.py). Changed: `sgld` is used without its `@diffusion` decorator,
#   which only maps the update over the leaves of a parameter pytree (the parameter here is
#   one array); the imports are those these functions use. Added: the __main__ block, with
#   the Gaussian model of the docs' gaussian.ipynb and NumPy data as in the commit's test.
# gap: types
import numpy as np
import jax.numpy as jnp
from jax import grad, jit, vmap, random


def build_grad_log_post(loglikelihood, logprior, data):
    if len(data)==1:
        batch_loglik = jit(vmap(loglikelihood, in_axes=(None, 0)))
    elif len(data)==2:
        batch_loglik = jit(vmap(loglikelihood, in_axes=(None, 0,0)))
    else:
        raise ValueError("Data must be a tuple of size 1 or 2")

    Ndata = data[0].shape[0]
    def log_post(param, *args):
        return logprior(param) + Ndata*jnp.mean(batch_loglik(param, *args), axis=0)

    grad_log_post = jit(grad(log_post))
    return grad_log_post


# standard gradient estimator
def build_gradient_estimation_fn(grad_log_post, data, batch_size):
    assert type(data) == tuple
    N_data, *_ = data[0].shape

    @jit
    def estimate_gradient(key, param):
        if (batch_size is None) or batch_size == N_data:
            return grad_log_post(param, *data)
        else:
            idx_batch = random.choice(key=key, a=jnp.arange(N_data), shape=(batch_size,))
            minibatch_data = tuple([elem[idx_batch] for elem in data])  # expect: JIT402
            return grad_log_post(param, *minibatch_data)
    return estimate_gradient


def constant(step_size):
    def schedule(i):
        return step_size
    return schedule

def welling_teh_schedule(a,b, gamma=0.55):
    "Polynomial schedule from https://www.ics.uci.edu/~welling/publications/papers/stoclangevin_v6.pdf"
    def schedule(i):
        return a*(b+i)**(-gamma)
    return schedule

def make_schedule(scalar_or_schedule):
    if callable(scalar_or_schedule):
        return scalar_or_schedule
    elif jnp.ndim(scalar_or_schedule) == 0:
        return constant(scalar_or_schedule)
    else:
        raise TypeError(type(scalar_or_schedule))

def sgld(dt):
    "https://www.ics.uci.edu/~welling/publications/papers/stoclangevin_v6.pdf"
    dt = make_schedule(dt)

    def init_fn(x):
        return x

    def update(i, k, g, x):
        return x + dt(i)*g + jnp.sqrt(2*dt(i))*random.normal(k, shape=jnp.shape(x))

    def get_params(x):
        return x

    return init_fn, update, get_params


def _build_langevin_kernel(update, get_params, estimate_gradient):
    "build generic kernel"
    @jit
    def kernel(i, key, state):
        k1, k2 = random.split(key)
        param_grad = estimate_gradient(k1, get_params(state))
        state = update(i, k2, param_grad, state)
        return state

    return kernel


def build_sgld_kernel(dt, loglikelihood, logprior, data, batch_size):
    grad_log_post = build_grad_log_post(loglikelihood, logprior, data)
    init_fn, update, get_params = sgld(dt)
    estimate_gradient = build_gradient_estimation_fn(grad_log_post, data, batch_size)
    sgld_kernel = _build_langevin_kernel(update, get_params, estimate_gradient)
    return init_fn, sgld_kernel, get_params


if __name__ == "__main__":
    # define model in JAX
    def loglikelihood(theta, x):
        return -0.5*jnp.dot(x-theta, x-theta)

    def logprior(theta):
        return -0.5*jnp.dot(theta, theta)*0.01

    N, D = 1000, 10
    X_data = np.random.default_rng(0).normal(size=(N, D))
    batch_size = int(0.1*N)
    init_fn, sgld_kernel, get_params = build_sgld_kernel(1e-5, loglikelihood, logprior, (X_data,), batch_size)
    state = init_fn(jnp.zeros(D))
    state = sgld_kernel(0, random.PRNGKey(0), state)
