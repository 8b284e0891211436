# source: https://github.com/google/jaxopt/issues/242 (the second snippet of the report;
#   its first, with jit=True, runs clean)
# observed on jax 0.10.2 CPU (jaxopt 0.8.5): the plain `solver.run` works; the vmapped one
#   raises TracerBoolConversionError from the lambda's `solver.run(a, **k)`: with
#   jit=False jaxopt runs its loops in Python (jaxopt/_src/loop.py, `_while_loop_python`:
#   `if not cond: break`), here the zoom line search's loop inside LBFGS.update, and under
#   vmap that condition is a batched tracer with no single truth value ("This BatchTracer
#   ... was created on line ... zoom_linesearch.py ... (ZoomLineSearch._cond_fun)").
#   The snippet is the reporter's, unchanged.
# gap: cross-module
# unverifiable: needs jaxopt, which the test extra does not install (verified when collected, on jax 0.10.2 with jaxopt installed)
import jax
import jax.numpy as jnp
import jaxopt


def fun(x, y):
    return jnp.square(x - y) + y


solver = jaxopt.LBFGS(fun=fun, maxiter=5, jit=False)

params, state = solver.run(jax.device_put(0.1), y=jax.device_put(2.1))  # Works fine

batch_params, batch_state = jax.vmap(lambda a, k: solver.run(a, **k), in_axes=(0, None))(  # expect: JIT101
    jnp.repeat(0.1, 12), {'y': jax.device_put(2.1)})  # ConcretizationTypeError due to vmap
