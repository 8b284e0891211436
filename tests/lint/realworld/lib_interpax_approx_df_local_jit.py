# source: https://github.com/f0uriest/interpax/blob/f0a6cb5e28feb4a7dde48f75a0a3d930b69f60ce/interpax/_fd_derivs.py
#   (approx_df before the fix of https://github.com/f0uriest/interpax/pull/99, "avoids
#   jitting a locally defined function which was causing excessive recompilation")
# observed on jax 0.10.2 CPU: every call of approx_df jits a new local `fun`, so every call
#   traces and compiles again (3 later calls with equal shapes, 3 more compilations). The docstring is
#   shortened, and only the "cubic" and "nearest"/"linear" branches of _approx_df are kept
#   (the other methods' helpers are left out); `errorif`/`asarray_inexact` are unused here.
# gap: per-call-recompile
import jax
import jax.numpy as jnp
from jax import jit


def approx_df(
    x: jax.Array, f: jax.Array, method: str = "cubic", axis: int = -1, **kwargs
):
    """Approximates first derivatives using cubic spline interpolation."""
    # noqa: D202

    # close over static args to deal with non-jittable kwargs
    def fun(x, f):
        return _approx_df(x, f, method, axis, **kwargs)

    return jit(fun)(x, f)  # expect: JIT301


def _approx_df(x, f, method, axis, c=0, bc_type="not-a-knot"):
    if method == "cubic":
        out = _cubic1(x, f, axis)
    elif method in ("nearest", "linear"):
        out = jnp.zeros_like(f)
    else:
        raise ValueError(f"got unknown method {method}")
    return out


def _cubic1(x, f, axis):
    dx = jnp.diff(x)
    df = jnp.diff(f, axis=axis)
    dxi = jnp.where(dx == 0, 0, 1 / dx)
    if df.ndim > dxi.ndim:
        dxi = jnp.expand_dims(dxi, tuple(range(1, df.ndim)))
        dxi = jnp.moveaxis(dxi, 0, axis)
    df = dxi * df
    fx = jnp.concatenate(
        [
            jnp.take(df, jnp.array([0]), axis, mode="wrap"),
            1
            / 2
            * (
                jnp.take(df, jnp.arange(0, df.shape[axis] - 1), axis, mode="wrap")
                + jnp.take(df, jnp.arange(1, df.shape[axis]), axis, mode="wrap")
            ),
            jnp.take(df, jnp.array([-1]), axis, mode="wrap"),
        ],
        axis=axis,
    )
    return fx


if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **_kw: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    x = jnp.linspace(0.0, 1.0, 11)
    f = x**2
    approx_df(x, f)
    before = len(compiles)
    for _ in range(3):
        approx_df(x, f)
    # observed: line 24 compiles again on each of the 3 later calls
    assert len(compiles) - before >= 3, compiles
