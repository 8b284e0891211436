# source: https://github.com/jax-ml/jax/issues/441 (the script in the description)
# observed on jax 0.10.2 CPU: runs clean: lax.while_loop has a batching rule now, so
#   vmap of the jitted f works; the loop condition is a lax.while_loop cond_fun, not a
#   Python while. Added: print() and the __main__ block.
# gap: other
import jax.numpy as np
from jax import jit, lax, vmap

@jit
def f(x):
    return lax.while_loop(lambda x: x <= 0, lambda x: x + 1, x)

g = vmap(f)
y = g(np.arange(3.))
print(y)

if __name__ == "__main__":
    assert g(np.arange(3.)).tolist() == [1.0, 1.0, 2.0]
