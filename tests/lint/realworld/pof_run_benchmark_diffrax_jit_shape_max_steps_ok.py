# source: https://github.com/nathanaelbosch/parallel-in-time-ode-filters/blob/ee5647245c8468195c0df07cd163a9fe6c502f91/experiments/3_work_precision_diagram/run_benchmark.py
#   (with `solve_diffrax` and `get_ts_ys` from pof/diffrax.py and `logistic` from pof/ivp.py
#   of the same commit)
# observed on jax 0.10.2 CPU (diffrax 0.7.2): runs clean. Under `jax.jit` of `inner(ts)`,
#   `max_steps=ts.shape[0] - 1` is a Python int (a shape is static) while `t0=ts[0]`,
#   `t1=ts[-1]` and `dt0=ts[1] - ts[0]` are traced, which diffrax accepts; each grid size N
#   compiles `inner` once (a new shape), and the boolean masks `ys[idxs]` and
#   `sol.ts[idxs]` in `get_ts_ys` run outside jit on concrete arrays.
# Added: `jax_enable_x64` (in float32 the reference solve at rtol=1e-13 runs out of
#   max_steps); `status != 0` spelled `status != diffrax.RESULTS.successful` (diffrax's
#   result is now an equinox enumeration, no longer an integer array); a namedtuple stand-in for tornadox's `InitialValueProblem`; SETUPS cut to the
#   logistic problem with N = 16..128 (was 2**4..2**19); METHODS cut to "DP5" (the others
#   use `diffrax.NewtonNonlinearSolver`, removed from diffrax, or the repository's own
#   filters); `main` keeps its loop but not the plac/CSV/plot parts. The __main__ block runs
#   it and checks the errors are small.
# gap: exemption-vs-JAX
import time
from collections import defaultdict, namedtuple

import jax
import jax.numpy as jnp
import diffrax
import numpy as np

jax.config.update("jax_enable_x64", True)  # added: the float32 default cannot reach rtol=1e-13


# --- pof/ivp.py (tornadox.ivp.InitialValueProblem stood in by a namedtuple) ---
class InitialValueProblem(namedtuple("InitialValueProblem", "f t0 tmax y0")):
    @property
    def t_span(self):
        return self.t0, self.tmax


def logistic(t0=0, tmax=10.0, y0=None):
    y0 = y0 or jnp.array([0.01])

    @jax.jit
    def f(t, y):
        return 1.0 * y * (1 - y)

    return InitialValueProblem(f=f, t0=t0, tmax=tmax, y0=y0)


# --- pof/diffrax.py ---
def solve_diffrax(
    f,
    y0,
    tspan,
    solver=diffrax.Dopri5,
    ts=None,
    rtol=1e-3,
    atol=1e-3,
    max_steps=int(1e6),
    dt=None,
):
    t0, tmax = tspan
    vector_field = lambda t, y, args: f(t, y)
    term = diffrax.ODETerm(vector_field)

    if ts is None:
        saveat = diffrax.SaveAt(steps=True, t0=True, dense=True)
    else:
        saveat = diffrax.SaveAt(ts=ts)

    if dt is None:
        stepsize_controller = diffrax.PIDController(rtol=rtol, atol=atol)
    else:
        stepsize_controller = diffrax.ConstantStepSize()

    sol = diffrax.diffeqsolve(
        term,
        solver(),
        t0=t0,
        t1=tmax,
        dt0=dt,
        y0=y0,
        saveat=saveat,
        stepsize_controller=stepsize_controller,
        max_steps=max_steps,
    )
    return sol


def get_ts_ys(sol):
    idxs = jnp.isfinite(sol.ts)
    ts = sol.ts[idxs]
    ys = sol.ys[idxs]
    return ts, ys


# --- experiments/3_work_precision_diagram/run_benchmark.py ---
def timeit(f, N):
    times = []
    for _ in range(N):
        start = time.time()
        f()
        t = time.time() - start
        times.append(t)
    return min(times)


def solve_diffrax_(f, y0, ts, solver):
    sol = diffrax.diffeqsolve(
        diffrax.ODETerm(lambda t, y, args: f(t, y)),
        solver,
        t0=ts[0],
        t1=ts[-1],
        dt0=ts[1] - ts[0],
        y0=y0,
        saveat=diffrax.SaveAt(
            # ts=ts,
            steps=True,
            t0=True,
            t1=True,
            dense=True,
        ),
        stepsize_controller=diffrax.ConstantStepSize(),
        max_steps=ts.shape[0] - 1,
        throw=False,
    )
    return sol.ys, {}, sol.result


def _diffrax(solver):
    def f(ivp):
        @jax.jit
        def inner(ts):
            return solve_diffrax_(ivp.f, ivp.y0, ts, solver)

        return inner

    return f


SETUPS = {
    "logistic": (logistic(), 2 ** jnp.arange(4, 8)),
}
METHODS = {
    "DP5": _diffrax(diffrax.Dopri5()),
}


def main(setupname, save=False, gpu_nocheck=False):
    device = jax.devices()[0]
    assert gpu_nocheck or device.platform == "gpu"

    IVP, Ns = SETUPS[setupname]

    ref = solve_diffrax(
        IVP.f,
        IVP.y0,
        IVP.t_span,
        solver=diffrax.Kvaerno5,
        atol=1e-16,
        rtol=1e-13,
        max_steps=int(1e6),
    )
    yref_final = get_ts_ys(ref)[1][-1]

    def evaluate_method(method, methodname, Ns):
        results = defaultdict(list)
        for N in Ns:
            print(f"[{methodname}] N={N}")
            ts = jnp.linspace(IVP.t0, IVP.tmax, N)
            f = lambda: method(ts)
            ys, info, status = f()
            # assert ys.device().platform == "gpu"
            if status != diffrax.RESULTS.successful:
                t = np.nan
                rmse_final = np.nan
                rmse_traj = np.nan
            else:
                t = timeit(f, 3)
                idxs = jnp.isfinite(ys[:, 0])
                ys = ys[idxs]
                rmse_final = jnp.linalg.norm(ys[-1] - yref_final)
                yref = jax.vmap(ref.evaluate)(ts)
                rmse_traj = jax.vmap(jnp.linalg.norm)(ys - yref).mean()

            print(f"[{methodname}] runtime: {t}")
            print(f"[{methodname}] rmse_final: {rmse_final}")
            print(f"[{methodname}] rmse_traj: {rmse_traj}")
            results["runtime"].append(t)
            results["rmse_final"].append(rmse_final)
            results["rmse_traj"].append(rmse_traj)
            if "iterations" in info.keys():
                results["iterations"].append(info["iterations"])
                print(f"[{methodname}] iterations: {info['iterations']}")

        return results

    all_results = {}
    for k, v in METHODS.items():
        print(f"\n[{k}] Start Evaluation\n")
        results = evaluate_method(v(IVP), k, Ns)
        all_results[k] = results
    return all_results


if __name__ == "__main__":
    out = main("logistic", gpu_nocheck=True)
    errs = [float(e) for e in out["DP5"]["rmse_final"]]
    assert all(np.isfinite(errs)) and errs[-1] < 1e-3, errs
