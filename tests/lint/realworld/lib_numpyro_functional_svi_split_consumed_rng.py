# source: https://github.com/pyro-ppl/numpyro/blob/40442d088ec07b5744d4e023e72b17cdffe5d7aa/numpyro/svi.py
#   (the functional `svi` before https://github.com/pyro-ppl/numpyro/pull/263, "Fix some
#   issues related to reuse rngs", with the minipyro example of the same commit,
#   examples/minipyro.py)
# observed on jax 0.10.2 CPU with numpyro 0.22.0: `update_fn` hands `rng` to `_seed`, which
#   splits it into the model and guide seeds, and then splits the same `rng` again for the
#   next step: `random.split(rng, 1)[0]` is `random.split(rng, 2)[0]`, so the key returned
#   for the next step is the model seed this step already used. The example does the same
#   after `svi_init(rng, ...)`: the loop's first key is the model seed of the init. The
#   docstrings are left out. Current spellings: `jax.partial` is `functools.partial`,
#   `numpyro.infer_util.log_density` is `numpyro.infer.util.log_density`, `biject_to`
#   comes from `numpyro.distributions.transforms`, `jax.experimental.optimizers` is
#   `jax.example_libraries.optimizers`, and `numpyro.handlers.param/sample` are
#   `numpyro.param/sample`. The example's argparse defaults are inlined; the check of the
#   loop's first key is added inside `main`, right after the labelled line, and `main`
#   returns what the added `__main__` block checks.
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
        model_init, guide_init = _seed(model, guide, rng)
        params = get_params(opt_state)
        loss_val, grads = value_and_grad(loss)(params, model_init, guide_init, model_args,
                                               guide_args, kwargs, constrain_fn=constrain_fn)
        opt_state = optim_update(i, grads, opt_state)
        rng, = random.split(rng, 1)  # expect: JIT502
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
    rng = PRNGKey(0)
    opt_state, _ = svi_init(rng, model_args=(data,))

    # Training loop
    rng, = random.split(rng, 1)  # expect: JIT502
    init_model_seed, _ = random.split(PRNGKey(0), 2)
    # observed: line 122 makes the loop's first key from the key svi_init already split: it
    #   is the model seed of the init
    assert (rng == init_model_seed).all()

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
    _, _, next_rng = jax.jit(svi_update)(0, step_rng, opt_state, model_args=(data,))
    model_seed, _ = random.split(step_rng, 2)
    # observed: line 71 returns, as the next step's key, the model seed that `_seed` split
    #   from the same `rng` in this step
    assert (next_rng == model_seed).all()
