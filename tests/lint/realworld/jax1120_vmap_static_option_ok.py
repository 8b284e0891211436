# source: https://github.com/jax-ml/jax/issues/1120 (the calls of python_control_flow that
#   work in the description, and the one reported not to, which works now)
# observed on jax 0.10.2 CPU: runs clean: option stays a Python bool in each call (closed
#   over by the lambda, or left unbatched by vmap's in_axes=None). Added: imports and the
#   __main__ block.
# gap: other
import jax.numpy as np
from jax import jit, vmap

def python_control_flow(x, option=False):
  return x**2 if option else x**3

vmap(python_control_flow)(np.arange(3))  # works
vmap(jit(python_control_flow))(np.arange(3))  # works
vmap(jit(lambda x: python_control_flow(x, True)))(np.arange(3))  # works
vmap(python_control_flow, in_axes=(0, None))(np.arange(3), True)  # doesn't work

if __name__ == "__main__":
    assert vmap(jit(lambda x: python_control_flow(x, True)))(np.arange(3)).tolist() == [0, 1, 4]
