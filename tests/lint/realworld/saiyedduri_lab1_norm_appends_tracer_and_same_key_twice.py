# source: https://github.com/saiyedduri/Machine_learning_essentials/blob/eccb90d33e82cfee1365c10ad4d3d78309a9f4be/large_scale_ml/lab_1_introduction_to_jax.ipynb
#   (a university lab, "Lab 1: Introduction to JAX" (TU Freiberg, after the UvA DL
#   tutorial): the cell that draws twice from one key, "A non-desirable way of generating
#   pseudo-random numbers", and the `norm` function with a side effect shown under
#   jax.make_jaxpr)
# observed on jax 0.10.2 CPU: the two jax.random.normal(rng) draws are equal (the lab
#   shows this on purpose); make_jaxpr traces norm, so global_list.append(x) stores the
#   DynamicJaxprTracer of the trace in the module's list, where it stays after tracing
#   ends (the jaxpr has no trace of the append). Added: the lab's imports and the __main__
#   block.
# gap: stale-state-attributes
import jax
import jax.numpy as jnp

rng = jax.random.key(42)

import numpy as np 

# A non-desirable way of generating pseudo-random numbers...
jax_random_number_1 = jax.random.normal(rng)
jax_random_number_2 = jax.random.normal(rng)  # expect: JIT502
print('JAX - Random number 1:', jax_random_number_1)
print('JAX - Random number 2:', jax_random_number_2)

# Typical random numbers in NumPy
np.random.seed(42)
np_random_number_1 = np.random.normal()
np_random_number_2 = np.random.normal()
print('NumPy - Random number 1:', np_random_number_1)
print('NumPy - Random number 2:', np_random_number_2)

def f(x):
    x = x + 2
    x = x ** 2
    x = x + 3
    y = x.mean()
    return y

x = jnp.arange(3, dtype=jnp.float32)
print('Input', x)
print('Output', f(x))

global_list = []

# Invalid function with side-effect
def norm(x):
    global_list.append(x)  # expect: JIT202
    x = x ** 2
    y = x.sum()
    y = jnp.sqrt(y)
    return y

jax.make_jaxpr(norm)(x)


if __name__ == "__main__":
    # observed: line 21 draws the same number as the line before
    assert float(jax_random_number_1) == float(jax_random_number_2)
    # observed: line 47 leaves the trace's tracer in the global list
    assert len(global_list) == 1
    assert isinstance(global_list[0], jax.core.Tracer), type(global_list[0])
