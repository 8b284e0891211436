# source: https://github.com/jax-ml/jax/issues/20889 (the user's repro in the description)
# observed on jax 0.10.2 CPU: `jax.grad(loss)(x, mask)` raises UnexpectedTracerError ("the
#   leaked intermediate value was created on line ... (step)"): inside the scan body the
#   carried `mask` is a tracer, and `func(*carry)` hands it to the position that
#   `nondiff_argnums=(1,)` declares non-differentiable; the jvp rule closes over that tracer,
#   which is stale when grad differentiates the staged scan. Added: the try/except around
#   the last line, so that the file runs on to its __main__ check.
# gap: static-hashability
import jax
from jax import numpy as jnp

def func_fwd(arr, mask):
  return arr * mask

def func_jvp(mask, primals, tangents):
  def f(arr):
    return arr * mask
  return jax.jvp(f, primals, tangents)

func = jax.custom_jvp(func_fwd, nondiff_argnums=(1,))
func.defjvp(func_jvp)

def step(carry, _):
  return (func(*carry), carry[1]), None  # expect: JIT302  # tolerate: JIT401

def loss(x, mask):
  carry, _ = jax.lax.scan(step, (x, mask), [None] * 2, length = 2)
  return carry[0].sum()

x = jnp.ones(10)
mask = jnp.zeros(10, dtype=bool)


try:
  gradients = jax.grad(loss)(x, mask)
except jax.errors.UnexpectedTracerError as e:
  print(type(e).__name__)


if __name__ == "__main__":
    # observed: line 24 passes the traced mask into the nondiff position; grad then fails
    try:
        jax.grad(loss)(x, mask)
    except jax.errors.UnexpectedTracerError as e:
        assert f"{__file__}:24" in str(e), str(e)
    else:
        raise AssertionError("no UnexpectedTracerError")
