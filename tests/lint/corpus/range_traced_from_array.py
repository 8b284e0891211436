"""Loop bounds computed from array values rather than shapes."""

import jax
import jax.numpy as jnp


@jax.jit
def decode_greedy(logits, lengths):
    max_len = jnp.max(lengths)
    out = []
    for t in range(max_len):  # expect: JIT104
        out.append(jnp.argmax(logits[:, t], axis=-1))
    return jnp.stack(out, axis=1)


@jax.jit
def repeat_count(x, counts):
    total = jnp.zeros_like(x)
    for _ in range(counts.sum()):  # expect: JIT104
        total = total + x
    return total


@jax.jit
def sum_by_chunks(x):
    n_chunks = x.shape[0] // 4
    acc = jnp.zeros(x.shape[1:])
    for c in range(n_chunks):
        acc = acc + x[4 * c : 4 * (c + 1)].sum(0)
    for c in range(0, x.shape[0], 8):
        acc = acc + x[c]
    return acc
