# source: https://github.com/pyro-ppl/numpyro/issues/1886 (the reporter's example)
# observed on jax 0.10.2 CPU with numpyro 0.22.0: runs clean. The reporter saw a tracer leak
#   because `get_model_relations` traces its argument under `jax.eval_shape` and the seed
#   handler then stored the split key, a tracer, on the `seeded_model` instance; the seed
#   handler of numpyro 0.22 no longer writes its key back under a trace, so the leak checker
#   stays silent and the handler still holds the key it was given. The __main__ block, added,
#   checks that and draws from the seeded model afterwards.
# gap: stale-state-attributes
import numpyro
import jax
import jax.random as jr
import numpyro.distributions as dist
from numpyro.infer.inspect import get_model_relations
from numpyro import handlers

def model():
    m = numpyro.sample('m', dist.Normal(0, 1))
    numpyro.sample('sd', dist.LogNormal(m, 1))

seeded_model = handlers.seed(model, jr.key(0))

with jax.checking_leaks():
    relations = get_model_relations(seeded_model)  # UnexpectedTracerError, same for get_dependencies


if __name__ == "__main__":
    assert relations["sample_sample"] == {"m": [], "sd": ["m"]}, relations
    assert not isinstance(seeded_model.rng_key, jax.core.Tracer)
    with handlers.trace() as tr:
        seeded_model()
    assert not isinstance(tr["m"]["value"], jax.core.Tracer)
