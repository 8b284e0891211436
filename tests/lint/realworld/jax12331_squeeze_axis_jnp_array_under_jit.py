# source: https://github.com/jax-ml/jax/issues/12331 (the reporter's first snippet, jnp.squeeze;
#   the expand_dims variant of the thread's comment is left out)
# observed on jax 0.10.2 CPU: fn(inp) runs eagerly and prints the squeezed array; under
#   jax.jit the axis `jax.numpy.array(1, ...)` is a tracer (every JAX operation is staged),
#   and jnp.squeeze raises ConcretizationTypeError ("expected a static index or sequence of
#   indices") at the squeeze line.
# gap: omnistaging
import jax

def fn(inp):
    axis = jax.numpy.array(1, dtype=jax.numpy.int32)
    return jax.numpy.squeeze(inp, axis)  # expect: JIT404

mykey = jax.random.PRNGKey(0)
inp = jax.random.uniform(mykey, [3, 1], jax.numpy.float32, minval=0, maxval=1)

print(fn(inp))
# [0.9653214  0.31468165 0.63302994]

jax.jit(fn)(inp)
# TypeError: iteration over a 0-d array
