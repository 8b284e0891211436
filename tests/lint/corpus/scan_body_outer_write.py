"""Scan bodies that write to outer Python state."""

import jax
import jax.numpy as jnp


def unroll_rnn(cell, h0, xs):
    hiddens = []

    def step(h, x):
        h = jnp.tanh(cell @ h + x)
        hiddens.append(h)  # expect: JIT202
        return h, h

    h_final, hs = jax.lax.scan(step, h0, xs)
    return h_final, hs, hiddens


def unroll_rnn_ok(cell, h0, xs):
    def step(h, x):
        h = jnp.tanh(cell @ h + x)
        return h, h

    h_final, hs = jax.lax.scan(step, h0, xs)
    hiddens = [hs[i] for i in range(hs.shape[0])]
    return h_final, hiddens
