# source: https://crackedaicode.com/problems/jax-static-argnames-in-jit
#   (the "Worked mini-example": its BREAKS version, as posted, up to the error it quotes)
# observed on jax 0.10.2 CPU: jax.jit(repeat_v1)(x, 3) traces n, so jnp.zeros gets a shape
#   computed from a tracer and raises TypeError ("Shapes must be 1D sequences of concrete
#   values of integer type"; the page quotes a ConcretizationTypeError); the `range(n)` the
#   comment also warns about is never reached.
# gap: other
import jax
import jax.numpy as jnp
# BREAKS — n is a Tracer under plain jit; output shape unknown at trace time
def repeat_v1(x, n):
    out = jnp.zeros((n * x.shape[0],)) # n is a tracer; shape error  # expect: JIT404
    for i in range(n): # range(tracer) also errors  # tolerate: JIT104
        out = out.at[i * x.shape[0]:(i + 1) * x.shape[0]].set(x)
    return out
jax.jit(repeat_v1)(jnp.array([1.0, 2.0]), 3)
