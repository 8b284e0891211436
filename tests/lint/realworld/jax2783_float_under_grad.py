# source: https://github.com/jax-ml/jax/issues/2783
# observed on jax 0.10.2 CPU: ConcretizationTypeError from float(x) under grad alone
#   (comparing x itself would work under grad; converting it with float() does not).
#   `api.grad` of the report is jax.grad today.
# gap: exemption-vs-JAX
import jax


def func(x):
   return x if float(x) >= 0. else -x  # expect: JIT401
print(jax.grad(func)(3.))
