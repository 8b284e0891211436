# source: https://github.com/jax-ml/jax/issues/10493 (YouJiacheng's simpler example in the
#   comments, for mattjj's pmap-of-vmap report in the description)
# observed on jax 0.10.2 CPU: the eager `jnp.sum(x[0], y[0])` prints 4.0; the vmapped call
#   raises ConcretizationTypeError at the lambda's jnp.sum ("The axis argument must be known
#   statically"): vmap maps over y too, so the axis argument is a batched tracer.
#   Added: nothing.
# gap: other
from jax import vmap
import jax.numpy as jnp

x = jnp.ones((3, 2, 2))
y = jnp.array([[0, 1]] * 3)

print(jnp.sum(x[0], y[0]))
print(vmap(lambda x, y: jnp.sum(x, y))(x,y))  # expect: JIT404
