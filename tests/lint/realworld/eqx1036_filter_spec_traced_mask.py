# source: https://github.com/patrick-kidger/equinox/issues/1036 (the reporter's MWE)
# observed on jax 0.10.2 CPU: under plain jax.jit the mask of Python bools arrives as
#   traced bool arrays, and eqx.partition raises ValueError (filter_spec must consist of
#   booleans and callables only): it needs the mask's Python values at trace time. The
#   call `partition(params, params_mask)` is added.
# gap: other
import jax
import jax.numpy as jnp
import equinox as eqx

@jax.jit
def partition(params, params_mask):
    return eqx.partition(params, filter_spec=params_mask)  # expect: JIT401

params = ((1., 2.), 3.)
params_mask = ((True, False), False)

partition(params, params_mask)
