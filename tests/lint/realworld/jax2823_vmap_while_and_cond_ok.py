# source: https://github.com/jax-ml/jax/issues/2823 (the two functions the reporter showed
#   working under vmap; the disable_jit part of the report is left out, and `lax.cond`
#   takes the current (pred, true_fun, false_fun, operand) form)
# observed on jax 0.10.2 CPU: runs clean: lax.while_loop and lax.cond take batched
#   predicates under vmap.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp
from jax import lax

def trivial_while(y):
  return lax.while_loop(lambda x: x < 10.0, lambda x: x + 1.0, y)
# works:
print(jax.vmap(trivial_while)(jnp.array([3.0,4.0])))

def trivial_cond(x):
  return lax.cond(x < 1.0, lambda x: x, lambda x: 2*x, x)
# works
print(jax.vmap(trivial_cond)(jnp.array([0.5,2.0])))
