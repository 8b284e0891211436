import jax
import jax.numpy as jnp


@jax.jit
def as_python(x, n):
    k = int(jnp.argmax(x))  # expect: JIT401
    steps = n.item()  # expect: JIT401
    c = complex(x[0])  # expect: JIT401
    d = int(x.shape[-1] * 2)
    return x[:d], k, steps, c


def host(x):
    return int(jnp.argmax(x)), x.tolist()
