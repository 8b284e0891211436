# source: https://openillumi.com/en/en-jax-conditional-array-update (a Stack Overflow question retold: the NumPy update q[q < 0] = 0.0 on a JAX array; same article https://openillumi.com/?p=88376)
# observed on jax 0.10.2 CPU: TypeError "JAX arrays are immutable and do not support in-place item assignment" at the labelled line
# gap: other
# added: the import and an input array q (the question does not show how q was built)
import jax.numpy as np

q = np.array([-1.0, 2.0, -3.0, 4.0])
q[q < 0] = 0.0  # expect: JIT501
