# source: https://github.com/jax-ml/jax/issues/3093 (the example in the description)
# observed on jax 0.10.2 CPU: runs clean: under disable_jit, lax.cond with a batched
#   predicate inside vmap no longer falls back to a Python `if` on the tracer, and returns
#   [0] for t = 1. The old five-argument `lax.cond(pred, true_operand, true_fun,
#   false_operand, false_fun)` no longer exists and is spelled
#   `lax.cond(pred, true_fun, false_fun, operand)`. Added: the imports.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp

def fn(t):
  return jax.lax.cond(t > 0, lambda x: 0, lambda x: 1, 0)
fn = jax.vmap(fn)

with jax.disable_jit():
  outputs = fn(jnp.array([1]))

if __name__ == "__main__":
    assert outputs.tolist() == [0]
