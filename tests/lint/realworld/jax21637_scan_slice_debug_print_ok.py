# source: https://github.com/jax-ml/jax/issues/21637
# observed on jax 0.10.2 CPU: runs clean; jax.debug.print in the jitted scan body now prints
#   "half of result: [1. 3.]", matching the returned [1. 3. 1. 3.] (the report, on jax
#   0.4.28, saw the strided slice printed as [1. 2.]). Added: the check of the result.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp

def _fcn(elem):
    strided = jax.lax.slice(elem, (0,), (3,), (2,))  # elem[0:3:2]
    jax.debug.print('num_elems: {num_elems}\nelems: {elems}\nhalf of result: {res}',
                    num_elems=elem.shape[0], res=strided, elems=elem)
    return jnp.tile(strided, (2,))

def trial_func(jac: jnp.ndarray) -> jnp.ndarray:
    def scan_func(jac: jnp.ndarray, _: None):
        return _fcn(jac), None
    jac, _ = jax.lax.scan(scan_func, jac, xs=None, length=1)
    return jac

if __name__ == "__main__":
    out1 = jax.jit(trial_func)(jnp.array([1., 2., 3., 4.]))
    print("result:", out1)
    assert out1.tolist() == [1., 3., 1., 3.]
