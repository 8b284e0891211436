# source: https://github.com/jax-ml/jax/issues/5017
# observed on jax 0.10.2 CPU: sim_function runs without jit; under jax.jit it raises
#   ConcretizationTypeError at jnp.arange(steps): `steps` is made by jnp.array from Python
#   constants, and under jit every jnp operation returns a tracer. The jitted call at the
#   end is added (the report says "If I jit sim_function").
# gap: omnistaging
import jax
import jax.numpy as jnp
from jax.lax import scan
import numpy as np

def jaxfixedsolve(rhs, t_span, y0, max_dt):

    delta_t = t_span[1] - t_span[0]
    steps = jnp.array(delta_t // max_dt).astype(int)
    h = delta_t / steps

    def scan_func(carry, step):
        eval_time = t_span[0] + (h * step)
        return (carry + rhs(eval_time, carry)*h, None)

    yf = scan(scan_func, y0, jnp.arange(steps))[0]  # expect: JIT404
    return yf

def sim_function(coeff):

    def rhs(t, y):
        return coeff * y
    
    return jaxfixedsolve(rhs, t_span=[0, 0.5], y0=jnp.array(1., dtype=float), max_dt = 0.1)

print(sim_function(1.0))
print(jax.jit(sim_function)(1.0))
