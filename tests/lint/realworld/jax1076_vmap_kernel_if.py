# source: https://github.com/jax-ml/jax/issues/1076
# observed on jax 0.10.2 CPU: TracerBoolConversionError under vmap (no jit involved):
#   `if np.abs(x) > lam` on a batched value (np is jax.numpy, onp is NumPy).
# gap: other
import jax.numpy as np
import numpy as onp
from jax import vmap


def kernel_scalar(x, lam=0.18, beta=1.0):
    if np.abs(x) > lam:  # expect: JIT101
        return 0.0
    else:
        return np.exp(-beta*x**2)


def kernel(xs):
    kernels = vmap(kernel_scalar)(xs)
    return kernels


n = 10
xs = onp.random.randn(n)
k = kernel(xs)
