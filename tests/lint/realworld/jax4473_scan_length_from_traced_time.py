# source: https://github.com/jax-ml/jax/issues/4473
# observed on jax 0.10.2 CPU: the call raises ConcretizationTypeError (the `length` argument
#   to `scan` expects a concrete int): `time` and `dt` are traced by jit, so
#   `np.divide(time, dt).astype(int)` is a tracer. `from jax import partial` is now
#   `functools.partial`.
# gap: omnistaging
from functools import partial

from jax import jit
from jax.lax import scan
import jax.numpy as np


@partial(jit, static_argnums=(0,))
def integrate_euler(f, initial_state, time, dt):
    propagated_state, _ = scan(  # expect: JIT404
        f=lambda state, _: (euler_integration_step(f, state, dt), None),
        init=initial_state,
        length=np.divide(time, dt).astype(int),
        xs=None,
    )
    return propagated_state


def euler_integration_step(f, state, dt):
    return state + dt*f(state)


# Example: solve dx/dt = 9x/10, for t=1.0, starting with x0 = [1, 2], and using a timestep of 0.01.
integrate_euler(
    lambda x: 0.9*x,
    initial_state=np.array([1., 2.]),
    time=1.0,
    dt=1e-2
)
