import jax
import jax.numpy as jnp


def _apply(buf, upd):
    return buf + upd


apply_donated = jax.jit(_apply, donate_argnums=0)


def step(buf, upd):
    out = apply_donated(buf, upd)
    shape = buf.shape
    total = buf.sum()  # expect: JIT504
    return out, shape, total
