# source: https://github.com/oseledets/nla2022/blob/74012b664218d52250e334bb7ab5fe001aeef616/lectures/lecture-4/jax-tutorial.ipynb
#   (Skoltech's Numerical Linear Algebra course 2022, lecture 4 "JAX Tutorial", section
#   "4 Checkify": "JAX does not allow to throw exceptions in JITed function.")
# observed on jax 0.10.2 CPU: jax.jit(double)(1.0) raises TracerBoolConversionError at
#   `if (value < 0).any():` -- under jit `value` is a tracer, so its comparison has no
#   truth value (the notebook's comment says ConcretizationTypeError, its parent class).
#   The lecture then rewrites the check with checkify.check (the fix, in
#   nla2022_lecture4_checkify_and_static_minimize_ok.py). Only the imports are added.
# gap: other
import jax
import jax.numpy as jnp


def double(value):
    value = jnp.asarray(value)
    if (value < 0).any():  # expect: JIT101
        raise ValueError('Expected a scalar.')
    return 2 * value

jax.jit(double)(1.0)  # Error: Throw ConcretizationTypeError exception!
