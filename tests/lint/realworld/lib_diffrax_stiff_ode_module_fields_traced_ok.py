# source: https://github.com/patrick-kidger/diffrax/blob/v0.7.2/docs/examples/stiff_ode.ipynb
#   (the example's code cells; the timing cell runs in the __main__ block)
# observed on jax 0.10.2 CPU (diffrax 0.7.2, equinox 0.13.8): runs clean. `main` is
#   jax.jit-ed with the three rate constants traced, and builds the `Robertson` module
#   (fields annotated `float`) from those tracers inside the trace; the Kvaerno5 solve
#   returns the Robertson solution at the eight save times. The second call with the same
#   Python floats reuses the compiled program, and the __main__ block checks that a third
#   call with another k1 traces nothing new (jit traces the floats, so only their types
#   matter). Added: the trace check and the mass-conservation check.
# gap: exemption-vs-JAX
import time

import diffrax
import equinox as eqx  # https://github.com/patrick-kidger/equinox
import jax
import jax.numpy as jnp

jax.config.update("jax_enable_x64", True)


class Robertson(eqx.Module):
    k1: float
    k2: float
    k3: float

    def __call__(self, t, y, args):
        f0 = -self.k1 * y[0] + self.k3 * y[1] * y[2]
        f1 = self.k1 * y[0] - self.k2 * y[1] ** 2 - self.k3 * y[1] * y[2]
        f2 = self.k2 * y[1] ** 2
        return jnp.stack([f0, f1, f2])


@jax.jit
def main(k1, k2, k3):
    robertson = Robertson(k1, k2, k3)
    terms = diffrax.ODETerm(robertson)
    t0 = 0.0
    t1 = 100.0
    y0 = jnp.array([1.0, 0.0, 0.0])
    dt0 = 0.0002
    solver = diffrax.Kvaerno5()
    saveat = diffrax.SaveAt(ts=jnp.array([0.0, 1e-4, 1e-3, 1e-2, 1e-1, 1e0, 1e1, 1e2]))
    stepsize_controller = diffrax.PIDController(rtol=1e-8, atol=1e-8)
    sol = diffrax.diffeqsolve(
        terms,
        solver,
        t0,
        t1,
        dt0,
        y0,
        saveat=saveat,
        stepsize_controller=stepsize_controller,
    )
    return sol


if __name__ == "__main__":
    events = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, secs, **kw: events.append(name)
    )

    main(0.04, 3e7, 1e4)

    start = time.time()
    sol = main(0.04, 3e7, 1e4)
    end = time.time()

    print("Results:")
    for ti, yi in zip(sol.ts, sol.ys):
        print(f"t={ti.item()}, y={yi.tolist()}")
    print(f"Took {sol.stats['num_steps']} steps in {end - start} seconds.")

    n = len(events)
    main(0.05, 3e7, 1e4)
    assert events[n:].count("/jax/core/compile/jaxpr_trace_duration") == 0, events[n:]
    assert jnp.allclose(jnp.sum(sol.ys, axis=1), 1.0, atol=1e-6)
