# source: https://github.com/jax-ml/jax/pull/8947 (the example in the description, for the
#   report in jax#8910)
# observed on jax 0.10.2 CPU: TracerBoolConversionError at `assert result > 0`: f takes no
#   arguments, but under jit jnp.add(1, 1) of two constants is a tracer, and so is the sum.
# gap: omnistaging
import jax
import jax.numpy as jnp

N = 10

@jax.jit
def f():
  result = sum(jnp.add(1, 1) for _ in range(N))
  assert result > 0  # expect: JIT103

f()
