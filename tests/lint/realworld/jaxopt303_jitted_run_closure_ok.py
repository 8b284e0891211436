# source: https://github.com/google/jaxopt/issues/303 (the maintainer's answer: jit a
#   function that calls the solver's `run`; the solver's hyper-parameters stay fixed Python
#   values closed over by it)
# observed on jax 0.10.2 CPU (jaxopt 0.8.5): runs clean; `jitted_run` compiles once and a
#   second call with new data reuses it (one trace). Added: imports, a least-squares stand-in
#   for the reporter's `MyFunc` (not shown) taking the reporter's `dataTuple`, and inputs.
# gap: exemption-vs-JAX
# unverifiable: needs jaxopt, which the test extra does not install (verified when collected, on jax 0.10.2 with jaxopt installed)
import jax
import jax.numpy as jnp
import jaxopt


def MyFunc(w, dataTuple):
    X, y = dataTuple
    return jnp.mean((X @ w - y) ** 2)


mini = jaxopt.GradientDescent(MyFunc, stepsize=0.1, maxiter=500, verbose=0, jit=True)

@jax.jit # mark all the parameters you want as static
def jitted_run(start, dataTuple):
  return mini.run(start, dataTuple)

# Call jitted_run when you want to run the solver


if __name__ == "__main__":
    X = jnp.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    y = jnp.array([1.0, 2.0, 3.0])
    start = jnp.zeros(2)
    res = jitted_run(start, (X, y))
    assert jnp.allclose(res.params, jnp.array([1.0, 2.0]), atol=1e-2), res.params
    res2 = jitted_run(start, (X, 2 * y))
    assert jnp.allclose(res2.params, jnp.array([2.0, 4.0]), atol=1e-2), res2.params
    assert jitted_run._cache_size() == 1, jitted_run._cache_size()
