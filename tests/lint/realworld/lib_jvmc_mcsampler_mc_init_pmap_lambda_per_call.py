# source: https://github.com/markusschmitt/vmc_jax/blob/129ea53d1f051750b72d112af09a27a1f3bde718/jVMC/sampler.py
#   (jVMC's MCSampler.__init__ and _mc_init, verbatim, before commit b2a93bd "fix repeated
#   jit", which pmaps a `_logAccProb` method once in __init__ and passes the sampler net as a
#   static argument. jVMC is not installed (its propose_spin_flip is copied, with
#   `jax.random` for its `random`): `global_defs` keeps the two lines of
#   jVMC/global_defs.py used here (pmap_for_my_devices, device_count), `mpi` stands for
#   jVMC.mpi_wrapper with one process, SymNet is an empty stand-in, and NQS stands for
#   jVMC.vqs.NQS with a one-layer log-amplitude network; its get_sampler_net is jVMC's,
#   returning a new `evalReal` lambda and the parameters. The __main__ block does what
#   _get_samples_mcmc does at the start of every `sample()` call, `net, params =
#   self.net.get_sampler_net(); self._mc_init(params)`, for three sampling steps)
# observed on jax 0.10.2 CPU: every _mc_init call pmaps a new lambda, so every sampling
#   step compiles the log-acceptance function again: three steps, three compilations.
# gap: per-call-recompile
from functools import partial
import types

import jax
import jax.numpy as jnp
import numpy as np

# jVMC/global_defs.py
myPmapDevices = jax.devices()  # [myDevice]
global_defs = types.SimpleNamespace(
    pmap_for_my_devices=partial(jax.pmap, devices=myPmapDevices),
    device_count=lambda: len(myPmapDevices),
)
mpi = types.SimpleNamespace(commSize=1, rank=0)  # stand-in for jVMC.mpi_wrapper


class SymNet:  # stand-in for jVMC.nets.sym_wrapper.SymNet
    pass


class CpxRBM:  # stand-in network: log psi(s) = sum log cosh(W s + b)
    def apply(self, p, x):
        return jnp.sum(jnp.log(jnp.cosh(p["params"]["W"] @ x.ravel() + p["params"]["b"])))


class NQS:  # stand-in for jVMC.vqs.NQS
    is_generator = False

    def __init__(self, net, parameters):
        self.net = net
        self.parameters = parameters

    def __call__(self, s):
        return jax.vmap(jax.vmap(lambda x: self.net.apply(self.parameters, x)))(s)

    def get_sampler_net(self):
        evalReal = lambda p,x: jnp.real( self.net.apply(p,x) )
        if "eval_real" in dir(self.net):
            if callable(self.net.eval_real):
                evalReal = lambda p,x: jnp.real( self.net.apply(p,x,method=self.net.eval_real) )

        return evalReal, self.parameters


class MCSampler:
    def __init__(self, net, sampleShape, key, updateProposer=None, numChains=1, updateProposerArg=None,
                 numSamples=100, thermalizationSweeps=10, sweepSteps=10, initState=None, mu=2, logProbFactor=0.5):
        """Initializes the MCSampler class.

        """

        self.sampleShape = sampleShape

        self.net = net
        if (not net.is_generator) and (updateProposer is None):
            raise RuntimeError("Instantiation of MCSampler: `updateProposer` is `None` and cannot be used for MCMC sampling.")
        self.orbit = None
        if isinstance(self.net.net, SymNet):
            self.orbit = self.net.net.orbit.orbit

        stateShape = (global_defs.device_count(), numChains) + sampleShape
        if initState is None:
            initState = jnp.zeros(sampleShape, dtype=np.int32)
        self.states = jnp.stack([initState] * (global_defs.device_count() * numChains), axis=0).reshape(stateShape)

        # Make sure that net is initialized
        self.net(self.states)

        self.logProbFactor = logProbFactor
        self.mu = mu
        if mu < 0 or mu > 2:
            raise ValueError("mu must be in the range [0, 2]")
        self.updateProposer = updateProposer
        self.updateProposerArg = updateProposerArg

        if isinstance(key,jax.Array):
            self.key = key
        else:
            self.key = jax.random.PRNGKey(key)
        self.key = jax.random.split(self.key, mpi.commSize)[mpi.rank]
        self.key = jax.random.split(self.key, global_defs.device_count())
        self.thermalizationSweeps = thermalizationSweeps
        self.sweepSteps = sweepSteps
        self.numSamples = numSamples

        shape = (global_defs.device_count(),) + (1,)
        self.numProposed = jnp.zeros(shape, dtype=np.int64)
        self.numAccepted = jnp.zeros(shape, dtype=np.int64)

        self.numChains = numChains

        # jit'd member functions
        self._get_samples_jitd = {}  # will hold a jit'd function for each number of samples
        self._randomize_samples_jitd = {}  # will hold a jit'd function for each number of samples

    def _mc_init(self, netParams):

        # Initialize logAccProb
        net, _ = self.net.get_sampler_net()
        self.logAccProb = global_defs.pmap_for_my_devices(  # expect: JIT301
            lambda x: jax.vmap(lambda y: self.mu * jnp.real(net(netParams, y)), in_axes=(0,))(x)
        )(self.states)

        shape = (global_defs.device_count(),) + (1,)

        self.numProposed = jnp.zeros(shape, dtype=np.int64)
        self.numAccepted = jnp.zeros(shape, dtype=np.int64)


def propose_spin_flip(key, s, info):  # jVMC/sampler.py at the same commit
    idx = jax.random.randint(key, (1,), 0, s.size)[0]
    idx = jnp.unravel_index(idx, s.shape)
    update = (s[idx] + 1) % 2
    return s.at[idx].set(update)


if __name__ == "__main__":
    import warnings

    warnings.simplefilter("ignore", UserWarning)  # int64 requested without x64

    L = 6
    k1, k2 = jax.random.split(jax.random.PRNGKey(1))
    params = {"params": {"W": 0.1 * jax.random.normal(k1, (4, L)),
                         "b": 0.1 * jax.random.normal(k2, (4,))}}
    psi = NQS(CpxRBM(), params)
    sampler = MCSampler(psi, (L,), 123, updateProposer=propose_spin_flip, numChains=8)

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **kw: compiles.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    for step in range(3):
        net, p = sampler.net.get_sampler_net()
        sampler._mc_init(p)
    # observed: line 114 pmaps a new lambda in every _mc_init call: one compilation per step
    assert len(compiles) == 3 and set(compiles) == {"jit(_fun)"}, compiles
    assert sampler.logAccProb.shape == (len(myPmapDevices), 8)
