# source: https://github.com/qiskit-community/qiskit-dynamics/blob/7c83c64a989d4121835dbab1e868651422e99195/qiskit_dynamics/solvers/solver_utils.py
#   (merge_t_args and trim_t_results, with jax_odeint from solvers/jax_odeint.py at the same
#   commit, before https://github.com/qiskit-community/qiskit-dynamics/pull/125 "Fixing pulse
#   jit bug", which added the JAX versions merge_t_args_jax / trim_t_results_jax; the calls in
#   __main__ are the test that PR added, test_transformations_w_t_span_t_eval)
# observed on jax 0.10.2 CPU: eagerly jax_odeint returns the solution at t_eval. Under jit
#   the time arguments are tracers, and the NumPy time handling fails: with t_span and t_eval
#   traced (jit_func), np.asarray(t_span) in merge_t_args raises TracerArrayConversionError;
#   with t_span a NumPy array and only t_eval traced (jit_grad_func), np.asarray(t_eval)
#   does; trim_t_results, called under jit on its own, fails at np.asarray of a traced t_span
#   and, with t_span concrete, at its endpoint tests `if t_eval[0] != t_span[0]` and
#   `if t_eval[-1] != t_span[1]` (TracerBoolConversionError). Kept: merge_t_args,
#   trim_t_results and jax_odeint, with qiskit_dynamics' Array wrapper respelled:
#   Array(x, backend="numpy") as np.asarray(x), Array(x, backend="jax", dtype=...) and the
#   NumPy calls it dispatched to JAX (np.sign, np.real) as jnp calls, wrap(odeint) and
#   wrap(rhs) as the plain functions; @requires_backend("jax") dropped. Added: the imports,
#   simple_rhs from the test's setUp, and the __main__ block (jax.jit and jax.jit(jax.grad(...))
#   for the test's jit_wrap and jit_grad_wrap; the error checks).
# gap: types
import sys
import traceback
from typing import Callable, List, Optional, Tuple, Union

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental.ode import odeint
from jax.lax import cond
from scipy.integrate._ivp.ivp import OdeResult


def merge_t_args(
    t_span: Union[List, Tuple, np.ndarray], t_eval: Optional[Union[List, Tuple, np.ndarray]] = None
) -> Union[List, Tuple, np.ndarray]:
    """Merge ``t_span`` and ``t_eval`` into a single array without
    duplicates. Validity of the passed ``t_span`` and ``t_eval``
    follow scipy ``solve_ivp`` validation logic:
    ``t_eval`` must be contained in ``t_span``, and be strictly
    increasing if ``t_span[1] > t_span[0]`` or strictly
    decreasing if ``t_span[1] < t_span[0]``.

    Note: this is done explicitly with ``numpy``, and hence this is
    not differentiable or compilable using jax.

    If ``t_eval is None`` returns ``t_span`` with no modification.
    """

    if t_eval is None:
        return t_span

    t_span = np.asarray(t_span)  # expect: JIT402

    t_min = np.min(t_span)
    t_max = np.max(t_span)
    t_direction = np.sign(t_span[1] - t_span[0])

    t_eval = np.asarray(t_eval)  # expect: JIT402

    if t_eval.ndim > 1:
        raise ValueError("t_eval must be 1 dimensional.")

    if np.min(t_eval) < t_min or np.max(t_eval) > t_max:
        raise ValueError("t_eval entries must lie in t_span.")

    diff = np.diff(t_eval)

    if np.any(t_direction * diff <= 0.0):
        raise ValueError("t_eval must be ordered according to the direction of integration.")

    # if endpoints are not included in t_span, add them
    if t_eval[0] != t_span[0]:
        t_eval = np.append(t_span[0], t_eval)

    if t_span[1] != t_eval[-1]:
        t_eval = np.append(t_eval, t_span[1])

    return np.asarray(t_eval)


def trim_t_results(
    results: OdeResult,
    t_span: Union[List, Tuple, np.ndarray],
    t_eval: Optional[Union[List, Tuple, np.ndarray]] = None,
) -> OdeResult:
    """Trim ``OdeResult`` object based on value of ``t_span`` and ``t_eval``."""

    if t_eval is None:
        return results

    t_span = np.asarray(t_span)  # expect: JIT402

    # remove endpoints if not included in t_eval
    if t_eval[0] != t_span[0]:  # expect: JIT101
        results.t = results.t[1:]
        results.y = jnp.asarray(results.y[1:])

    if t_eval[-1] != t_span[1]:  # expect: JIT101
        results.t = results.t[:-1]
        results.y = jnp.asarray(results.y[:-1])

    return results


def jax_odeint(
    rhs: Callable,
    t_span: np.ndarray,
    y0: np.ndarray,
    t_eval: Optional[Union[Tuple, List, np.ndarray]] = None,
    **kwargs,
):
    """Routine for calling `jax.experimental.ode.odeint`"""

    t_list = merge_t_args(t_span, t_eval)

    # determine direction of integration
    t_direction = jnp.sign(jnp.asarray(t_list[-1] - t_list[0], dtype=complex))

    results = odeint(
        lambda y, t: rhs(jnp.real(t_direction * t), y) * t_direction,
        y0=jnp.asarray(y0, dtype=complex),
        t=jnp.real(t_direction) * jnp.asarray(t_list),
        **kwargs,
    )

    results = OdeResult(t=t_list, y=jnp.asarray(results, dtype=complex))

    return trim_t_results(results, t_span, t_eval)


def simple_rhs(t, y):
    return cond(t < 1.0, lambda s: s, lambda s: s**2, jnp.array([t]))


def _raising_line(fn, *args):
    try:
        fn(*args)
    except (jax.errors.TracerArrayConversionError, jax.errors.TracerBoolConversionError):
        frames = [f for f in traceback.extract_tb(sys.exc_info()[2]) if f.filename == __file__]
        return frames[-1].lineno
    return None


if __name__ == "__main__":
    t_span = np.array([0.0, 2.0])
    t_eval = np.array([1.0, 1.5, 1.7])
    y0 = jnp.array([1.0])

    def func(t_s, t_e):
        results = jax_odeint(simple_rhs, t_s, y0, t_eval=t_e, atol=1e-10, rtol=1e-10)
        return results.t, results.y

    t, y = func(t_span, t_eval)  # eager: fine
    assert np.allclose(t, t_eval)

    jit_func = jax.jit(func)
    # observed: line 51 raises TracerArrayConversionError (t_span traced)
    assert _raising_line(jit_func, t_span, t_eval) == 51

    jit_grad_func = jax.jit(jax.grad(lambda a: func(t_span, a)[1][-1].real.sum()))
    # observed: line 57 raises TracerArrayConversionError (t_eval traced)
    assert _raising_line(jit_grad_func, t_eval) == 57

    def trimmed(t_s, t_e):
        results = OdeResult(t=jnp.linspace(0.0, 2.0, 5), y=jnp.ones((5, 1), dtype=complex))
        return trim_t_results(results, t_s, t_e).y

    # observed: line 90 raises TracerArrayConversionError (t_span traced)
    assert _raising_line(jax.jit(trimmed), t_span, t_eval) == 90
    # observed: line 93 raises TracerBoolConversionError (t_eval traced)
    assert _raising_line(jax.jit(lambda t_e: trimmed(t_span, t_e)), t_eval) == 93
    # observed: line 97 raises TracerBoolConversionError (last t_eval entry traced)
    last_traced = jax.jit(lambda t_last: trimmed(t_span, [1.0, 1.5, t_last]))
    assert _raising_line(last_traced, 1.7) == 97
