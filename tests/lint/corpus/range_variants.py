import jax
import jax.numpy as jnp


@jax.jit
def inclusive(x, n):
    acc = 0.0
    for i in range(n + 1):  # expect: JIT104
        acc = acc + x[i]
    return acc


@jax.jit
def window(x, start, stop):
    acc = 0.0
    for i in range(start, stop):  # expect: JIT104
        acc = acc + x[i]
    return acc


@jax.jit
def halves(x, params):
    acc = jnp.zeros(())
    for i in range(x.shape[0] // 2):
        acc = acc + x[2 * i]
    for i in range(int(x.shape[0])):
        acc = acc + x[i]
    for k in sorted(params):
        acc = acc + params[k]
    return acc
