# source: https://github.com/ddrous/nodepint/blob/dec77eb19bba4d0967045b24686684be6496f363/nodepint/pint.py
#   (NodePinT, parallel-in-time training of neural ODEs by multiple shooting, at the commit
#   "ConcretizationTypeError in shooting function"; euler_step and euler_integrator come from
#   https://github.com/ddrous/nodepint/blob/dec77eb19bba4d0967045b24686684be6496f363/nodepint/integrators.py)
# observed on jax 0.10.2 CPU: newton_root_finder is jitted with the shooting function, the
#   split count, the times tuple, the right-hand side and the integrator static, so B0 and z0
#   are traced; its Newton loop's convergence test `if jnp.linalg.norm(B_new - B) < tol:` is a
#   Python `if` on a traced norm and raises TracerBoolConversionError on the first iteration
#   (the Jacobian, the shooting function and the Euler fori_loop before it trace fine).
# gap: other
# added: imports; `rhs`, a plain function standing in for the project's equinox network
#   (training.py's node_loss passes `neural_net`); the __main__ block, which calls the root
#   finder as training.py's node_loss does (keywords, B0 = ones((nb_processors+1)*nz),
#   times = tuple(np.linspace(0, 1, 100)), the default of train_parallel_neural_ode). Trimmed:
#   the commented-out code, select_root_finding_function, direct_root_finder (the same
#   convergence test), sequential_root_finder, dopri_integrator and integrators.py's benchmark.
import jax
import jax.numpy as jnp
from functools import partial

import numpy as np


# --- nodepint/integrators.py ---
def euler_step(func, y, t, dt):
    ret = y+func(y, t)*dt, t + dt
    return ret


# @partial(jax.jit, static_argnums=(0, 2, 3))
def euler_integrator(func, y0, t, hmax=1e-2):

    print("Types:", type(t), t, type(t[0]))  # tolerate: JIT203

    t = np.array(t)
    dt = np.min(np.minimum(np.ones_like(t[1:])*hmax, t[1:] - t[:-1]))
    nb_iter = int((t[-1] - t[0]) / dt)

    def body_func(i, yt):       ## TODO this is sooo not functional
        newy, newt = euler_step(func, yt[i-1, 1:], yt[i-1, 0, jnp.newaxis], dt)
        yt = yt.at[i, 0].set(newt[0])
        yt = yt.at[i, 1:].set(newy)
        return yt

    print("Nb iter", nb_iter, y0.shape)  # tolerate: JIT203
    yt = jnp.zeros((nb_iter, y0.shape[0]+1))
    yt = yt.at[0, 0].set(t[0])
    yt = yt.at[0, 1:].set(y0)

    yt = jax.lax.fori_loop(1, nb_iter, body_func, yt)

    return yt[:, 1:] 


# --- nodepint/pint.py ---
@partial(jax.jit, static_argnums=(2, 3, 4, 5))
def shooting_function(Z, z0, nb_splits, times, rhs, integrator):
    ## Split times among N = nb_processors

    times = np.array(times)[:, jnp.newaxis]
    split_times = np.array_split(times, nb_splits)

    Z_ = [z0]
    nz = z0.shape[0]

    print("Check every argument's type:", type(Z), type(z0), type(times), type(rhs), type(integrator))  # tolerate: JIT203

    for n in range(nb_splits):      ## TODO do this in parallel   
        ts = split_times[n]
        if n < nb_splits-1:
            ts = np.concatenate([ts, split_times[n+1][0, jnp.newaxis]])      ## TODO do this just once, and reuse the ts later on
            ## CHCEKS NANs in ts
        ts = tuple(ts.flatten())

        print("SHapes of every element:", Z.shape, z0.shape, len(ts))  # tolerate: JIT203
        z_next = integrator(rhs, Z[n*nz:(n+1)*nz], t=ts)[-1,...]
        Z_.append(z_next)

    # return Z - jnp.stack(Z_, axis=0)
    return Z - jnp.concatenate(Z_, axis=0)


## Newton's method - TODO we still need to define:
# - custom JVP rule https://jax.readthedocs.io/en/latest/notebooks/Custom_derivative_rules_for_Python_code.html
# - example of fixed-point interation in PyTorch http://implicit-layers-tutorial.org/deep_equilibrium_models/
@partial(jax.jit, static_argnums=(0, 3, 4, 5, 6, 7, 8, 9))
def newton_root_finder(func, B0, z0, nb_splits, times, rhs, integrator, learning_rate=1., tol=1e-6, maxiter=10):
    grad = jax.jacfwd(func)

    B = B0

    for _ in range(maxiter):

        print("Types of all arguments: ", type(rhs), type(B), type(z0), type(times), type(times[0]), type(integrator))  # tolerate: JIT203

        grad_inv = jnp.linalg.inv(grad(B, z0, nb_splits, times, rhs, integrator))
        func_eval = func(B, z0, nb_splits, times, rhs, integrator)

        B_new = B - learning_rate * grad_inv @ func_eval
        if jnp.linalg.norm(B_new - B) < tol:  # expect: JIT101
            break
        B = B_new

    return B        ## TODO B is currentlyb of size N \times nz, but should only be of size nz


def rhs(y, t):  # stand-in for the equinox network training.py passes as `rhs`
    return jnp.tanh(y) * jnp.cos(t)


if __name__ == "__main__":
    nb_processors = 4
    x = jnp.array([0.5, -0.25, 1.0])
    times = tuple(np.linspace(0, 1, 100).flatten())
    sht_init = jnp.ones((nb_processors+1, x.shape[0])).flatten()
    final_feature = newton_root_finder(shooting_function, B0=sht_init, z0=x, nb_splits=nb_processors, times=times, rhs=rhs, integrator=euler_integrator)[-x.shape[0]:]
