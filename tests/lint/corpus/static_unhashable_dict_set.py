import jax
import jax.numpy as jnp


def layer_norm(x, options):
    eps = options["eps"] if "eps" in options else 1e-5
    mu = x.mean(-1, keepdims=True)
    return (x - mu) / jnp.sqrt(x.var(-1, keepdims=True) + eps)


layer_norm_jit = jax.jit(layer_norm, static_argnums=(1,))


def select(x, keep):
    return x[..., sorted(keep)]


select_jit = jax.jit(select, static_argnames="keep")


def run(x):
    y = layer_norm_jit(x, {"eps": 1e-6})  # expect: JIT302
    z = select_jit(x, keep={0, 2})  # expect: JIT302
    w = select_jit(x, keep=frozenset({0, 2}))
    return y, z, w
