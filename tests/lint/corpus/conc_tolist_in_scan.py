import jax
import jax.numpy as jnp


def decode(tokens, table):
    def step(carry, t):
        idx = t.item()  # expect: JIT401
        return carry, table[idx]

    return jax.lax.scan(step, 0, tokens)


def decode_host(tokens, vocab):
    return [vocab[t] for t in jnp.asarray(tokens).tolist()]
