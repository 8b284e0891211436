# source: https://github.com/patrick-kidger/diffrax/issues/717
# observed on jax 0.10.2 CPU with diffrax: the reporter's MWE runs clean (the
#   TracerBoolConversionError of the report rose inside lineax's linear solve under jax 0.8.2
#   and no longer occurs).
#   diffeqsolve, itself an eqx.filter_jit, traces the lambda vector field, which indexes the
#   tuple state y (a pytree of traced scalars, not a Python sequence of values) and returns a
#   tuple of the same structure; the Python ints given as t0, t1 and y0 are converted to
#   arrays. Added: the __main__ block that evaluates the dense solution.
# gap: types
from diffrax import diffeqsolve, ODETerm, SaveAt, PIDController, Kvaerno5

vector_field = lambda t, y, args: (-5 * y[0], 0.5 * y[1])
term = ODETerm(vector_field)
solver = Kvaerno5()
saveat = SaveAt(dense=True)
stepsize_controller = PIDController(rtol=1e-5, atol=1e-5)

sol = diffeqsolve(
    term,
    solver,
    t0=0,
    t1=3,
    dt0=0.1,
    y0=(1, 1),
    saveat=saveat,
    stepsize_controller=stepsize_controller,
)


if __name__ == "__main__":
    import math

    y0_at_1, y1_at_1 = sol.evaluate(1.0)
    assert abs(float(y0_at_1) - math.exp(-5.0)) < 1e-3
    assert abs(float(y1_at_1) - math.exp(0.5)) < 1e-3
