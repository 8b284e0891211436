# source: https://github.com/patrick-kidger/diffrax/issues/97
# observed on jax 0.10.2 CPU: with diffrax 0.7.2, runs clean; t1 is traced under jax.jit and
#   diffeqsolve accepts it, as the maintainer answers. The unused `einops` import is
#   dropped; the calls with two end times are added.
# gap: exemption-vs-JAX
import jax 
from diffrax import diffeqsolve, ODETerm, Dopri5, SaveAt, PIDController
import jax.numpy as jnp

def f(t, y, args):
    return -y 

term = ODETerm(f)
solver = Dopri5()
stepsize_controller = PIDController(rtol=1e-5, atol=1e-5)

@jax.jit
def ivp(t1, y0):
  return diffeqsolve(term, solver, t0=0, t1=t1, dt0=0.1, y0=y0, saveat=SaveAt(t1=True), stepsize_controller=stepsize_controller).ys

if __name__ == "__main__":
    y1 = ivp(1.0, jnp.array([1.0]))
    y2 = ivp(2.0, jnp.array([1.0]))
    assert jnp.allclose(y1, jnp.exp(-1.0), rtol=1e-3)
    assert jnp.allclose(y2, jnp.exp(-2.0), rtol=1e-3)
