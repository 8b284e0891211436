# source: https://github.com/QuantEcon/lecture-python-programming/pull/442
#   (compute_call_price_jax in lectures/jax_intro.md after the fix, 2f103af: the Python
#   for loop replaced by jax.lax.fori_loop)
# observed on jax 0.10.2 CPU: the jitted function compiles once and returns the same price
#   on the second call; M and n keep their Python defaults (jit traces only the arguments
#   passed), so jnp.full(M, ...) and β**n see Python ints. Added: the imports of the
#   lecture, a stand-in for quantecon's Timer (quantecon is not installed) and the assert;
#   M is 10_000 instead of the lecture's 10_000_000 (run time).
# gap: other
import contextlib
import types

import jax
import jax.numpy as jnp
import numpy as np

qe = types.SimpleNamespace(Timer=contextlib.nullcontext)

M = 10_000

n, β, K = 20, 0.99, 100
μ, ρ, ν, S0, h0 = 0.0001, 0.1, 0.001, 10, 0

@jax.jit
def compute_call_price_jax(β=β,
                           μ=μ,
                           S0=S0,
                           h0=h0,
                           K=K,
                           n=n,
                           ρ=ρ,
                           ν=ν,
                           M=M,
                           key=jax.random.PRNGKey(1)):

    s = jnp.full(M, np.log(S0))
    h = jnp.full(M, h0)

    def update(i, loop_state):
        s, h, key = loop_state
        key, subkey = jax.random.split(key)
        Z = jax.random.normal(subkey, (2, M))
        s = s + μ + jnp.exp(h) * Z[0, :]
        h = ρ * h + ν * Z[1, :]
        new_loop_state = s, h, key
        return new_loop_state

    initial_loop_state = s, h, key
    final_loop_state = jax.lax.fori_loop(0, n, update, initial_loop_state)
    s, h, key = final_loop_state

    expectation = jnp.mean(jnp.maximum(jnp.exp(s) - K, 0))

    return β**n * expectation

with qe.Timer():
    compute_call_price_jax().block_until_ready()

with qe.Timer():
    compute_call_price_jax().block_until_ready()

assert float(compute_call_price_jax()) == float(compute_call_price_jax())
