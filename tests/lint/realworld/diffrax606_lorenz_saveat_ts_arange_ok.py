# source: https://github.com/patrick-kidger/diffrax/issues/606 (the reporter's Lorenz MWE;
#   the slowdown it measured came from XLA's new CPU runtime, which the flag it sets turns
#   off, not from the user code)
# observed on jax 0.10.2 CPU (diffrax 0.7.2): runs clean; XLA warns that the flag is no
#   longer supported. diffeqsolve (an eqx.filter_jit function) compiles on the first call
#   of solve and reuses the compilation on the second: `ts[0]` and `ts[-1]` are JAX arrays,
#   traced, not static Python numbers. Added: the __main__ block.
# gap: other
import os
os.environ['XLA_FLAGS'] = '--xla_cpu_use_thunk_runtime=false'

from time import time

import diffrax as dfx
import jax
import jax.numpy as jnp

jax.config.update("jax_enable_x64", True)

def lorenz(t, y, args):
    dy0dt = 10*(y[1] - y[0])
    dy1dt = y[0]*(28 - y[2]) - y[1]
    dy2dt = y[0]*y[1] - 8/3*y[2]
    return jnp.array([dy0dt, dy1dt, dy2dt])

def solve(ts, y0):
    solution = dfx.diffeqsolve(
        dfx.ODETerm(lorenz),
        dfx.Tsit5(),
        t0=ts[0],
        t1=ts[-1],
        dt0=None,
        y0=y0,
        stepsize_controller=dfx.PIDController(rtol=1e-4, atol=1e-6, pcoeff=0.4, icoeff=0.3),
        saveat=dfx.SaveAt(ts=ts),
        max_steps=None
    )
    return solution.ys, solution.stats

ts = jnp.arange(3000)
y0 = jnp.array([0., 1., 1.05])

t_jit_start = time()
y_pred, stats = solve(ts, y0)
t_jit_stop = time()

t_start = time()
y_pred, stats = solve(ts, y0)
t_stop = time()

print(
    f"Jax: {jax.__version__}, Diffrax: {dfx.__version__}\n"
    f"Jit + Integration time: {t_jit_stop - t_jit_start:.4f}\nIntegration time: {t_stop - t_start:.4f}\nNo. of steps: {stats['num_steps']}"
)


if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **kw: compiles.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    y_pred, stats = solve(ts, y0 + 0.01)
    assert y_pred.shape == (3000, 3)
    assert not any("diffeqsolve" in str(name) for name in compiles), compiles
