# source: https://github.com/jax-ml/jax/issues/5208
# observed on jax 0.10.2 CPU: grid1 runs; grid2 raises ConcretizationTypeError in
#   jnp.linspace: under jit jnp.maximum/jnp.abs of Python constants return tracers, so
#   `num_steps + 1` is not a concrete size. (The prints are the user's deliberate
#   trace-time markers, so they are tolerated, not expected.)
# gap: omnistaging
import jax
import jax.numpy as jnp


@jax.jit
def grid1():
    print('re-compiling ...')  # tolerate: JIT203
    t0, tf, num_steps = 0., 1., 10
    ts = jnp.linspace(t0, tf, num_steps + 1)
    return ts


@jax.jit
def grid2():
    print('re-compiling ...')  # tolerate: JIT203
    t0, tf, dt = 0., 1., 1e-1
    num_steps = jnp.maximum(jnp.abs((tf - t0)/dt), 1)
    ts = jnp.linspace(t0, tf, num_steps + 1)  # expect: JIT404
    return ts


print(grid1())
print(grid2())
