# source: https://github.com/pyro-ppl/numpyro/issues/1763 (the Pyro model the reporter
#   ported to NumPyro)
# observed on jax 0.10.2 CPU with numpyro 0.22: TracerBoolConversionError at
#   `if feeling_lazy:`: NumPyro traces the model with the sampled site as a tracer. Added:
#   the imports (`sample` is numpyro.sample) and an MCMC run with DiscreteHMCGibbs(NUTS)
#   to run the model.
# gap: other
import jax
import numpyro.distributions as dist
from numpyro import sample
from numpyro.infer import MCMC, NUTS, DiscreteHMCGibbs


def sleep_model():
    # Very likely to feel lazy
    feeling_lazy = sample("feeling_lazy", dist.Bernoulli(0.9))
    if feeling_lazy:  # expect: JIT101
        # Only going to (possibly) ignore my alarm if I'm feeling lazy
        ignore_alarm = sample("ignore_alarm", dist.Bernoulli(0.8))
        # Will sleep more if I ignore my alarm
        amount_slept = sample("amount_slept",
                              dist.Normal(8 + 2 * ignore_alarm, 1))
    else:
        amount_slept = sample("amount_slept", dist.Normal(6, 1))
    return amount_slept


if __name__ == "__main__":
    mcmc = MCMC(DiscreteHMCGibbs(NUTS(sleep_model)), num_warmup=10, num_samples=10,
                progress_bar=False)
    mcmc.run(jax.random.PRNGKey(0))
