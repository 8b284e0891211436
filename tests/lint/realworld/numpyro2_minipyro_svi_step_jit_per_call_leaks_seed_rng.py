# source: https://github.com/pyro-ppl/numpyro/issues/2 ("Enable jit compilation in minipyro":
#   "the `jitted` function within `step` is being compiled each time `step` is called"); the
#   code is commit 34c60065e88faeca4d18eee68869381b21d4492b "jit svi.step",
#   https://github.com/pyro-ppl/numpyro/blob/34c60065e88faeca4d18eee68869381b21d4492b/numpyro/svi.py
#   with numpyro/handlers.py and numpyro/examples/minipyro.py of the same commit
# observed on jax 0.10.2 CPU: SVI.step wraps a fresh `jitted` closure in jit on every call, so
#   every step traces (and compiles) again; and while it is traced, the `seed` handler that
#   wraps the guide writes the split key back to its `self.rng`, a tracer stored on an object
#   that outlives the trace. The second step's new trace splits that leaked key and raises
#   UnexpectedTracerError, naming the seed handler's split as where the leaked key was made.
#   Kept verbatim: svi.py (SVI, elbo), handlers.py (the `block` handler, unused here, is left
#   out) and the minipyro example. Replaced: `jax.experimental.optimizers` (adam returning
#   (init, update), a module-level get_params) by a stand-in over
#   `jax.example_libraries.optimizers`; numpyro's scipy-based `dist.norm` (a frozen rv whose
#   call draws with `random_state=`) by a small stand-in. Added: the `__main__` block (two
#   steps of the example's loop; three steps with the leaked keys reset by the harness,
#   counting traces of the loss). JAX's key-reuse checker stops first in init_state, at the
#   stand-in's draw (line 49, tolerated): the seed handler hands the sample `self.rng` and also
#   splits that same key (numpyro#263 later fixed this).
# gap: stale-state-attributes
import argparse
from collections import OrderedDict

import jax.numpy as np
from jax import grad, random, jit
from jax.example_libraries import optimizers as _example_optimizers
from jax.random import PRNGKey


# --- stand-in for jax.experimental.optimizers of February 2019 ---------------------------
class optimizers:
    @staticmethod
    def adam(step_size):
        opt_init, opt_update, _ = _example_optimizers.adam(step_size)
        return opt_init, opt_update

    @staticmethod
    def get_params(opt_state):
        return _example_optimizers.adam(0.)[2](opt_state)


# --- stand-in for numpyro.distributions.norm of February 2019 ----------------------------
class _norm_frozen:
    def __init__(self, loc, scale):
        self.loc, self.scale = loc, scale

    def __call__(self, random_state=None):
        shape = np.broadcast_shapes(np.shape(self.loc), np.shape(self.scale))
        return random.normal(random_state, shape) * self.scale + self.loc  # tolerate: JIT502

    def logpdf(self, x):
        z = (x - self.loc) / self.scale
        return -z ** 2 / 2.0 - np.log(np.sqrt(2 * np.pi)) - np.log(self.scale)


class dist:
    norm = _norm_frozen


# --- numpyro/handlers.py ------------------------------------------------------------------
_PYRO_STACK = []


class Messenger(object):
    def __init__(self, fn=None):
        self.fn = fn

    def __enter__(self):
        _PYRO_STACK.append(self)

    def __exit__(self, *args, **kwargs):
        assert _PYRO_STACK[-1] is self
        _PYRO_STACK.pop()

    def process_message(self, msg):
        pass

    def postprocess_message(self, msg):
        pass

    def __call__(self, *args, **kwargs):
        with self:
            return self.fn(*args, **kwargs)


class trace(Messenger):
    def __enter__(self):
        super(trace, self).__enter__()
        self.trace = OrderedDict()
        return self.trace

    def postprocess_message(self, msg):
        assert msg['name'] not in self.trace, 'all sites must have unique names'
        self.trace[msg['name']] = msg.copy()

    def get_trace(self, *args, **kwargs):
        self(*args, **kwargs)
        return self.trace


