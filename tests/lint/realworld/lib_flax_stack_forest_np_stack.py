# source: https://github.com/google/flax/blob/54fa32d969182e6e1df2f5bb5898732b11519668/flax/training/common_utils.py
#   (stack_forest before commit c08e60b3, "use jnp.stack instead of np.stack")
# observed on jax 0.10.2 CPU: stack_forest works on concrete arrays, but called under
#   jax.jit np.stack receives tracers and raises TracerArrayConversionError. Only
#   stack_forest and its imports are kept; the calls at the end are added.
# gap: types
import jax
import jax.numpy as jnp
import numpy as np


def stack_forest(forest):
  """Helper function to stack the leaves of a sequence of pytrees.

  Args:
    forest: a sequence of pytrees (e.g tuple or list) of matching structure
      whose leaves are arrays with individually matching shapes.
  Returns:
    A single pytree of the same structure whose leaves are individually
      stacked arrays.
  """
  stack_args = lambda *args: np.stack(args)  # expect: JIT402
  return jax.tree_util.tree_map(stack_args, *forest)


if __name__ == "__main__":
  forest = [{"w": jnp.ones(3), "b": jnp.zeros(())} for _ in range(4)]
  print(stack_forest(forest)["w"].shape)
  jax.jit(stack_forest)(forest)
