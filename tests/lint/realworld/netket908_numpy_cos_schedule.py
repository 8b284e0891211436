# source: https://github.com/netket/netket/issues/908
# observed on jax 0.10.2 CPU: TracerArrayConversionError at np.cos in schedule: optax calls
#   the schedule with the traced step count inside netket's jitted apply_gradient.
#   Added: imports, a value for η, optax.sgd standing in for nk.optimizer.Sgd (netket's Sgd
#   is optax.sgd), and netket's apply_gradient (netket/driver/abstract_variational_driver.py
#   at the linked commit) with a toy parameter pytree to drive one step, as the VMC driver does.
# gap: other
from functools import partial
from math import pi

import jax
import jax.numpy as jnp
import numpy as np
import optax

η = 0.01


def schedule(n):
    restart=100
    return (1+np.cos(pi*(n%restart)/restart)) * η  # expect: JIT402
op = optax.sgd(schedule)


@partial(jax.jit, static_argnums=0)
def apply_gradient(optimizer_fun, optimizer_state, dp, params):
    updates, new_optimizer_state = optimizer_fun(dp, optimizer_state, params)

    new_params = optax.apply_updates(params, updates)
    return new_optimizer_state, new_params


params = {"w": jnp.ones(3)}
opt_state = op.init(params)
dp = {"w": jnp.full(3, 0.5)}
opt_state, params = apply_gradient(op.update, opt_state, dp, params)
