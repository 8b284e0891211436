# source: https://github.com/jax-ml/jax/issues/1170 (the example; the imports `jax`,
#   `jax.numpy as np` and `numpy as onp` added; the __main__ block added)
# observed on jax 0.10.2 CPU: runs clean: `jax.jit(jax.pmap(f))` called with keyword
#   arguments maps over their leading axis of 1 and returns [8], the same as the positional
#   call (in August 2019 pmap looked only at positional arguments for the axis size and
#   raised "pmap requires a leading axis to map over").
# gap: exemption-vs-JAX
import jax
import jax.numpy as np
import numpy as onp


def f(index1, index2):
  return np.arange(36).reshape(6, 6)[index1, index2]
g = jax.jit(jax.pmap(f))
g(index1=onp.asarray([1]), index2=onp.asarray([2]))

if __name__ == "__main__":
    out = g(index1=onp.asarray([1]), index2=onp.asarray([2]))
    assert out.tolist() == [8]
    assert g(onp.asarray([1]), onp.asarray([2])).tolist() == [8]
