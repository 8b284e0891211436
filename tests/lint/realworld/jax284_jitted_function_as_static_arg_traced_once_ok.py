# source: https://github.com/jax-ml/jax/issues/284
# observed on jax 0.10.2 CPU: runs clean; f, g and h are each traced once ("f x" is printed
#   only for the first call of f: the call of the jitted f inside g's trace reuses f's
#   cached trace, where in 2019 it was traced and compiled again), the second call of each
#   hits its cache, and each has one cache entry. The jitted f is hashable, so it is a valid
#   static argument of g and h. The prints are the reporter's deliberate trace-time
#   markers, so they are tolerated. `onp` is NumPy and `np` jax.numpy, as in the report
#   (imports added).
# gap: static-hashability
import jax
import jax.numpy as np
import numpy as onp

x = onp.random.rand(1024).astype(onp.float32)
x = jax.device_put(x)

def f(x):
    print('f x', x)  # tolerate: JIT203
    return np.square(x)

def g(f, x):
    print('g f', f)  # tolerate: JIT203
    print('g x', x)  # tolerate: JIT203
    return f(x)

def h(f, x):
    print('h f', f)  # tolerate: JIT203
    print('h x', x)  # tolerate: JIT203
    return f(x)

f = jax.jit(f)
g = jax.jit(g, static_argnums=(0,))
h = jax.jit(h, static_argnums=(0,))

f(x)  # will trigger compilation of f
f(x)  # reuse cache
print('')
g(f, x)  # will trigger compilation of g and another compilation of f
g(f, x)  # reuse cache
print('')
h(f, x)  # will trigger compilation of h, but uses cached f
h(f, x)  # reuse cache

if __name__ == "__main__":
    assert f._cache_size() == 1 and g._cache_size() == 1 and h._cache_size() == 1
    assert onp.allclose(g(f, x), onp.square(onp.asarray(x)))
