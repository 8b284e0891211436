# source: https://github.com/che-shr-cat/JAX-in-Action/blob/3bae28c730c86d4510bd5b6af456462e22988ba3/Chapter-5/JAX_in_Action_Chapter_5_JIT.ipynb
#   (code cells 84-87 of the "JAX in Action" book's JIT chapter: a loop bound by an argument)
# observed on jax 0.10.2 CPU: f5(5) runs eagerly; jax.make_jaxpr(f5)(5) traces x, so
#   `range(x)` raises TracerIntegerConversionError on the loop line (the notebook shows the same
#   error for it and for jax.jit(f5)(5), which is not reached here). Added: the imports of
#   the notebook's first cell.
# gap: other
import jax
import jax.numpy as jnp

def f5(x):
  y = 0
  for i in range(x):  # expect: JIT104
    y += i
  return y

f5(5)

jax.make_jaxpr(f5)(5)

jax.jit(f5)(5)
