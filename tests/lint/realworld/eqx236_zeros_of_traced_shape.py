# source: https://github.com/patrick-kidger/equinox/issues/236 (the maintainer's sketch of
#   what the reporter's JAX code probably does, in the first reply)
# observed on jax 0.10.2 CPU: TypeError "Shapes must be 1D sequences of concrete values of
#   integer type" at `jax.numpy.zeros(shape)`: jit traces the tuple's entries, so the
#   shape is made of tracers. Added: the import of jax and a call with the shape (3,).
# gap: other
import jax

@jax.jit
def f(shape):
  return jax.numpy.zeros(shape)  # expect: JIT404

f((3,))
