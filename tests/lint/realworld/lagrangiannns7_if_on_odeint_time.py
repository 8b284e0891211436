# source: https://github.com/MilesCranmer/lagrangian_nns/issues/7 (the user's change to
#   analytical_fn; the elided rest of the body is the function's body at
#   MilesCranmer/lagrangian_nns@ace6012 experiment_dblpend/physics.py, and the caller is
#   get_trajectory_analytic from data.py at the same commit)
# observed on jax 0.10.2 CPU: TracerBoolConversionError: odeint calls the jitted
#   analytical_fn with a traced time t.
# gap: other
from functools import partial

import jax
import jax.numpy as jnp
from jax import jit
from jax.experimental.ode import odeint


@jit
def analytical_fn(state, t=0, m1=1, m2=1, l1=1, l2=1, g=9.8):
      t1, t2, w1, w2 = state
      if(t > 1.5):  # expect: JIT101
          out = t1
      else:
         out = t2
      a1 = (l2 / l1) * (m2 / (m1 + m2)) * jnp.cos(t1 - t2)
      a2 = (l1 / l2) * jnp.cos(t1 - t2)
      f1 = -(l2 / l1) * (m2 / (m1 + m2)) * (w2**2) * jnp.sin(t1 - t2) - (g / l1) * jnp.sin(t1)
      f2 = (l1 / l2) * (w1**2) * jnp.sin(t1 - t2) - (g / l2) * jnp.sin(t2)
      g1 = (f1 - a1 * f2) / (1 - a1 * a2)
      g2 = (f2 - a2 * f1) / (1 - a1 * a2)
      return jnp.stack([w1, w2, g1, g2])


@partial(jax.jit, backend='cpu')
def get_trajectory_analytic(y0, times, **kwargs):
    return odeint(analytical_fn, y0, t=times, rtol=1e-10, atol=1e-10, **kwargs)


get_trajectory_analytic(jnp.array([0.3, 0.2, 0.0, 0.1]), jnp.linspace(0.0, 2.0, 5))
