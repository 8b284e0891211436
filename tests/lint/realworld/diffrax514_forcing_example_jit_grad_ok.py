# source: https://github.com/patrick-kidger/diffrax/issues/514 (the reporter copy-pasted the
#   docs' forcing example, docs/examples/forcing.ipynb, here at diffrax commit 5ea5fcb0)
# observed on jax 0.10.2 CPU (diffrax 0.7.2, equinox 0.13.8): runs clean; both `solve`
#   functions trace and run under jit, the second one under jit(grad): `len(points)` is the
#   static length of the traced array, and the interpolation passed as `args` is a pytree of
#   tracers. The failure in the thread came from mismatched package versions. The
#   matplotlib cell is left out; the __main__ block checks the outputs' shapes.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp
from diffrax import diffeqsolve, ODETerm, SaveAt, Tsit5


def force(t, args):
    m, c = args
    return m * t + c


def vector_field(t, y, args):
    return -y + force(t, args)


@jax.jit
def solve(y0, args):
    term = ODETerm(vector_field)
    solver = Tsit5()
    t0 = 0
    t1 = 10
    dt0 = 0.1
    saveat = SaveAt(ts=jnp.linspace(t0, t1, 1000))
    sol = diffeqsolve(term, solver, t0, t1, dt0, y0, args=args, saveat=saveat)
    return sol


y0 = 1.0
args = (0.1, 0.02)
sol = solve(y0, args)

from diffrax import backward_hermite_coefficients, CubicInterpolation


def vector_field2(t, y, interp):
    return -y + interp.evaluate(t)


@jax.jit
@jax.grad
def solve(points):
    t0 = 0
    t1 = 10
    ts = jnp.linspace(t0, t1, len(points))
    coeffs = backward_hermite_coefficients(ts, points)
    interp = CubicInterpolation(ts, coeffs)
    term = ODETerm(vector_field2)
    solver = Tsit5()
    dt0 = 0.1
    y0 = 1.0
    sol = diffeqsolve(term, solver, t0, t1, dt0, y0, args=interp)
    (y1,) = sol.ys
    return y1


points = jnp.array([3.0, 0.5, -0.8, 1.8])
grads = solve(points)


if __name__ == "__main__":
    assert sol.ys.shape == (1000,)
    assert grads.shape == (4,) and bool(jnp.all(jnp.isfinite(grads)))
