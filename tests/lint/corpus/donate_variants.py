from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, donate_argnames="buf")
def write(buf, i, v):
    return buf.at[i].set(v)


def fill(buf, values):
    for i, v in enumerate(values):
        buf = write(buf, i, v)
    return buf


def fill_bad(buf, v):
    new = write(buf, 0, v)
    return new, buf.sum()  # expect: JIT504
