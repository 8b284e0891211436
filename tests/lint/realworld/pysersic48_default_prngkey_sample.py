# source: https://github.com/pysersic/pysersic/blob/4f7a8c4f7669bac57769a876369ef667e33111b9/pysersic/pysersic.py (BaseFitter.sample; fixed in dca662913978b1a6b7182ad413d7b9b38051da4e for https://github.com/pysersic/pysersic/issues/48)
# observed on jax 0.10.2 CPU: the PRNG key is a default argument, jax.random.PRNGKey(3), evaluated once at class definition; every fitter.sample() call that does not pass rkey runs NUTS from the same key and returns bit-identical "independent" posterior draws
# gap: other
# observed: line 78 two successive fitter.sample() calls without rkey return bit-identical NUTS draws (same default PRNGKey(3) every call)
# Kept from the source: the imports used, BaseFitter.__init__ (input checks and mask parsing dropped), set_prior, sample (docstring shortened).
# Stand-ins: PySersicResults (keeps the MCMC samples), a 1-D Gaussian "renderer" and FitSingle.build_model with a small numpyro model in place of the Sersic profile/prior machinery; gaussian_loss modelled on pysersic/loss.py; inputs and the __main__ block are added.
from abc import ABC, abstractmethod
from typing import Callable, Optional

import jax
import jax.numpy as jnp
import numpy as np
import numpyro
import numpyro.distributions as dist
from numpyro import deterministic, infer


class PySersicResults:  # stand-in
    def __init__(self, **kwargs):
        self.kwargs = kwargs

    def add_prior(self, prior):
        self.prior = prior

    def injest_data(self, sampler=None):
        self.samples = sampler.get_samples()


def gaussian_loss(mod, data, rms, mask, suffix=''):  # stand-in modelled on pysersic/loss.py
    with numpyro.handlers.mask(mask=mask):
        numpyro.sample('Loss' + suffix, dist.Normal(mod, rms), obs=data)


class BaseFitter(ABC):
    """
    Base class for Pysersic Fitters
    """
    def __init__(self,
        data,
        rms,
        psf,
        mask = None,
        loss_func: Optional[Callable] = gaussian_loss,
        renderer = None,
        renderer_kwargs: Optional[dict] = {}) -> None:

        self.loss_func = loss_func

        self.data = jnp.array(data.astype(np.float32))
        self.rms = jnp.array(rms.astype(np.float32))
        self.psf = jnp.array(psf.astype(np.float32))
        self.mask = jnp.zeros(self.data.shape, dtype=bool) if mask is None else mask
        self.renderer = renderer
        self.prior = None
        self.prior_dict = {}

    def set_prior(self,parameter: str,
        distribution: numpyro.distributions.Distribution) -> None:
        self.prior_dict[parameter] = distribution

    def sample(self,
                num_samples: int = 1000,
                num_warmup: int = 1000,
                num_chains: int = 2,
                init_strategy: Optional[Callable] = infer.init_to_sample,
                sampler_kwargs: Optional[dict] ={},
                mcmc_kwargs: Optional[dict] = {},
                return_model: Optional[bool] = True,
                reparam_func: Optional[Callable] = lambda x: x,
                rkey: Optional[jax.random.PRNGKey] = jax.random.PRNGKey(3)
        ):
        """ Perform inference using a NUTS sampler
        """

        model =  self.build_model(return_model = return_model)
        model = reparam_func(model)
        sampler =infer.MCMC(infer.NUTS(model,init_strategy=init_strategy, **sampler_kwargs),num_chains=num_chains, num_samples=num_samples, num_warmup=num_warmup,  **mcmc_kwargs)
        sampler.run(rkey)  # expect: JIT502
        self.sampling_results = PySersicResults(data=self.data,rms=self.rms,psf=self.psf,mask=self.mask,loss_func=self.loss_func,renderer=self.renderer)
        self.sampling_results.add_prior(self.prior)
        self.sampling_results.injest_data(sampler = sampler)
        return self.sampling_results

    @abstractmethod
    def build_model(self,return_model: bool = True):
        raise NotImplementedError


class FitSingle(BaseFitter):  # build_model is a stand-in
    def build_model(self, return_model: bool = True) -> Callable:
        x = jnp.arange(self.data.shape[0], dtype=jnp.float32)

        def model(return_model: bool = return_model):
            flux = numpyro.sample('flux', dist.Uniform(0., 100.))
            xc = numpyro.sample('xc', dist.Uniform(0., float(x.shape[0])))
            r_eff = numpyro.sample('r_eff', dist.Uniform(0.5, 10.))
            obs = flux * jnp.exp(-0.5 * ((x - xc) / r_eff) ** 2)
            if return_model:
                deterministic('model', obs)
            self.loss_func(obs, self.data, self.rms, self.mask)
        return model


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    xs = np.arange(32.)
    data = 20. * np.exp(-0.5 * ((xs - 15.) / 3.) ** 2) + rng.normal(0., 1., 32)
    fitter = FitSingle(data, np.ones(32), np.ones((3, 3)) / 9.)

    res1 = fitter.sample(num_samples=50, num_warmup=50, num_chains=1, mcmc_kwargs=dict(progress_bar=False))
    res2 = fitter.sample(num_samples=50, num_warmup=50, num_chains=1, mcmc_kwargs=dict(progress_bar=False))
    same = all(np.array_equal(res1.samples[k], res2.samples[k]) for k in ('flux', 'xc', 'r_eff'))
    assert same, "expected identical chains from the default key"
    print("two sample() runs give identical draws:", same, float(res1.samples['flux'].mean()))
