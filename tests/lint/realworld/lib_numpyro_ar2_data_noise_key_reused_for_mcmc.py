# source: https://github.com/pyro-ppl/numpyro/blob/0b935d488056ae1775b4ab05cbe2812f51f21a4f/examples/ar2.py
#   (numpyro's AR2 example; the same key has served both uses since pyro-ppl/numpyro#1350,
#   with `jax.random.PRNGKey(0)` before #2134 spelled it `jax.random.key(0)`)
# observed on jax 0.10.2 CPU with numpyro 0.22: main draws the synthetic noise of y with
#   `random.normal(rng_key, ...)` and then hands the same rng_key to run_inference, whose
#   mcmc.run splits it for NUTS: the noise in the data and the sampler's randomness come from
#   one key (the noise equals `0.1 * random.normal(key_given_to_mcmc.run, ...)`).
#   Kept: the imports but matplotlib, both models, run_inference and main as in the file;
#   left out: the license lines, the module docstring, the plotting at the end of main
#   (matplotlib) and the argparse block; added: the __main__ block, which runs main with
#   small settings and records the key mcmc.run receives.
# gap: other
import os
import time

import jax
from jax import random
import jax.numpy as jnp

import numpyro
from numpyro.contrib.control_flow import scan
import numpyro.distributions as dist


def ar2_scan(y):
    alpha_1 = numpyro.sample("alpha_1", dist.Normal(0, 1))
    alpha_2 = numpyro.sample("alpha_2", dist.Normal(0, 1))
    const = numpyro.sample("const", dist.Normal(0, 1))
    sigma = numpyro.sample("sigma", dist.HalfNormal(1))

    def transition(carry, _):
        y_prev, y_prev_prev = carry
        m_t = const + alpha_1 * y_prev + alpha_2 * y_prev_prev
        y_t = numpyro.sample("y", dist.Normal(m_t, sigma))
        carry = (y_t, y_prev)
        return carry, m_t

    timesteps = jnp.arange(y.shape[0] - 2)
    init = (y[1], y[0])

    with numpyro.handlers.condition(data={"y": y[2:]}):
        _, mu = scan(transition, init, timesteps)

    numpyro.deterministic("mu", mu)


def ar2_for_loop(y):
    alpha_1 = numpyro.sample("alpha_1", dist.Normal(0, 1))
    alpha_2 = numpyro.sample("alpha_2", dist.Normal(0, 1))
    const = numpyro.sample("const", dist.Normal(0, 1))
    sigma = numpyro.sample("sigma", dist.HalfNormal(1))

    y_prev = y[1]
    y_prev_prev = y[0]
    mu = []
    for i in range(2, len(y)):
        m_t = const + alpha_1 * y_prev + alpha_2 * y_prev_prev
        mu.append(m_t)
        y_t = numpyro.sample("y_{}".format(i), dist.Normal(m_t, sigma), obs=y[i])
        y_prev_prev = y_prev
        y_prev = y_t

    numpyro.deterministic("mu", jnp.asarray(mu))


def run_inference(model, args, rng_key, y):
    start = time.time()
    sampler = numpyro.infer.NUTS(model)
    mcmc = numpyro.infer.MCMC(
        sampler,
        num_warmup=args.num_warmup,
        num_samples=args.num_samples,
        num_chains=args.num_chains,
        progress_bar=False if "NUMPYRO_SPHINXBUILD" in os.environ else True,
    )
    mcmc.run(rng_key, y=y)
    mcmc.print_summary()
    print("\nMCMC elapsed time:", time.time() - start)
    return mcmc.get_samples()


def main(args):
    # generate artificial dataset
    num_data = args.num_data
    rng_key = jax.random.key(0)
    t = jnp.arange(0, num_data)
    y = jnp.sin(t) + random.normal(rng_key, (num_data,)) * 0.1

    # do inference
    if args.unroll_loop:
        # slower
        model = ar2_for_loop
    else:
        # faster
        model = ar2_scan

    samples = run_inference(model, args, rng_key, y)  # expect: JIT502

    # do prediction
    mean_prediction = samples["mu"].mean(axis=0)
    return t, y, mean_prediction


if __name__ == "__main__":
    from types import SimpleNamespace

    import numpy as np

    os.environ["NUMPYRO_SPHINXBUILD"] = "1"  # no progress bar
    seen = {}
    original_run = numpyro.infer.MCMC.run

    def recording_run(self, rng_key, *args, **kwargs):
        seen["key"] = rng_key
        return original_run(self, rng_key, *args, **kwargs)

    numpyro.infer.MCMC.run = recording_run
    args = SimpleNamespace(
        num_data=142, num_samples=50, num_warmup=50, num_chains=1, unroll_loop=False
    )
    t, y, mean_prediction = main(args)
    numpyro.infer.MCMC.run = original_run
    assert mean_prediction.shape == (140,)
    # observed: line 97 gives MCMC the key whose normal draws are the data's noise
    noise = np.asarray(y - jnp.sin(t))
    redrawn = np.asarray(random.normal(seen["key"], (142,)) * 0.1)
    assert np.allclose(noise, redrawn, atol=1e-6)
