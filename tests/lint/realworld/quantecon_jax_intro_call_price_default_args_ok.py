# source: https://github.com/QuantEcon/lecture-python-programming.myst/blob/03a37af07f387874ed58af44afcb6280ef49c440/lectures/jax_intro.md
#   (QuantEcon's lecture "An Introduction to JAX", the solution to exercise jax_intro_ex2:
#   Monte Carlo pricing of a European call option)
# observed on jax 0.10.2 CPU: runs clean: the function is jitted with every parameter left at
#   its keyword default, and defaults that no call passes are not traced, so `range(n)` and
#   `jnp.full(M, ...)` see Python integers. Changed: `M` lowered from 10_000_000 to 100_000,
#   and the `with qe.Timer():` blocks around the two calls (quantecon is not installed)
#   dropped. Added: the lecture's earlier imports.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp
import numpy as np

M = 100_000

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
    for t in range(n):
        key, subkey = jax.random.split(key)
        Z = jax.random.normal(subkey, (2, M))
        s = s + μ + jnp.exp(h) * Z[0, :]
        h = ρ * h + ν * Z[1, :]
    expectation = jnp.mean(jnp.maximum(jnp.exp(s) - K, 0))
        
    return β**n * expectation

compute_call_price_jax().block_until_ready()

compute_call_price_jax().block_until_ready()


if __name__ == "__main__":
    price = compute_call_price_jax()
    assert jnp.isfinite(price) and price >= 0, price
