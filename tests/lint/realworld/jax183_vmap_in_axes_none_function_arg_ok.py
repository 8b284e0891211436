# source: https://github.com/jax-ml/jax/issues/183 (the example; `from jax.api import
#   vmap` written `from jax import vmap`, its current spelling; the __main__ block added)
# observed on jax 0.10.2 CPU: runs clean and returns sin of the ten points: an argument with
#   in_axes None is not batched, so vmap passes the function `np.sin` through unchanged (in
#   January 2019 vmap refused it: "<type 'function'> is not a valid type for batching").
# gap: exemption-vs-JAX
from jax import vmap
import jax.numpy as np

def mymap(f, x):
    return f(x)

out = vmap(mymap, in_axes=(None, 0))(np.sin, np.linspace(0, 1, 10))

if __name__ == "__main__":
    assert np.allclose(out, np.sin(np.linspace(0, 1, 10)))
