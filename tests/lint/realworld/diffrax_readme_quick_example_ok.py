# source: https://github.com/patrick-kidger/diffrax/blob/v0.7.2/README.md (the quick
#   example, then the same solve inside jax.jit and jax.grad)
# observed on jax 0.10.2 CPU with diffrax 0.7.2: runs clean; diffeqsolve traces the vector
#   field with traced t and y, and the field never branches on them.
# gap: other
import jax
import jax.numpy as jnp
from diffrax import diffeqsolve, Dopri5, ODETerm, SaveAt, PIDController

vector_field = lambda t, y, args: -y
term = ODETerm(vector_field)
solver = Dopri5()
saveat = SaveAt(ts=[0., 1., 2., 3.])
stepsize_controller = PIDController(rtol=1e-5, atol=1e-5)

sol = diffeqsolve(term, solver, t0=0, t1=3, dt0=0.1, y0=1, saveat=saveat,
                  stepsize_controller=stepsize_controller)

print(sol.ts)  # DeviceArray([0.   , 1.   , 2.   , 3.    ])
print(sol.ys)  # DeviceArray([1.   , 0.368, 0.135, 0.0498])


@jax.jit
def solve(y0):
    return diffeqsolve(term, solver, t0=0, t1=3, dt0=0.1, y0=y0, saveat=saveat,
                       stepsize_controller=stepsize_controller).ys


print(solve(jnp.float32(2.0)))
print(jax.grad(lambda y0: solve(y0)[-1])(jnp.float32(1.0)))
