# source: https://github.com/pyro-ppl/numpyro/blob/4607c55adc9f4fe7e973033aff7ebe93b4f6763c/numpyro/svi.py
#   (the functional `svi` after https://github.com/pyro-ppl/numpyro/pull/263, "Fix some
#   issues related to reuse rngs", with the minipyro example of the same commit,
#   examples/minipyro.py)
# observed on jax 0.10.2 CPU with numpyro 0.22.0: `update_fn` splits `rng` first and seeds
#   the model and guide from the new `rng_seed`, returning the other half for the next
#   step, and the example splits `PRNGKey(0)` into the loop key and the init key: no key is
#   consumed twice, the fori_loop of jitted updates runs clean and `guide_loc` ends near
#   3.0. The docstrings are left out. Current spellings: `jax.partial` is
#   `functools.partial`, `numpyro.infer_util.log_density` is
#   `numpyro.infer.util.log_density`, `biject_to` comes from
#   `numpyro.distributions.transforms`, `jax.experimental.optimizers` is
#   `jax.example_libraries.optimizers`, and `numpyro.handlers.param/sample` are
#   `numpyro.param/sample`. The example's argparse defaults are inlined, `main` returns
#   what the added `__main__` block runs under `jax.jit`.
# gap: other
import functools

import jax
from jax import random, value_and_grad

from numpyro.distributions import constraints
from numpyro.distributions.transforms import biject_to
from numpyro.handlers import replay, seed, substitute, trace
from numpyro.infer.util import log_density


def _seed(model, guide, rng):
    model_seed, guide_seed = random.split(rng, 2)
    model_init = seed(model, model_seed)
    guide_init = seed(guide, guide_seed)
    return model_init, guide_init


def svi(model, guide, loss, optim_init, optim_update, get_params, **kwargs):
    constrain_fn = None

    def init_fn(rng, model_args=(), guide_args=(), params=None):
        assert isinstance(model_args, tuple)
        assert isinstance(guide_args, tuple)
        model_init, guide_init = _seed(model, guide, rng)
        if params is None:
            params = {}
        else:
            model_init = substitute(model_init, params)
            guide_init = substitute(guide_init, params)
        guide_trace = trace(guide_init).get_trace(*guide_args, **kwargs)
        model_trace = trace(model_init).get_trace(*model_args, **kwargs)
        inv_transforms = {}
        for site in list(guide_trace.values()) + list(model_trace.values()):
            if site['type'] == 'param':
                constraint = site['kwargs'].pop('constraint', constraints.real)
                transform = biject_to(constraint)
                inv_transforms[site['name']] = transform
                params[site['name']] = transform.inv(site['value'])

        def transform_constrained(inv_transforms, params):
            return {k: inv_transforms[k](v) for k, v in params.items()}

        nonlocal constrain_fn
        constrain_fn = functools.partial(transform_constrained, inv_transforms)
        return optim_init(params), constrain_fn

    def update_fn(i, rng, opt_state, model_args=(), guide_args=()):
        rng, rng_seed = random.split(rng)
        model_init, guide_init = _seed(model, guide, rng_seed)
        params = get_params(opt_state)
        loss_val, grads = value_and_grad(loss)(params, model_init, guide_init, model_args,
                                               guide_args, kwargs, constrain_fn=constrain_fn)
        opt_state = optim_update(i, grads, opt_state)
        return loss_val, opt_state, rng

    def evaluate(rng, opt_state, model_args=(), guide_args=()):
        model_init, guide_init = _seed(model, guide, rng)
        params = get_params(opt_state)
        return loss(params, model_init, guide_init, model_args, guide_args, kwargs, constrain_fn=constrain_fn)

    return init_fn, update_fn, evaluate


def elbo(param_map, model, guide, model_args, guide_args, kwargs, constrain_fn):
    param_map = constrain_fn(param_map)
    guide_log_density, guide_trace = log_density(guide, guide_args, kwargs, param_map)
    model_log_density, _ = log_density(replay(model, guide_trace), model_args, kwargs, param_map)
    # log p(z) - log q(z)
    elbo = model_log_density - guide_log_density
    # Return (-elbo) since by convention we do gradient descent on a loss and
    # the ELBO is a lower bound that needs to be maximized.
    return -elbo


# examples/minipyro.py of the same commit
from jax.example_libraries import optimizers
import jax.numpy as np
from jax.random import PRNGKey

import numpyro.distributions as dist
from numpyro import param, sample
from numpyro.util import fori_loop


def model(data):
    loc = sample("loc", dist.Normal(0., 1.))
    sample("obs", dist.Normal(loc, 1.), obs=data)


def guide():
    guide_loc = param("guide_loc", 0.)
    guide_scale = np.exp(param("guide_scale_log", 0.))
    sample("loc", dist.Normal(guide_loc, guide_scale))


def main(num_steps=1001, learning_rate=0.02):
    data = random.normal(PRNGKey(0), shape=(100,)) + 3.0
    opt_init, opt_update, get_params = optimizers.adam(learning_rate)
    svi_init, svi_update, _ = svi(model, guide, elbo, opt_init, opt_update, get_params)
    rng, rng_init = random.split(PRNGKey(0))
    opt_state, _ = svi_init(rng_init, model_args=(data,))

    # Training loop

    def body_fn(i, val):
        opt_state_, rng_ = val
        loss, opt_state_, rng_ = svi_update(i, rng_, opt_state_, model_args=(data,))
        return opt_state_, rng_

    opt_state, _ = fori_loop(0, num_steps, body_fn, (opt_state, rng))

    # Report the final values of the variational parameters
    # in the guide after training.
    params = get_params(opt_state)
    for name, value in params.items():
        print("{} = {}".format(name, value))

    # For this simple (conjugate) model we know the exact posterior. In
    # particular we know that the variational distribution should be
    # centered near 3.0. So let's check this explicitly.
    assert np.abs(params["guide_loc"] - 3.0) < 0.1
    return svi_update, opt_state, data


if __name__ == "__main__":
    svi_update, opt_state, data = main()
    step_rng = PRNGKey(3)
    loss, opt_state, next_rng = jax.jit(svi_update)(0, step_rng, opt_state, model_args=(data,))
    rng_after, rng_seed = random.split(step_rng)
    model_seed, guide_seed = random.split(rng_seed, 2)
    assert (next_rng == rng_after).all() and not (next_rng == model_seed).all()
