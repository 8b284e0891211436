# source: https://github.com/google-deepmind/dm-haiku/blob/18830684ff7e981d7c722e11d585a73e155133cb/haiku/_src/stateful.py
#   (hk.fori_loop before commit 7a33edf "Allow for lower and upper to be tracers in
#   hk.fori_loop.")
# observed on jax 0.10.2 CPU (dm-haiku 0.0.17 for haiku's internals): jax.jit(f.init) with
#   the loop's upper bound traced raises TracerBoolConversionError at
#   `if upper - lower == 0:`, which unwinds one step during init; jax.lax.fori_loop
#   itself accepts traced bounds. Added: the imports of haiku's internal helpers and the
#   __main__ block.
# gap: other
import jax
import jax.numpy as jnp

from haiku._src import base
from haiku._src.stateful import (internal_state, reserve_up_to_full_rng_block,
                                 temporary_internal_state, update_internal_state)


def fori_loop(lower, upper, body_fun, init_val):
  """Equivalent to :func:`jax.lax.fori_loop` with Haiku state passed in/out."""
  if not base.inside_transform():
    raise ValueError(
        "hk.fori_loop() should not be used outside of hk.transform(). "
        "Use jax.lax.fori_loop() instead.")

  def pure_body_fun(i, val):
    state, val = val
    with temporary_internal_state(state):
      val = body_fun(i, val)
      reserve_up_to_full_rng_block()
      state = internal_state()
      return state, val

  if not base.params_frozen():
    # During init we need to unwind one step of the loop to ensure the Haiku
    # state before and after the body has the same structure.
    init_val = body_fun(lower, init_val)
    lower += 1
    if upper - lower == 0:  # expect: JIT101
      return init_val

  reserve_up_to_full_rng_block()
  state = internal_state()
  init_val = state, init_val
  state, val = jax.lax.fori_loop(lower, upper, pure_body_fun, init_val)
  update_internal_state(state)
  return val


if __name__ == "__main__":
    import haiku as hk

    def f(x, n):
        def body(i, x):
            return x + hk.get_parameter("b", [], init=jnp.zeros)
        return fori_loop(0, n, body, x)

    f = hk.transform(f)
    params = jax.jit(f.init)(jax.random.PRNGKey(0), jnp.ones(3), 4)
    print(jax.jit(f.apply)(params, None, jnp.ones(3), 4))
