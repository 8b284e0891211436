# source: https://github.com/brainpy/BrainPy/issues/607 (the reporter's loop in the loss
#   function)
# observed on jax 0.10.2 CPU: TypeError: Shapes must be 1D sequences of concrete values of
#   integer type: the slice size idx is read from gt, a traced argument. Added: the imports,
#   the enclosing jitted loss (BrainPy jits the reporter's loss during training) and
#   stand-ins for the network output `out` (time x batch) and the labels `gt`.
# gap: other
import jax
import jax.numpy as jnp

batch_size = 4


@jax.jit
def loss(out, gt):
    total = 0.0
    # slice each sample
    for i in range(batch_size):
        idx = jax.lax.dynamic_index_in_dim(gt, i)
        l1 = jax.lax.dynamic_slice(out, (0,i), (idx,1))   #got error  # expect: JIT404
        total = total + l1.sum()
    return total


loss(jnp.ones((10, batch_size)), jnp.array([3, 5, 2, 7]))
