# source: https://github.com/jax-ml/jax/issues/6350
# observed on jax 0.10.2 CPU: jax.ops.segment_sum runs eagerly, but jitted with
#   num_segments left to its default it raises ConcretizationTypeError: the number of
#   segments is computed from the traced segment_ids (max + 1), an output shape.
# gap: other
import jax
import numpy as np

c = np.array([[1,2,3,4], [4, 3, 2, 1], [5,6,7,8]])
b = np.array([0, 0, 1])
jax.ops.segment_sum(c, b)
jit_fn = jax.jit(jax.ops.segment_sum)
jit_fn(c, b)  # expect: JIT404
