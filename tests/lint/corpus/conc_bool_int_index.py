import jax
import jax.numpy as jnp


@jax.jit
def gather_row(table, idx):
    row = int(idx)  # expect: JIT401
    return table[row]


@jax.jit
def gather_row_ok(table, idx):
    return jnp.take(table, idx, axis=0)


@jax.jit
def maybe_flip(x, flag):
    if bool(flag):  # expect: JIT401  # tolerate: JIT101
        return -x
    return x
