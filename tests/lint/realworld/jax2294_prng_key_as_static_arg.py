# source: https://github.com/jax-ml/jax/issues/2294
# observed on jax 0.10.2 CPU: the first call f(a) raises ValueError: Non-hashable static
#   arguments are not supported (a PRNG key is a JAX array, and static_argnums=(0,) makes jit
#   hash it). In the thread (jax of early 2020) the call ran, and because the key hashed by
#   identity f(b) with an equal key traced again ("JIT" printed twice). Added: the imports
#   (`from jax import jit` and `from jax.random import PRNGKey`; `partial` from functools,
#   where jax no longer exports it); the IPython prompts dropped.
# gap: static-hashability
from functools import partial

from jax import jit
from jax.random import PRNGKey


@partial(jit, static_argnums=(0,))
def f(rng):
    print("JIT", rng)  # tolerate: JIT203
    return 0.0


a = PRNGKey(10)

b = PRNGKey(10)

f(a)  # expect: JIT302

f(b)  # tolerate: JIT302
