# source: https://github.com/che-shr-cat/JAX-in-Action/blob/3bae28c730c86d4510bd5b6af456462e22988ba3/Chapter-5/JAX_in_Action_Chapter_5_JIT.ipynb
#   (code cells 122-133 of the "JAX in Action" book's JIT chapter: a cumulative sum with a
#   Python loop, then with lax.scan)
# observed on jax 0.10.2 CPU: the Python loop over x.shape[0] is unrolled while tracing:
#   the jaxpr for 10 000 elements has 30 000 equations (the scan version has one scan), and
#   jitting it is slow to compile (the notebook records 9 min 20 s for 10 000 elements;
#   about 20 s here for 1 000). Changed: the jitted call's input is jnp.ones(1000) instead of
#   jnp.ones(10000), and the `%time` magics are left out; the bare display expressions
#   (`len(...)`, `j`) are kept as expressions. Added: the imports of the notebook's first
#   cell and the __main__ block.
# gap: other
import jax
import jax.numpy as jnp

def cumulative_sum(x):
  acc = 0.0
  y = []
  for i in range(x.shape[0]):  # expect: JIT303
    acc += x[i]
    y.append(acc)
  return y

cumulative_sum(jnp.array([1.0, 1.0, 5.0, 2.0]))

j = jax.make_jaxpr(cumulative_sum)(jnp.ones(10000))

len(j.jaxpr.eqns)

j

cs = jax.jit(cumulative_sum)(jnp.ones(1000))

def cumulative_sum_fast(x):
  result, array = jax.lax.scan(lambda carry, elem: (carry+elem, carry+elem), 0.0, x)
  return array

cumulative_sum_fast(jnp.array([1.0, 1.0, 5.0, 2.0]))

j = jax.make_jaxpr(cumulative_sum_fast)(jnp.ones(10000))

len(j.jaxpr.eqns)

j

cs = jax.jit(cumulative_sum_fast)(jnp.ones(10000))

if __name__ == "__main__":
    # observed: line 18 unrolls the loop at trace time: 10 000 iterations become 30 000
    # equations, against a single scan for cumulative_sum_fast
    slow = jax.make_jaxpr(cumulative_sum)(jnp.ones(10000))  # tolerate: JIT303
    fast = jax.make_jaxpr(cumulative_sum_fast)(jnp.ones(10000))
    assert len(slow.jaxpr.eqns) == 30000, len(slow.jaxpr.eqns)
    assert len(fast.jaxpr.eqns) <= 3, len(fast.jaxpr.eqns)
