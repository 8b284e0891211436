# source: https://github.com/google/flax/issues/2410 (the maintainer's minimal example of the
#   reporter's error: a PRNGKey, a JAX array, passed in a position marked static)
# observed on jax 0.10.2 CPU: ValueError: Non-hashable static arguments are not supported
#   (an ArrayImpl) at the first jit call; the second call, without static_argnums, works.
# gap: static-hashability
import jax

jax.jit(lambda x: x + 1, static_argnums=(0,))(jax.numpy.array([0, 1]))  # expect: JIT302

jax.jit(lambda x: x + 1)(jax.numpy.array([0, 1]))  # works
