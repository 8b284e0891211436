# source: https://github.com/pyro-ppl/numpyro/issues/2062 (tillahoffmann's reduction in the
#   thread of the reporter's AutoNormal guide given to get_model_relations)
# observed on jax 0.10.2 CPU with numpyro 0.22.0: get_model_relations traces its argument
#   under `jax.eval_shape` (a jit trace); the AutoNormal guide, called there for the first
#   time, runs its lazy `_setup_prototype` and stores the traced prototype trace, init
#   locations and a seed handler holding a traced key on itself. The leak checker raises
#   "Leaked trace DynamicJaxprTrace" at `get_model_relations(guide)` (line 25), naming
#   `AutoNormal.prototype_trace` and `_postprocess_fn.rng_key`; without the checker the
#   reporter's later SVI run on the same guide raised UnexpectedTracerError. The snippet is
#   kept as posted.
# gap: stale-state-attributes
import jax
import numpyro
from numpyro import distributions as dist
from numpyro.infer.autoguide import AutoNormal
from numpyro.infer.inspect import get_model_relations


def model():
    numpyro.sample('a', dist.Normal())

guide = AutoNormal(model)

with jax.check_tracer_leaks():
    relations = get_model_relations(guide)  # expect: JIT202
