# source: https://github.com/qiskit-community/qiskit-experiments/issues/1192 (the JAX
#   residual and jitted minimize in the description)
# observed on jax 0.10.2 CPU: runs clean: jax.scipy.optimize.minimize traces residual
#   under jit, and residual reads module arrays that are never rebound. Added: the imports;
#   data_factory, true_params and init_guess, which the report elided, are the smallest
#   stand-ins (a damped sine with known parameters); the %timeit line is dropped.
# gap: other
import numpy as np
import jax.numpy as jnp
from jax import jit
from jax.scipy.optimize import minimize

true_params = (0.5, 0.3, 0.1)
init_guess = (0.4, 0.3, 0.0)


def data_factory(a, f, c):
    x = np.linspace(0, 5, 100)
    return x, np.exp(-a * x) * np.sin(2 * np.pi * f * x) - c


x, y = data_factory(*true_params)

x_jax = jnp.array(x, dtype=jnp.float32)
y_jax = jnp.array(y, dtype=jnp.float32)
init_guess_jax = jnp.array(init_guess, dtype=jnp.float32)

def residual(params):
    return jnp.sum(jnp.square(y_jax - jnp.exp(-params[0] * x) * jnp.sin(2 * np.pi * params[1] * x) + params[2]))

@jit
def min_op(x0):
    result = minimize(
        residual,
        x0,
        method="BFGS",
        options=dict(gtol=1e-6),
    )
    return result

# Warm up
jax_res = min_op(init_guess_jax)

if __name__ == "__main__":
    assert jax_res.fun < residual(init_guess_jax)
