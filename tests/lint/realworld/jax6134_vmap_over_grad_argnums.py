# source: https://github.com/jax-ml/jax/issues/6134
# observed on jax 0.10.2 CPU: vmap hands the lambda a BatchTracer for variable_position,
#   and grad(target_function, variable_position) needs argnums as a Python int: it raises
#   ConcretizationTypeError (in value_and_grad's concrete_or_error on argnums) on the
#   lambda's line. On jax 0.2.10 the same call failed with "TypeError: iteration over a
#   0-d array".
# gap: other
import jax.numpy as jnp
from jax import grad, vmap


def target_function(x, y):
    single_input = jnp.array([x, y])
    return jnp.sum(single_input ** 3)

single_input = jnp.array([1., 1.])

vmap_second_derivatives = (
    lambda variable_position: grad(grad(target_function, variable_position), variable_position)(*single_input)  # expect: JIT404  # tolerate: JIT401
)

variable_positions = jnp.array([0, 1])

second_derivatives = vmap(vmap_second_derivatives)(variable_positions)
