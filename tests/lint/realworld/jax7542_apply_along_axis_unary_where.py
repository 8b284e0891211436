# source: https://github.com/jax-ml/jax/issues/7542
# observed on jax 0.10.2 CPU: ConcretizationTypeError in jnp.nonzero: jnp.apply_along_axis
#   maps jnp.where over the rows with vmap, and the one-argument jnp.where has a
#   data-dependent size, so it fails on the batched row even though x is a NumPy constant
#   (NumPy's apply_along_axis of np.where works).
# gap: other
import numpy as np 
import jax.numpy as jnp

x = np.array([[0, 0, 1, 1], [1, 1, 0, 0], [0, 1, 1, 0]])
np.apply_along_axis(np.where, 1, x).squeeze()
jnp.apply_along_axis(jnp.where, 1, x).squeeze()  # expect: JIT403
