# source: https://github.com/patrick-kidger/diffrax/issues/316 (the reporter's example; with
#   diffrax 0.4.1 `t0=ts[0]` from a NumPy array raised "t0 and t1 must be scalars")
# observed on jax 0.10.2 CPU (diffrax 0.7.2): runs clean; the NumPy scalars `ts[0]` and
#   `ts[1]` are arrays to eqx.filter_jit, traced rather than static, and the saved values
#   are exp(-t) at t = 0, 1, 2, 3. Added: `import numpy as np` (the report used `np`
#   without showing its import) and the __main__ block.
# gap: exemption-vs-JAX
import numpy as np
from diffrax import diffeqsolve, Dopri5, ODETerm, SaveAt, PIDController

vector_field = lambda t, y, args: -y
term = ODETerm(vector_field)
solver = Dopri5()
saveat = SaveAt(ts=[0., 1., 2., 3.])
stepsize_controller = PIDController(rtol=1e-5, atol=1e-5)

ts = np.array([0.0, 3.0])
sol = diffeqsolve(term, solver, t0=ts[0], t1=ts[1], dt0=0.1, y0=1, saveat=saveat,
                  stepsize_controller=stepsize_controller)


if __name__ == "__main__":
    assert np.allclose(sol.ys, np.exp(-np.arange(4.0)), rtol=1e-4), sol.ys
