# source: https://github.com/dynamiqs/dynamiqs/pull/532 (check_times in dynamiqs/_checks.py
#   before the fix, commit cd3489d4^, and the PR's MWE)
# observed on jax 0.10.2 CPU: `foo` jits a call of sesolve whose `tsave` is a Python list;
#   sesolve converts it with jnp.asarray inside the trace, so check_times gets a tracer and
#   `if not jnp.all(jnp.diff(x) > 0)` raises TracerBoolConversionError. The PR replaced the
#   test with eqx.error_if. Added: imports; stand-ins for dq.destroy, dq.dag, dq.coherent
#   (a Fock state instead) and for the body of dq.sesolve after its argument checks (one
#   matrix exponential instead of the ODE solve); `sesolve` keeps the conversion and the
#   check of the original.
# gap: omnistaging
import jax
import jax.numpy as jnp
from jax import Array


def check_times(x: Array, argname: str, allow_empty: bool = False):
    # check that an array of time is valid (it must be a 1D array sorted in strictly
    # ascending order)

    if x.ndim != 1:
        raise ValueError(
            f'Argument {argname} must be a 1D array, but is a {x.ndim}D array.'
        )
    if not allow_empty and len(x) == 0:
        raise ValueError(f'Argument {argname} must contain at least one element.')
    if not jnp.all(jnp.diff(x) > 0):  # expect: JIT101
        raise ValueError(
            f'Argument {argname} must be sorted in strictly ascending order.'
        )


def sesolve(H, psi0, tsave):
    # === convert arguments
    H = jnp.asarray(H, dtype=jnp.complex64)
    psi0 = jnp.asarray(psi0, dtype=jnp.complex64)
    tsave = jnp.asarray(tsave)

    # === check arguments
    check_times(tsave, 'tsave')

    # stand-in for the solve
    return jax.vmap(lambda t: jax.scipy.linalg.expm(-1j * H * t) @ psi0)(tsave)


def destroy(n):
    return jnp.diag(jnp.sqrt(jnp.arange(1, n, dtype=jnp.float32)), 1)


def dag(x):
    return x.conj().T


def coherent(n, alpha):
    return jnp.zeros((n, 1)).at[1, 0].set(1.0)


n = 16
a = destroy(n)
ad = dag(a)

H = 10 * ad @ a
psi0 = coherent(n, 1.0)
tsave = [0, 1, -1]

@jax.jit
def foo():
    return sesolve(H, psi0, tsave)

foo()
