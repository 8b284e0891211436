# source: https://github.com/jax-ml/jax/issues/3584
# observed on jax 0.10.2 CPU: runs clean: jax.grad (and jax.jit of it) of odeint over the
#   Lotka-Volterra dynamics returns finite gradients; the report's TypeError ("Primal
#   inputs to reverse-mode differentiation must be of float or complex type, got type
#   int32", a regression of jax 0.1.70) no longer occurs. Added: the __main__ block, which
#   runs both of the report's repros, under grad and under jit of grad; the simpler
#   repro's dz_dt and f are renamed dz_dt_simple and f_simple to sit in one file.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp
from jax.experimental.ode import odeint

def dz_dt(z, t, theta):
    """ Lotka–Volterra equations. """
    u = z[0]
    v = z[1]
    alpha, beta, gamma, delta = theta[0], theta[1], theta[2], theta[3]
    du_dt = (alpha - beta * v) * u
    dv_dt = (-gamma + delta * u) * v
    return jnp.stack([du_dt, dv_dt])

def f(z):
    y = odeint(dz_dt, z, jnp.arange(10.), jnp.ones(4))
    return jnp.sum(y)


def dz_dt_simple(z, t):
    return jnp.stack([z[0], z[1]])

def f_simple(z):
    y = odeint(dz_dt_simple, z, jnp.arange(10.))
    return jnp.sum(y)


if __name__ == "__main__":
    g = jax.grad(f)(jnp.ones(2))
    assert g.shape == (2,) and bool(jnp.isfinite(g).all()), g
    assert jnp.allclose(jax.jit(jax.grad(f))(jnp.ones(2)), g, rtol=1e-4)
    g_simple = jax.jit(jax.grad(f_simple))(jnp.ones(2))
    # d/dz of sum_t z*exp(t) over t = 0..9, per component
    assert jnp.allclose(g_simple, jnp.sum(jnp.exp(jnp.arange(10.))), rtol=1e-3), g_simple
