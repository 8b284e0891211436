# source: https://github.com/jax-ml/jax/issues/4712 (the reporter's example; `jax.partial` is
#   now `functools.partial` and `jax.profiler.TraceContext` is now
#   `jax.profiler.TraceAnnotation`, imports added)
# observed on jax 0.10.2 CPU: ValueError: Non-hashable static arguments are not supported
#   (a list) at the first call; when the report was written JAX hashed the list by identity
#   and recompiled for every new `[0]`.
# gap: static-hashability
import functools

import jax
import jax.numpy as jnp


@functools.partial(jax.jit, static_argnums=(0,))
def dummy_add_fn(dummy, x):
    return x + 1

dummy_arg = [0]
real_arg = jnp.zeros((3,))
with jax.profiler.TraceAnnotation("Run 1"):
    dummy_add_fn(dummy_arg, real_arg)  # <- JIT compilation  # expect: JIT302
with jax.profiler.TraceAnnotation("Run 2"):
    dummy_add_fn(dummy_arg, real_arg)  # <- no compilation

dummy_arg = [0]
with jax.profiler.TraceAnnotation("Run 3"):
    dummy_add_fn(dummy_arg, real_arg)  # <- compiles again
