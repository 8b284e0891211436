# source: https://github.com/jax-ml/jax/issues/196 (the maintainer's answer: control flow on
#   values works under grad, which does not abstract its inputs)
# observed on jax 0.10.2 CPU: runs clean; grad of the branching lambda is 1.0 and -1.0.
# gap: exemption-vs-JAX
from jax import grad

print(grad(lambda x: x if x > 0 else -x)(3.0))
print(grad(lambda x: x if x > 0 else -x)(-3.0))
