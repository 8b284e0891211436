"""Writes into Refs (Pallas kernels, jax state) are the intended mutation API."""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def add_kernel(x_ref, y_ref, o_ref, acc_ref):
    @pl.when(pl.program_id(0) == 0)
    def _init():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    def body(i, carry):
        acc_ref[...] += x_ref[...] * i
        return carry

    jax.lax.fori_loop(0, 4, body, None)
    o_ref[...] = acc_ref[...] + y_ref[...]


def add(x, y):
    return pl.pallas_call(
        add_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        scratch_shapes=[pl.VMEM(x.shape, x.dtype)] if hasattr(pl, "VMEM") else [],
        interpret=True,
    )(x, y)
