import jax
import jax.numpy as jnp


def configure(x, cfg):
    return x * len(cfg)


configure_jit = jax.jit(configure, static_argnames="cfg")


def permute(x, perm):
    return x[..., perm]


permute_jit = jax.jit(permute, static_argnums=1)


def use(x):
    a = configure_jit(x, cfg=dict(a=1))  # expect: JIT302
    b = configure_jit(x, cfg=tuple(sorted({"a": 1}.items())))
    c = permute_jit(x, jnp.array([1, 0]))  # expect: JIT302
    d = permute_jit(x, (1, 0))
    return a, b, c, d
