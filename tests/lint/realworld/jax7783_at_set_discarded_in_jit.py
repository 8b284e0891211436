# source: https://github.com/jax-ml/jax/pull/7783 (lfaucheux's comment of 2022-06-04)
# observed on jax 0.10.2 CPU: `f(a, idx, -1) or a` gives back `a` unchanged, all ones:
#   `a.at[idx].set(b)` builds a new array, which f discards, so f returns None and the
#   input is never modified (JAX arrays are immutable; jit does not make the update
#   in-place on the caller's array). Added: the imports and the __main__ check.
# gap: other
import numpy as onp
import jax.numpy as jnp
from jax import jit


@jit
def f(
    a, idx, b
):
    a.at[idx].set(b)  # expect: JIT503

a = jnp.ones((3, 3))
idx = ((1, 1, 2, 2), (1, 2, 1, 2),)
print(f(a, idx, -1) or a)

oa = onp.ones((3, 3))
print(oa.__setitem__(idx, -1) or oa)


if __name__ == "__main__":
    # observed: line 16 discards the update: f returns None and a keeps no -1
    assert f(a, idx, -1) is None
    assert (a == 1).all()
    assert (oa[1:, 1:] == -1).all()
