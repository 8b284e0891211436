# source: https://github.com/pyro-ppl/numpyro/issues/1836 (the reporter's script)
# observed on jax 0.10.2 CPU with numpyro 0.22.0: the crash of the report (a tracer cached by
#   the module-level TruncatedNormal under parallel chains) is fixed (numpyro#1843), and the
#   script runs. But the data are drawn with `rng_key` (line 26) and the same key is handed
#   to `mcmc.run` (line 40), which splits it again for the chains: the key is reused. With a
#   typed key and `jax_debug_key_reuse` on, the same two calls make `mcmc.run` raise
#   KeyReuseError "Previously-consumed key passed to random_split" in its first split
#   (__main__; a fresh key gets past that split). The __main__ block is added.
# gap: other
import jax.random as random
import numpyro
import numpyro.distributions as dist

from numpyro.infer import MCMC, NUTS

numpyro.set_host_device_count(2)

my_distribution = dist.TruncatedNormal(low=1, high=2)
n_data_samples = 1
n_mcmc_samples = 1
n_mcmc_warmup = 0
n_mcmc_chains = 2
rng_key = random.PRNGKey(0)


data_samples = my_distribution.sample(rng_key, (n_data_samples,))


def my_model():
    numpyro.sample("obs", my_distribution, obs=data_samples)


nuts_kernel = NUTS(my_model)
mcmc = MCMC(
    nuts_kernel,
    num_warmup=n_mcmc_warmup,
    num_samples=n_mcmc_samples,
    num_chains=n_mcmc_chains,
)
mcmc.run(rng_key)  # expect: JIT502

if __name__ == "__main__":
    import jax

    jax.config.update("jax_debug_key_reuse", True)
    key = random.key(0)
    my_distribution.sample(key, (n_data_samples,))
    try:
        mcmc.run(key)  # tolerate: JIT502
        raise AssertionError("the reused key was not detected")
    except jax.errors.KeyReuseError as e:
        # observed: line 40 hands MCMC the key the data were drawn with
        assert str(e).startswith("Previously-consumed key passed to random_split"), e
