# source: https://github.com/markusschmitt/vmc_jax/blob/6c39817b95461d5b702f85963844c8d8319d3093/jVMC/sampler.py
#   (an early version of jVMC's Monte Carlo sampler for neural quantum states, before commit
#   a9b7a9d "jit MCMC sampler": every Metropolis update jits a new vmap of the proposer)
# observed on jax 0.10.2 CPU: _mc_update runs once per Monte Carlo step and every run applies
#   jit to a new vmap object, so jax traces and compiles propose_spin_flip again at every step:
#   sample(psiC, 10) with 5 chains makes 10 steps (5 to thermalize, one sweep of 5) and 10
#   compilations of it.
#   Changed: jax.ops.index_update(x, jax.ops.index[i], v) -> x.at[i].set(v). Added: a stand-in
#   for jVMC's NQS(rbmModel) (the __main__ block built it from flax.nn, which no longer exists):
#   a complex RBM with fixed random weights and the real_coefficients method the sampler calls;
#   a compile counter (jax_log_compiles) in the __main__ block, which otherwise makes the
#   file's own calls, with 5 thermalization and sweep steps instead of the default 10.
# gap: per-call-recompile
import jax
import jax.numpy as jnp
import jax.random as random
import numpy as np
from jax import vmap, jit

import time

def propose_spin_flip(key, s, info):
    idx = random.randint(key,(1,),0,s.size)[0]
    idx = jnp.unravel_index(idx, s.shape)
    update = (s[idx] + 1 ) % 2
    return s.at[idx].set(update)

class Sampler:

    def __init__(self, key, updateProposer, sampleShape, numChains=1, updateProposerArg=None,
                    thermalizationSteps=10, sweepSteps=10):
        stateShape = [numChains]
        for s in sampleShape:
            stateShape.append(s)
        self.states=jnp.zeros(stateShape, dtype=np.int32)

        self.updateProposer = updateProposer
        self.updateProposerArg = updateProposerArg

        self.key = key
        self.thermalizationSteps = thermalizationSteps
        self.sweepSteps = sweepSteps

        self.numChains = numChains


    def sample(self, net, numSamples):

        # Prepare for output
        outShape = [s for s in self.states.shape]
        outShape[0] = numSamples
        configs = jnp.empty(outShape, dtype=np.int32)

        # Initialize sampling stuff
        self._mc_init(net)
        t0=time.perf_counter()
        # Thermalize
        self.sweep(net, self.thermalizationSteps)
        print("Thermalization took ", time.perf_counter()-t0)

        numMissing = numSamples
        numAdd = min(self.numChains, numMissing)
        configs = configs.at[numSamples-numMissing:numSamples-numMissing+numAdd].set(self.states[:numAdd])
        numMissing -= numAdd
        while numMissing > 0:
            t0=time.perf_counter()
            self.sweep(net, self.sweepSteps) 
            print("Sweep took ", time.perf_counter()-t0)
            numAdd = min(self.numChains, numMissing)
            t0=time.perf_counter()
            configs = configs.at[numSamples-numMissing:numSamples-numMissing+numAdd].set(self.states[:numAdd])
            print("Saving configs took ", time.perf_counter()-t0)
            numMissing -= numAdd

        return configs, net(configs)

    
    def sweep(self, net, numSteps):
        
        for n in range(numSteps):
            self._mc_update(net)


    def _mc_init(self, net):
        
        # Initialize logPsiSq
        self.logPsiSq = net.real_coefficients(self.states)

        self.numProposed = 0
        self.numAccepted = 0


    def _mc_update(self, net):
        
        # Generate update proposals
        newKeys = random.split(self.key,len(self.states)+1)
        self.key = newKeys[-1]
        newStates = jit(vmap(self.updateProposer, in_axes=(0, 0, None)))(newKeys[:len(self.states)], self.states, self.updateProposerArg)  # expect: JIT301

        # Compute acceptance probabilities
        newLogPsiSq = net.real_coefficients(newStates)
        P = jnp.exp( newLogPsiSq - self.logPsiSq )

        # Roll dice
        newKey, self.key = random.split(self.key,)
        accepted = random.bernoulli(newKey, P)
        update = jnp.where(accepted)

        # Bookkeeping
        self.numProposed += len(newStates)
        self.numAccepted += update[0].shape[0]

        # Perform accepted updates
        self.states = self.states.at[update].set(newStates[update])
        self.logPsiSq = self.logPsiSq.at[update].set(newLogPsiSq[update])


    def acceptance_ratio(self):

        if self.numProposed > 0:
            return self.numAccepted / self.numProposed

        return 0.

# ** end class Sampler

if __name__ == "__main__":
    import logging

    class NQS:  # stand-in for jVMC.vqs.NQS(nn.Model(nets.CpxRBM.partial(L=L, numHidden=2, bias=True), params))
        def __init__(self, key, L, numHidden=2):
            k1, k2, k3 = random.split(key, 3)
            self.W = 0.1 * (random.normal(k1, (L, numHidden)) + 1j * random.normal(k2, (L, numHidden)))
            self.b = 0.1 * random.normal(k3, (numHidden,))

        def __call__(self, s):
            return jnp.sum(jnp.log(jnp.cosh(s @ self.W + self.b)), axis=-1)

        def real_coefficients(self, s):
            return 2 * jnp.real(self(s))

    compiled = []

    class CompileLog(logging.Handler):
        def emit(self, record):
            if record.getMessage().startswith("Compiling jit(propose_spin_flip)"):
                compiled.append(record)

    jax_logger = logging.getLogger("jax")
    jax_logger.addHandler(CompileLog())
    jax_logger.propagate = False
    jax.config.update("jax_log_compiles", True)

    L=8
    sampler = Sampler(random.PRNGKey(123), propose_spin_flip, [L], numChains=5,
                      thermalizationSteps=5, sweepSteps=5)

    psiC = NQS(random.PRNGKey(0), L)
    configs, _ = sampler.sample(psiC, 10)

    print(configs)
    print(sampler.acceptance_ratio())

    jax.config.update("jax_log_compiles", False)
    # observed: line 98 compiles the proposer at every Monte Carlo step: 5 thermalization
    # steps and one sweep of 5 steps give 10 compilations (one would do)
    assert len(compiled) == sampler.thermalizationSteps + sampler.sweepSteps == 10, len(compiled)