class replay(Messenger):
    def __init__(self, fn, guide_trace):
        self.guide_trace = guide_trace
        super(replay, self).__init__(fn)

    def process_message(self, msg):
        if msg['name'] in self.guide_trace:
            msg['value'] = self.guide_trace[msg['name']]['value']


class seed(Messenger):
    def __init__(self, fn, rng):
        self.rng = rng
        super(seed, self).__init__(fn)

    def process_message(self, msg):
        if msg['type'] == 'sample':
            msg['kwargs']['random_state'] = self.rng
            _, self.rng = random.split(self.rng)  # expect: JIT202


class substitute(Messenger):
    def __init__(self, fn=None, param_map=None):
        self.param_map = param_map
        super(substitute, self).__init__(fn)

    def process_message(self, msg):
        if msg['type'] == 'param':
            assert msg['name'] in self.param_map
            msg['value'] = self.param_map[msg['name']]


def apply_stack(msg):
    pointer = 0
    for pointer, handler in enumerate(reversed(_PYRO_STACK)):
        handler.process_message(msg)
        # When a Messenger sets the "stop" field of a message,
        # it prevents any Messengers above it on the stack from being applied.
        if msg.get("stop"):
            break
    if msg['value'] is None:
        msg['value'] = msg['fn'](*msg['args'], **msg['kwargs'])

    # A Messenger that sets msg["stop"] == True also prevents application
    # of postprocess_message by Messengers above it on the stack
    # via the pointer variable from the process_message loop
    for handler in _PYRO_STACK[-pointer-1:]:
        handler.postprocess_message(msg)
    return msg


def sample(name, fn, obs=None):
    # if there are no active Messengers, we just draw a sample and return it as expected:
    if not _PYRO_STACK:
        return fn.rvs()

    # Otherwise, we initialize a message...
    initial_msg = {
        'type': 'sample',
        'name': name,
        'fn': fn,
        'args': (),
        'kwargs': {},
        'value': obs,
    }

    # ...and use apply_stack to send it to the Messengers
    msg = apply_stack(initial_msg)
    return msg['value']


def identity(x):
    return x


def param(name, init_value):
    # if there are no active Messengers, we just draw a sample and return it as expected:
    if not _PYRO_STACK:
        return init_value

    # Otherwise, we initialize a message...
    initial_msg = {
        'type': 'param',
        'name': name,
        'fn': identity,
        'args': (init_value,),
        'kwargs': {},
        'value': None,
    }

    # ...and use apply_stack to send it to the Messengers
    msg = apply_stack(initial_msg)
    return msg['value']


# --- numpyro/svi.py -----------------------------------------------------------------------
# This is a unified interface for stochastic variational inference in Pyro.
# The actual construction of the loss is taken care of by `loss`.
# See http://docs.pyro.ai/en/0.3.0-release/inference_algos.html
class SVI(object):
    def __init__(self, model, guide, opt_init, opt_update, loss, init_rng=PRNGKey(0)):
        self.model = seed(model, init_rng)
        _, subkey = random.split(init_rng)
        self.guide = seed(guide, subkey)
        self.opt_init = opt_init
        self.opt_update = opt_update
        self.loss = loss

    def init_state(self, *args, **kwargs):
        guide_trace = trace(self.guide).get_trace(*args, **kwargs)
        model_trace = trace(self.model).get_trace(*args, **kwargs)
        params = {}
        for site in list(guide_trace.values()) + list(model_trace.values()):
            if site['type'] == 'param':
                params[site['name']] = site['value']
        return self.opt_init(params)

    def step(self, i, *args, **kwargs):
        @jit  # expect: JIT301
        def jitted(i, opt_state, *args, **kwargs):
            params = optimizers.get_params(opt_state)
            loss = self.loss(params, self.model, self.guide, args, kwargs)
            grads = grad(self.loss)(params, self.model, self.guide, args, kwargs)
            opt_state = self.opt_update(i, grads, opt_state)
            return loss, opt_state
        opt_state = kwargs.pop('opt_state')
        if opt_state is None:
            opt_state = self.init_state(*args, **kwargs)
        return jitted(i, opt_state, *args, **kwargs)


