# source: https://crackedaicode.com/problems/jax-jit-with-grad-composition
#   (the "Worked mini-example")
# observed on jax 0.10.2 CPU: runs clean; jit_grad is made once, outside any loop, so the
#   second call with the same shapes reuses the first compilation, and both return 40.0.
#   Added: the __main__ block.
# gap: per-call-recompile
import jax, jax.numpy as jnp

def loss(w, x):
    return jnp.sum((w * x) ** 2)

# Three equivalent uses:
grad_only = jax.grad(loss)
jit_grad = jax.jit(jax.grad(loss))
value_grad_jit = jax.jit(jax.value_and_grad(loss))

# First call traces and compiles:
jit_grad(2.0, jnp.array([1.0, 3.0]))   # → 40.0  (compiled now)
jit_grad(2.0, jnp.array([1.0, 3.0]))   # → 40.0  (uses cache)

if __name__ == "__main__":
    assert float(jit_grad(2.0, jnp.array([1.0, 3.0]))) == 40.0
    assert jit_grad._cache_size() == 1
    value, g = value_grad_jit(2.0, jnp.array([1.0, 3.0]))
    assert float(value) == 40.0 and float(g) == float(grad_only(2.0, jnp.array([1.0, 3.0])))
