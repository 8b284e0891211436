# source: https://github.com/jax-ml/jax/issues/5280 (the maintainer's example of a
#   non-jittable function, and the jittable rewrite from the same comment)
# observed on jax 0.10.2 CPU: f_where runs under jit; f raises ConcretizationTypeError in
#   jnp.nonzero (data-dependent size).
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp


def f_where(a):
  return jnp.where(a != 0, a, 1).prod()


def f(a):
   return a[jnp.nonzero(a)].prod()  # expect: JIT403


x = jnp.array([0, 1, 2, 3])
print(jax.jit(f_where)(x))
print(jax.jit(f)(x))
