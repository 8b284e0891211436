# source: https://github.com/google-deepmind/dm-haiku/blob/7a33edf240a51f570c1e4827b6d5256191728ee3/haiku/_src/stateful.py
#   (hk.fori_loop after commit 7a33edf "Allow for lower and upper to be tracers in
#   hk.fori_loop.")
# observed on jax 0.10.2 CPU (dm-haiku 0.0.17 for haiku's internals): runs clean under
#   jax.jit with a traced upper bound: the early-exit test is tried and its
#   ConcretizationTypeError caught, and jax.lax.fori_loop takes the traced bounds.
#   Added: the imports of haiku's internal helpers and the __main__ block.
# gap: exemption-vs-JAX
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
    try:
      if upper - lower == 0:
        return init_val
    except jax.errors.ConcretizationTypeError:
      # upper or lower might be tracers, which jax.lax.fori_loop can handle.
      pass

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
