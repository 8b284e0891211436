# source: https://github.com/jax-ml/jax/pull/8931 (the example in the description,
#   qiao21.py)
# observed on jax 0.10.2 CPU: tracing f records every iteration of the Python loop, so
#   the program jit compiles holds 10000 sin operations (the PR logs the tracing and the
#   compilation time of exactly this). Added: the __main__ block.
# gap: other
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
  for _ in range(10000):  # expect: JIT303
    x = jnp.sin(x)
  return x

f(3.)


if __name__ == "__main__":
  jaxpr = jax.make_jaxpr(f.__wrapped__)(3.)
  # observed: line 12 unrolls into 10000 sin equations in the traced program
  assert sum(eqn.primitive.name == "sin" for eqn in jaxpr.eqns) == 10000
