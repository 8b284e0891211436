import jax
import jax.numpy as jnp
from numpyro.infer import MCMC, NUTS

from bayes.models import regression, regression_fixed
from bayes.noise import add_noise, two_draws


def make_data(key, n):
    x = jnp.linspace(-1.0, 1.0, n)
    noisy_x = add_noise(key, x)
    y = add_noise(key, 2.0 * x)  # expect: JIT502
    return noisy_x, y


def make_data_fixed(key, n):
    kx, ky = jax.random.split(key)
    x = jnp.linspace(-1.0, 1.0, n)
    return add_noise(kx, x), add_noise(ky, 2.0 * x)


def draws(key):
    a, b = two_draws(key, (3,))
    c = jax.random.normal(key, (3,))  # expect: JIT502
    return a + b + c


def fit(key, x, y, fixed=False):
    model = regression_fixed if fixed else regression
    mcmc = MCMC(NUTS(model), num_warmup=20, num_samples=20, progress_bar=False)
    mcmc.run(key, x, y)
    return mcmc.get_samples()


def fit_buggy(key, x, y):
    mcmc = MCMC(NUTS(regression), num_warmup=20, num_samples=20, progress_bar=False)
    mcmc.run(key, x, y)
    return mcmc.get_samples()
