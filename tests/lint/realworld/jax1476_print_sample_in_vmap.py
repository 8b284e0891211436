# source: https://github.com/jax-ml/jax/issues/1476 (elbo and batch_elbo from the report,
#   with the reporter's print(sample))
# observed on jax 0.10.2 CPU: print(sample) inside the vmapped elbo prints a tracer
#   (Traced<float32[2]>with<BatchTrace>), once, not the sampled values. Added: the imports,
#   diag_gaussian_sample and diag_gaussian_logpdf from examples/advi.py, a stand-in logprob
#   and params, and the __main__ check.
# gap: other
import contextlib
import io
from functools import partial

import jax.numpy as np
import jax.scipy.stats.norm as norm
from jax import random, vmap


def diag_gaussian_sample(rng, mean, log_std):
    # Take a single sample from a diagonal multivariate Gaussian.
    return mean + np.exp(log_std) * random.normal(rng, mean.shape)

def diag_gaussian_logpdf(x, mean, log_std):
    # Evaluate a single point on a diagonal multivariate Gaussian.
    return np.sum(vmap(norm.logpdf)(x, mean, np.exp(log_std)))

def elbo(logprob, rng, mean, log_std):
    sample = diag_gaussian_sample(rng, mean, log_std)
    print(sample)  # expect: JIT203
    return logprob(sample) - diag_gaussian_logpdf(sample, mean, log_std)

def batch_elbo(logprob, rng, params, num_samples):
    rngs = random.split(rng, num_samples)
    vectorized_elbo = vmap(partial(elbo, logprob), in_axes=(0, None, None))
    return np.mean(vectorized_elbo(rngs, *params))


if __name__ == "__main__":
    logprob = lambda x: -np.sum(x ** 2)
    params = (np.zeros(2), np.zeros(2))
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        batch_elbo(logprob, random.PRNGKey(0), params, 40)
    # observed: line 27 prints a tracer, once for 40 samples, instead of their values
    assert buf.getvalue().count("Tracer") == 1, buf.getvalue()
