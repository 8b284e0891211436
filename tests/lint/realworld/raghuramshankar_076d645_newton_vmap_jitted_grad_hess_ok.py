# source: https://github.com/raghuramshankar/data-driven-modelling-of-li-ion-batteries/blob/076d64516d93e3eb9df8f73ab04092e4403f9caa/newtonSolverVmap.py
#   (a Li-ion battery modelling project's scratch Newton step, vmapped over a grid of starts)
# observed on jax 0.10.2 CPU: runs clean. `func` and `loss` are jitted once and vmapped; the
#   grad and second derivative are built inside the jitted loss from the jitted func (fine
#   under jit); np.nanargmin is applied outside jit, to the concrete result array. Kept as
#   the author wrote it; nothing added (the file has its own __main__ block).
# gap: exemption-vs-JAX
import time

import jax as jax
import jax.numpy as jnp
import numpy as np
from jax import jit

jax.config.update("jax_platform_name", "cpu")


@jit
def func(x):
    return jnp.sin(x)


@jit
def loss(x):
    grad = jax.grad(func)
    hess = jax.grad(grad)
    return x - 0.01 * grad(x) / hess(x)


if __name__ == "__main__":
    start = time.time()
    num = 50
    domain = jnp.linspace(-3 / 2 * jnp.pi, jnp.pi / 2, num)
    for _ in range(num):
        domain = jax.vmap(func)(domain)
    min = jax.vmap(loss)(domain)
    arglist = np.nanargmin(min)

    print("arglist = ", arglist)
    print("minimum = ", min[arglist])
    print("argmin in degrees = ", domain[arglist])

    print("Time of execution:", time.time() - start)
