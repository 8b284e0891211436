# source: https://github.com/jax-ml/jax/issues/3108 (the repro in the report)
# observed on jax 0.10.2 CPU: runs clean: polyval is jitted once and called twice with the
#   same shapes; lax.scan carries the Horner recurrence. Added: the check in __main__ (the
#   report is about wasted compile-time work, not a wrong result).
# gap: other
import jax
import jax.lax as lax
import jax.numpy as jnp
import numpy as np


@jax.jit
def _polyval(p, x):
  shape = lax.broadcast_shapes(p.shape[1:], x.shape)
  dtype = jnp.result_type(p, x)
  y = lax.full_like(x, 0, shape=shape, dtype=dtype)
  y, _ = lax.scan(lambda y, p: (y * x + p, None), y, p)
  return y


def polyval(p, x):
  return _polyval(p, x)


x = np.random.rand()
p = np.random.randn(10000)
pv = jax.jit(polyval)
pv(p, x).block_until_ready()
pv(p, x).block_until_ready()

if __name__ == "__main__":
    q = np.array([1.0, 2.0, 3.0])
    assert np.allclose(pv(q, 2.0), 11.0)
