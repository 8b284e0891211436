# source: https://github.com/google-deepmind/chex/issues/387
# observed on jax 0.10.2 CPU (chex 0.1.92): f(0) raises RuntimeError "Chex assertion detected
#   `ConcretizationTypeError`: it is very likely that it tried to access tensors' values
#   during tracing", caused by TracerBoolConversionError: chex.assert_equal is a static
#   (host) assertion with no jittable version, so under jax.jit it hands the traced `x` to
#   unittest's assertEqual, whose `if not first == second:` needs a Python bool. chexify
#   only stages out value assertions that have a jittable implementation (the open fix,
#   google-deepmind/chex#435, adds one for assert_equal). The snippet is the reporter's.
# gap: cross-module
import jax
import chex

@chex.chexify
@jax.jit
def f(x):
    chex.assert_equal(x, 0)  # expect: JIT401  # tolerate: JIT101
    return

f(0)
