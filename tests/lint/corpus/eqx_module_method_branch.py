import equinox as eqx
import jax
import jax.numpy as jnp


class GatedResidual(eqx.Module):
    linear: eqx.nn.Linear
    gate_threshold: float = eqx.field(static=True)

    def __call__(self, x):
        h = self.linear(x)
        if self.gate_threshold > 0:
            h = jnp.where(jnp.abs(h) > self.gate_threshold, h, 0.0)
        return x + h


@eqx.filter_jit
def apply_all(block, xs):
    out = jax.vmap(block)(xs)
    if out.shape[0] == 0:
        return out
    return out / jnp.linalg.norm(out, axis=-1, keepdims=True)


@eqx.filter_jit
def gated_norm(block, xs):
    out = jax.vmap(block)(xs)
    norm = jnp.linalg.norm(out)
    if norm > 1.0:  # expect: JIT101
        out = out / norm
    return out
