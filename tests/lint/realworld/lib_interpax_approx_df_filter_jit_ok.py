# source: https://github.com/f0uriest/interpax/blob/6840464051a070fb593e2e0f8e5fb99c0da28c44/interpax/_fd_derivs.py
#   (approx_df after https://github.com/f0uriest/interpax/pull/99: the helpers are jitted
#   once at module level with eqx.filter_jit, `axis` static)
# observed on jax 0.10.2 CPU: runs clean and compiles _cubic1 once: later calls with the
#   same shapes hit the cache. The docstring is shortened, and only the "cubic" and
#   "nearest"/"linear" branches are kept (the other methods' helpers are left out).
# gap: per-call-recompile
import equinox as eqx
import jax
import jax.numpy as jnp


def approx_df(
    x: jax.Array, f: jax.Array, method: str = "cubic", axis: int = -1, **kwargs
):
    """Approximates first derivatives using cubic spline interpolation."""
    if method == "cubic":
        out = _cubic1(x, f, axis)
    elif method in ("nearest", "linear"):
        out = jnp.zeros_like(f)
    else:
        raise ValueError(f"got unknown method {method}")
    return out


@eqx.filter_jit
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
    assert len(compiles) == before, compiles
