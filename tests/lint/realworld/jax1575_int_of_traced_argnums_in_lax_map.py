# source: https://github.com/jax-ml/jax/issues/1575 (adabbott's example in the thread: a
#   traced index converted with int() to pick grad's argnums inside lax.map)
# observed on jax 0.10.2 CPU: ConcretizationTypeError at `int(grad_indices[i])`: the body of
#   lax.map is traced, so `i` and the element it selects are tracers, and int() needs a
#   concrete value.
# gap: other
import jax
import jax.numpy as np

def f(x,y):
    return 2 * x + 3 * y

inp = np.array([1.0,2.0,3.0,4.0,5.0])
grad_indices = np.array([0,0,1,0,1]) # this now has to be an array

def partialf(i):
    idx = int(grad_indices[i]) # force conversion to int  # expect: JIT401
    grad_result = jax.grad(f, argnums=idx)(inp[i],inp[i])
    return grad_result

grad_result = jax.lax.map(partialf, np.arange(5))
