# source: https://github.com/deepqmc/deepqmc/commit/8906b58fd5bda4ec46e0fe774207eaf4f9e3f985
#   (MulticonfigurationSampler.__init__, init and assign_wfs verbatim from
#   src/deepqmc/sampling.py at the parent a5e7f52701aac6aaf504c2620eb9c34910094642; the commit
#   "use separate rng keys for sampler initialization" zips the samplers with
#   hk.PRNGSequence(rng). Added: imports, an empty Sampler base, a stand-in per-configuration
#   sampler whose init draws the walkers' initial electron positions from its key (as deepqmc's
#   MetropolisSampler.init does through hamil.init_sample), and the __main__ block)
# observed on jax 0.10.2 CPU: every configuration's sampler is initialised from the same key,
#   so all configurations start from identical walker positions.
# gap: other
from collections.abc import Sequence

import jax
import jax.numpy as jnp


class Sampler:  # stand-in for deepqmc's abstract Sampler base
    pass


class GaussianInitSampler(Sampler):  # stand-in per-configuration sampler
    def init(self, rng, wf, n, state_callback=None, wf_state=None):
        r = jax.random.normal(rng, (n, 2, 3))
        return {'r': r, 'psi': jax.vmap(wf)(r)}


class MulticonfigurationSampler(Sampler):
    def __init__(self, samplers, config_idx_factory=None):
        self.samplers = samplers if isinstance(samplers, Sequence) else [samplers]

        def default_idx_factory(sample_size, n_config, *args, **kwargs):
            assert not (sample_size % n_config)
            return n_config * [sample_size // n_config]

        self.config_idx_factory = config_idx_factory or default_idx_factory

    def init(self, rng, wf, n, state_callback=None, wf_state=None):
        wfs = self.assign_wfs(wf)
        states = [
            sampler.init(rng, wf, n, state_callback, wf_state)  # expect: JIT502
            for wf, sampler in zip(wfs, self.samplers)
        ]
        return states

    def assign_wfs(self, wf):
        r"""Assign WF models to all configurations.

        This allows for using different WFs for each configuration,
        useful e.g. with HF baselines.
        """
        return wf if isinstance(wf, Sequence) else len(self.samplers) * [wf]


if __name__ == "__main__":
    wf = lambda r: -0.5 * jnp.sum(r**2)
    sampler = MulticonfigurationSampler([GaussianInitSampler(), GaussianInitSampler()])
    states = sampler.init(jax.random.PRNGKey(0), wf, 8)
    # observed: line 40 initialises both configurations from the same key: equal walkers
    assert jnp.array_equal(states[0]['r'], states[1]['r'])
    print(states[0]['r'][0])
