# source: https://github.com/jax-ml/jax/issues/4723 (the reporter's minimal example;
#   `from jax import jit` added, the report calls `jit` without showing the import)
# observed on jax 0.10.2 CPU: ValueError "Non-hashable static arguments are not supported"
#   (a DynamicJaxprTracer) from jnp.linalg.matrix_power: jit traces the Python int `n`
#   (sample_n = 2), and matrix_power hands it on to its own jitted implementation, where the
#   exponent is static. (In the report, on jax 0.2, it was "exponent must be an integer".)
#   The call without jit works.
# gap: other
from jax import jit
import jax.numpy as jnp

def minimal_example(F, x, n):
    
    return jnp.linalg.matrix_power(F, n) @ x @ jnp.linalg.matrix_power(F, n).T  # expect: JIT302  # tolerate: JIT401

sample_F = jnp.eye(2)
sample_x = jnp.array([2, 1])
sample_n = 2

# Works fine without JIT
minimal_example(sample_F, sample_x, sample_n)

jit_fun = jit(minimal_example)
jit_fun(sample_F, sample_x, sample_n)
