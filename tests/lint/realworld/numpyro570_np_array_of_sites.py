# source: https://github.com/pyro-ppl/numpyro/issues/570
# observed on jax 0.10.2 CPU with numpyro 0.22: under MCMC the model is traced:
#   print(mean_time) prints a tracer, and np.array (NumPy) of the sampled sites raises
#   TracerArrayConversionError. Added: the imports (np is NumPy, as the reporter's dtype
#   object array shows); Tpm, the reporter's JAX function from another module, is a
#   stand-in; MRT data and the MCMC run are added, with the checks in __main__.
# gap: types
import contextlib
import io
import traceback

import jax
import jax.numpy as jnp
import numpy as np
import numpyro
import numpyro.distributions as dist
from numpyro.infer import MCMC, NUTS


def Tpm(ran, array):
    pos, eff, sig, mean_time = array[0]
    return eff * jnp.exp(-0.5 * ((ran - pos) / sig) ** 2) + mean_time


def model(MRT=None):
    eff = numpyro.sample('eff', dist.Normal(0.5, 0.1))
    pos = numpyro.sample('pos', dist.Normal(10,0.1))
    sig= numpyro.sample('sig', dist.Normal(1, 0.2))
    mean_time = numpyro.sample('mt', dist.Normal(10., 4))


    sigma = numpyro.sample('sigma', dist.Exponential(1.))

    print(mean_time)  # expect: JIT203
    array = np.array([[pos,eff,sig,mean_time]])  # expect: JIT402
    print(array,array.dtype)  # tolerate: JIT203
    ran = np.arange(0,100)
    mrt = Tpm(ran,array)
    numpyro.sample('obs', dist.Normal(mrt, sigma), obs=MRT)


if __name__ == "__main__":
    buf = io.StringIO()
    mcmc = MCMC(NUTS(model), num_warmup=10, num_samples=10, progress_bar=False)
    try:
        with contextlib.redirect_stdout(buf):
            mcmc.run(jax.random.PRNGKey(0), MRT=jnp.zeros(100))
    except jax.errors.TracerArrayConversionError as e:
        frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__]
        # observed: line 35 raises TracerArrayConversionError (NumPy on traced sites)
        assert frames[-1].lineno == 35, frames[-1]
    else:
        raise AssertionError("expected TracerArrayConversionError")
    # observed: line 34 prints a tracer instead of the sampled value
    assert "Trace" in buf.getvalue(), buf.getvalue()
