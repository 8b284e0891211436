# source: https://github.com/jax-ml/jax/issues/3556
# observed on jax 0.10.2 CPU: vmap(jacfwd(g)) and vmap(jacfwd(g, 0), (0, None), 0) run
#   cleanly on all three functions; f3 closes over the module constant A (never rebound),
#   which the trace captures as a constant. The "strange shape" of Function f3 is
#   jacfwd of a vector-valued function per batch element (shape (10, 10)), not a tracing bug.
# gap: types
# added: `from jax.config import config` spelled `from jax import config`; the removed
#   `abstract_arrays` dropped from the `from jax import ...` line; the __main__ block.
#Import JAX
from jax import config
config.update('jax_enable_x64', True)

import jax.numpy as np
from jax import core, grad, vmap, jacfwd, jacrev

# Create simple data
x = np.arange(10,dtype=np.float64)
xi = np.ones(3)

A = np.ones((10,3))

# Create three functions, increasing in complexity
f = lambda x: np.array([x,x**2,x**3]).T
f2 = lambda x,xi: x*np.dot(f(x),xi)
f3 = lambda x,xi: x*np.dot(f(x),xi)+np.dot(A,xi)

# Attempt to mimic egrad behavior
def egrad(g):
    return vmap(jacfwd(g))
def egrad2(g):
    return vmap(jacfwd(g,0),(0,None),0)

# Print results
print("Function f")
print(egrad(f)(x))
print("")
print("Function f2")
print(egrad2(f2)(x,xi))
print("")
print("Function f3")
print(egrad2(f3)(x,xi))
print("")


if __name__ == "__main__":
    d = egrad(f)(x)
    assert d.shape == (10, 3)
    assert np.allclose(d, np.stack([np.ones_like(x), 2 * x, 3 * x**2], axis=1))
    d2 = egrad2(f2)(x, xi)
    assert np.allclose(d2, 2 * x + 3 * x**2 + 4 * x**3)
    assert egrad2(f3)(x, xi).shape == (10, 10)
