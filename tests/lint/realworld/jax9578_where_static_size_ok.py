# source: https://github.com/jax-ml/jax/issues/9578 (the maintainer's answer for a static n:
#   pass `size=n + 1` to jnp.where)
# observed on jax 0.10.2 CPU: runs clean; with a static size jnp.where has a fixed output
#   shape under jit. The answer's return line is put in the reporter's function; imports,
#   static_argnames for n and the call are added.
# gap: exemption-vs-JAX
from functools import partial

import jax
import jax.numpy as jnp

@partial(jax.jit, static_argnames="n")
def idx_n_th_occurence(operand, occurence, n=0):
    return jnp.where(operand==occurence, size=n + 1)[n]

if __name__ == "__main__":
    x = jnp.array([1., 3., 2., 3.])
    assert idx_n_th_occurence(x, 3.).tolist() == [1]
