# source: https://github.com/DifferentiableUniverseInitiative/jax_cosmo/blob/c4f249f3712f2c4fe4b526274baad41a48e187ac/jax_cosmo/scipy/integrate.py
#   (`romb` and its helpers; `simps` and the long docstring examples are left out)
# observed on jax 0.10.2 CPU: `romb` wraps the integrand in a fresh `jit(lambda x: ...)` on
#   every call, so each eager call of `romb` traces and compiles the integrand again for the
#   scalar end points and each of the six trapezoid sizes (7 compilations on the second and
#   third call with the same integrand and limits, where one jitted integrand would compile
#   nothing new); the eager `jax.lax.scan` of `scan_fn`, a closure made anew per call, also
#   compiles its two scans again on every call.
#   Added: the `__main__` block.
# gap: per-call-recompile
from functools import partial

import jax
import jax.numpy as np
from jax import jit, vmap

__all__ = ["romb"]


def _difftrap1(function, interval):
    """
    Perform part of the trapezoidal rule to integrate a function.
    """
    return 0.5 * (function(interval[0]) + function(interval[1]))


def _difftrapn(function, interval, numtraps):
    """
    Perform part of the trapezoidal rule to integrate a function.
    """
    numtosum = numtraps // 2
    h = (1.0 * interval[1] - 1.0 * interval[0]) / numtosum
    lox = interval[0] + 0.5 * h
    points = lox + h * np.arange(0, numtosum)
    s = np.sum(function(points))
    return s


def _romberg_diff(b, c, k):
    """
    Compute the differences for the Romberg quadrature corrections.
    See Forman Acton's "Real Computing Made Real," p 143.
    """
    tmp = 4.0**k
    return (tmp * c - b) / (tmp - 1.0)


def romb(function, a, b, args=(), divmax=6, return_error=False):
    """
    Romberg integration of a callable function or method.
    """
    vfunc = jit(lambda x: function(x, *args))  # expect: JIT301

    n = 1
    interval = [a, b]
    intrange = b - a
    ordsum = _difftrap1(vfunc, interval)
    result = intrange * ordsum
    state = np.repeat(np.atleast_1d(result), divmax + 1, axis=-1)
    err = np.inf

    def scan_fn(carry, y):
        x, k = carry
        x = _romberg_diff(y, x, k + 1)
        return (x, k + 1), x

    for i in range(1, divmax + 1):
        n = 2**i
        ordsum = ordsum + _difftrapn(vfunc, interval, n)

        x = intrange * ordsum / n
        _, new_state = jax.lax.scan(scan_fn, (x, 0), state[:-1])  # expect: JIT301

        new_state = np.concatenate([np.atleast_1d(x), new_state])

        err = np.abs(state[i - 1] - new_state[i])
        state = new_state

    if return_error:
        return state[i], err
    else:
        return state[i]


if __name__ == "__main__":
    import logging

    compiled = []

    class _Compiles(logging.Handler):
        def emit(self, record):
            msg = record.getMessage()
            if msg.startswith("Compiling "):
                compiled.append(msg.split(" with ")[0])

    logging.getLogger("jax").addHandler(_Compiles())
    jax.config.update("jax_log_compiles", True)

    def gaussian(x):
        return 1 / np.sqrt(np.pi) * np.exp(-x**2)

    per_call = []
    for _ in range(3):
        before = len(compiled)
        value = romb(gaussian, 0.0, 1.0)
        per_call.append(compiled[before:])
    assert abs(float(value) - 0.4213504) < 1e-5, value
    # observed: line 52 jits a new lambda per call of romb: the second and third calls
    #   compile the integrand again, once per shape (7 times each)
    assert per_call[1].count("Compiling jit(<lambda>)") == 7, per_call[1]
    assert per_call[2].count("Compiling jit(<lambda>)") == 7, per_call[2]
    # observed: line 72 runs an eager lax.scan of the scan_fn closure made anew per call
    #   of romb: its two scans compile again on every call
    assert per_call[1].count("Compiling jit(scan)") == 2, per_call[1]
    assert per_call[2].count("Compiling jit(scan)") == 2, per_call[2]
