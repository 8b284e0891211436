# source: https://github.com/jax-ml/jax/issues/5287
# observed on jax 0.10.2 CPU: map_row keeps `alpha` static, but hands it to lax.scan in the
#   carry dict, so inside `body` kwargs['alpha'] is a tracer; body then passes it to p_tau,
#   whose `alpha` is static_argnums=(2,), and the call at line 43 raises "ValueError:
#   Non-hashable static arguments are not supported ... TypeError: unhashable type:
#   'DynamicJaxprTracer'". The thread's code is cut off inside map_row after the scan
#   (`tau = (result['t`); the stand-in returns the scan result. `jax.partial` is spelled
#   functools.partial and jnp.clip's `a_min=0` is spelled `min=0` (both removed).
#   Added: the driver in __main__ (one row, alpha=1.5, T=10).
# gap: static-hashability
import functools

import jax
import jax.numpy as jnp
from jax import custom_jvp
from jax import jit
from jax import lax
from jax import vmap


@functools.partial(jit, static_argnums=(2,))
def p_tau(z, tau, alpha=1.5):
    return jnp.clip((alpha - 1) * z - tau, min=0) ** (1 / (alpha - 1))


@jit
def get_tau(tau, tau_max, tau_min, z_value):
    return lax.cond(z_value < 1,
                    lambda _: (tau, tau_min),
                    lambda _: (tau_max, tau),
                    operand=None
                    )


@jit
def body(kwargs, x):
    tau_min = kwargs['tau_min']
    tau_max = kwargs['tau_max']
    z = kwargs['z']
    alpha = kwargs['alpha']

    tau = (tau_min + tau_max) / 2
    z_value = p_tau(z, tau, alpha).sum()  # expect: JIT302
    taus = get_tau(tau, tau_max, tau_min, z_value)
    tau_max, tau_min = taus[0], taus[1]
    return {'tau_min': tau_min, 'tau_max': tau_max, 'z': z, 'alpha': alpha}, None


@functools.partial(jit, static_argnums=(1, 2,))
def map_row(z_input, alpha, T):
    z = (alpha - 1) * z_input

    tau_min, tau_max = jnp.min(z) - 1, jnp.max(z) - z.shape[0] ** (1 - alpha)
    result, _ = lax.scan(body, {'tau_min': tau_min, 'tau_max': tau_max, 'z': z, 'alpha': alpha}, xs=None,
                         length=T)
    return result  # stand-in for the rest of map_row, cut off in the thread


if __name__ == "__main__":
    map_row(jnp.array([0.5, 1.0, -0.3, 2.0]), 1.5, 10)
