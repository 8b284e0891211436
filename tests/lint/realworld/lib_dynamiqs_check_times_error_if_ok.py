# source: https://github.com/dynamiqs/dynamiqs/pull/532 (check_times in dynamiqs/_checks.py
#   after the fix, commit cd3489d4, and the PR's MWE)
# observed on jax 0.10.2 CPU (equinox 0.13.8): runs clean; the order check is eqx.error_if,
#   whose result sesolve uses, so `foo` traces and runs under jit; an unsorted `tsave`
#   raises equinox's runtime error when the compiled function runs, which the __main__
#   block checks. Added: imports; stand-ins for dq.destroy, dq.dag, dq.coherent (a Fock
#   state instead) and for the body of dq.sesolve after its argument checks (one matrix
#   exponential instead of the ODE solve); the MWE's tsave is sorted here, and the
#   unsorted one is tried in __main__.
# gap: exemption-vs-JAX
import equinox as eqx
import jax
import jax.numpy as jnp
from jax import Array


def check_times(x: Array, argname: str, allow_empty: bool = False) -> Array:
    # check that an array of time is valid (it must be a 1D array sorted in strictly
    # ascending order)

    # this function should be used as e.g. `x = check_times(x, 'x')`, and the returned
    # value should be used, otherwise the final check will be removed as part of dead
    # code elimination, see https://docs.kidger.site/equinox/api/errors/ for more
    # details

    if x.ndim != 1:
        raise ValueError(
            f'Argument {argname} must be a 1D array, but is a {x.ndim}D array.'
        )
    if not allow_empty and len(x) == 0:
        raise ValueError(f'Argument {argname} must contain at least one element.')

    # this check is written to be JIT-compatible
    return eqx.error_if(
        x,
        x[1:] < x[:-1],
        f'Argument {argname} must be sorted in strictly ascending order.',
    )


def sesolve(H, psi0, tsave):
    # === convert arguments
    H = jnp.asarray(H, dtype=jnp.complex64)
    psi0 = jnp.asarray(psi0, dtype=jnp.complex64)
    tsave = jnp.asarray(tsave)

    # === check arguments
    tsave = check_times(tsave, 'tsave')

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
tsave = [0, 1, 2]

@jax.jit
def foo():
    return sesolve(H, psi0, tsave)


@jax.jit
def foo_unsorted():
    return sesolve(H, psi0, [0, 1, -1])


if __name__ == "__main__":
    states = foo()
    assert states.shape == (3, n, 1)
    try:
        foo_unsorted().block_until_ready()
    except Exception as e:
        assert "strictly ascending" in str(e), e
    else:
        raise AssertionError("unsorted tsave not reported")