# This is a basic implementation of the Evidence Lower Bound, which is the
# fundamental objective in Variational Inference.
# See http://pyro.ai/examples/svi_part_i.html for details.
# This implementation has various limitations (for example it only supports
# random variablbes with reparameterized samplers), but all the ELBO
# implementations in Pyro share the same basic logic.
def elbo(param_map, model, guide, args, kwargs):
    model = substitute(model, param_map)
    guide = substitute(guide, param_map)
    guide_trace = trace(guide).get_trace(*args, **kwargs)
    model_trace = trace(replay(model, guide_trace)).get_trace(*args, **kwargs)
    elbo = 0.
    # Loop over all the sample sites in the model and add the corresponding
    # log p(z) term to the ELBO. Note that this will also include any observed
    # data, i.e. sample sites with the keyword `obs=...`.
    for site in model_trace.values():
        if site["type"] == "sample":
            elbo = elbo + np.sum(site["fn"].logpdf(site["value"]))
    # Loop over all the sample sites in the guide and add the corresponding
    # -log q(z) term to the ELBO.
    for site in guide_trace.values():
        if site["type"] == "sample":
            elbo = elbo - np.sum(site["fn"].logpdf(site["value"]))
    # Return (-elbo) since by convention we do gradient descent on a loss and
    # the ELBO is a lower bound that needs to be maximized.
    return -elbo


# --- numpyro/examples/minipyro.py ---------------------------------------------------------
def model(data):
    loc = sample("loc", dist.norm(0., 1.))
    sample("obs", dist.norm(loc, 1.), obs=data)


# Define a guide (i.e. variational distribution) with a Normal
# distribution over the latent random variable `loc`.
def guide(data):
    guide_loc = param("guide_loc", 0.)
    guide_scale = np.exp(param("guide_scale_log", 0.))
    sample("loc", dist.norm(guide_loc, guide_scale))


def main(args):
    # Generate some data.
    data = random.normal(PRNGKey(0), shape=(100,)) + 3.0

    # Construct an SVI object so we can do variational inference on our
    # model/guide pair.
    opt_init, opt_update = optimizers.adam(args.learning_rate)
    svi = SVI(model, guide, opt_init, opt_update, elbo)

    # Basic training loop
    opt_state = None
    for i in range(args.num_steps):
        loss, opt_state = svi.step(i, data, opt_state=opt_state)
        if i % 100 == 0:
            print("step {} loss = {}".format(i, loss))

    # Report the final values of the variational parameters
    # in the guide after training.
    params = optimizers.get_params(opt_state)
    for name, value in params.items():
        print("{} = {}".format(name, value))

    # For this simple (conjugate) model we know the exact posterior. In
    # particular we know that the variational distribution should be
    # centered near 3.0. So let's check this explicitly.
    assert np.abs(params["guide_loc"] - 3.0) < 0.1


if __name__ == "__main__":
    import traceback

    import jax

    # observed: line 119 stores a tracer in the guide's seed handler during the first
    # step's trace; the second step's new trace splits it, and jit raises
    # UnexpectedTracerError naming line 119 as where the leaked value was created
    try:
        main(argparse.Namespace(full_pyro=False, num_steps=2, learning_rate=0.02))
    except jax.errors.UnexpectedTracerError as e:
        frames = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__]
        assert frames[-1].name == "step", frames[-1]
        assert "created on line %s:119:" % __file__ in str(e), str(e)
    else:
        raise AssertionError("no UnexpectedTracerError")

    # observed: line 219 jits a new closure on every step: with the leaked keys put back
    # by the harness after each step, three steps trace the loss three times (twice per
    # trace: the loss and its gradient)
    traced = []

    def counting_elbo(*a):
        traced.append(1)
        return elbo(*a)

    data = random.normal(PRNGKey(0), shape=(100,)) + 3.0
    opt_init, opt_update = optimizers.adam(0.02)
    svi = SVI(model, guide, opt_init, opt_update, counting_elbo, init_rng=PRNGKey(1))
    opt_state = None
    for i in range(3):
        loss, opt_state = svi.step(i, data, opt_state=opt_state)
        assert isinstance(svi.guide.rng, jax.core.Tracer)
        svi.model.rng, svi.guide.rng = PRNGKey(10 + i), PRNGKey(20 + i)
    assert len(traced) == 6, len(traced)
