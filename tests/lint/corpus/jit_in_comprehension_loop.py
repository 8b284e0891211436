import jax
import jax.numpy as jnp


def power(x, p):
    return x**p


def powers(x, ps):
    out = []
    for p in ps:
        out.append(jax.jit(lambda v: power(v, p))(x))  # expect: JIT301
    return out


powers_jit = jax.jit(power, static_argnums=1)


def powers_ok(x, ps):
    return [powers_jit(x, p) for p in ps]

