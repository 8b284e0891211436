import diffrax
import jax
import jax.numpy as jnp


def decay(t, y, args):
    return -args * y


@jax.jit
def solve(y0, ts, k):
    sol = diffrax.diffeqsolve(
        diffrax.ODETerm(decay),
        diffrax.Dopri5(),
        t0=ts[0],
        t1=ts[-1],
        dt0=0.01,
        y0=y0,
        args=k,
        saveat=diffrax.SaveAt(ts=ts),
        stepsize_controller=diffrax.PIDController(rtol=1e-5, atol=1e-5),
    )
    return sol.ys
