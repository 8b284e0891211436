"""Truthiness and length of tuple/list parameters are static even when their items are traced."""

from collections.abc import Sequence

import jax
import jax.numpy as jnp


def gather_block(table, start_indices: Sequence[jax.Array], sizes: Sequence[int]):
    assert len(start_indices) == len(sizes)
    zero = start_indices[0] * 0 if start_indices else jnp.int32(0)
    return jax.lax.dynamic_slice(table, [zero + s for s in start_indices], sizes)


@jax.jit
def gather_all(table, idx):
    return gather_block(table, (idx, idx), (2, 2))


def kernel_body(x, *, scale: float, program_ids=()):
    if program_ids:
        i, j = program_ids
        x = x + i - j
    return x * scale


@jax.jit
def call_kernel(x, i, j):
    return kernel_body(x, scale=2.0, program_ids=(i, j))
