# source: https://github.com/google-deepmind/chex/blob/v0.1.92/README.md (the "Value
#   assertions" example of chexify; the README indents it inside a code block)
# observed on jax 0.10.2 CPU (chex 0.1.92): runs clean. assert_tree_all_finite is a value
#   assertion with a jittable version, which chexify stages out with checkify: the jitted
#   function traces once, the call on ones passes, and the call on [nan, 3] reports its
#   failure as an AssertionError at wait_checks(), as the README says. Added: the imports,
#   and a try/except around wait_checks() that expects that deliberate AssertionError.
# gap: exemption-vs-JAX
import chex
import jax
import jax.numpy as jnp


@chex.chexify
@jax.jit
def logp1_abs_safe(x: chex.Array) -> chex.Array:
  chex.assert_tree_all_finite(x)
  return jnp.log(jnp.abs(x) + 1)

logp1_abs_safe(jnp.ones(2))  # OK
logp1_abs_safe(jnp.array([jnp.nan, 3]))  # FAILS (in async mode)

# The error will be raised either at the next line OR at the next
# `logp1_abs_safe` call. See the docs for more detain on async mode.
try:
  logp1_abs_safe.wait_checks()  # Wait for the (async) computation to complete.
except AssertionError as err:
  assert "assert_tree_all_finite" in str(err), err
  print("caught the deliberate value assertion:", str(err).splitlines()[0])
else:
  raise SystemExit("expected the value assertion on [nan, 3] to fail")
