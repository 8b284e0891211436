# source: https://github.com/jax-ml/jax/issues/3708
# observed on jax 0.10.2 CPU: the first call raises ValueError ("Non-hashable static
#   arguments are not supported ... unhashable type: 'slice'") at `foo(a, slice(1, 2))`:
#   under Python 3.11 a slice is not hashable, so it cannot be a static argument (in 2020
#   JAX cached it by object identity and recompiled on every call). Added: the print
#   around the reporter's calls.
# gap: static-hashability
import functools

import jax


@functools.partial(jax.jit, static_argnums=1)
def foo(arr, s):
  return arr[s]

a = jax.numpy.array([1, 2, 3])
print(foo(a, slice(1, 2)))  # expect: JIT302
