# source: https://github.com/jax-ml/jax/issues/1082 (the four variants in the description)
# observed on jax 0.10.2 CPU: runs clean: all four variants, including grad of the jitted
#   loss that failed with `TypeError: ((), ShapedArray(float32[]))` at the time, now work
#   (probably fixed in jax#1224, the thread says); each gradient is 0 at param = 0.
# gap: exemption-vs-JAX
import jax.numpy as np
from jax import grad, jit
from jax.lax import scan

f = lambda carry, _: ({k : v+carry['a'] for k,v in carry.items()}, np.zeros(()))

# this works
def loss(param):
  init_carry = {'a': param, 'b': np.zeros(())}
  final_carry, ys = scan(f, init_carry, np.array([1,2]))
  return final_carry['a'] * param
test = grad(loss)(np.zeros(()))

# this works
@jit
def loss(param):
  init_carry = {'a': param, 'b': np.zeros(())}
  final_carry, ys = scan(f, init_carry, np.array([1,2]))
  return final_carry['a'] * param
test = loss(np.zeros(()))

# this works
@jit
def loss(param):
  init_carry = {'a': param, 'b': np.zeros(())}
  final_carry, ys = scan(f, init_carry, np.array([1,2]))
  return final_carry['a'] * param + 0. * final_carry['b']
test = grad(loss)(np.zeros(()))

# this doesn't work
@jit
def loss(param):
  init_carry = {'a': param, 'b': np.zeros(())}
  final_carry, ys = scan(f, init_carry, np.array([1,2]))
  return final_carry['a'] * param
test = grad(loss)(np.zeros(()))

if __name__ == "__main__":
    assert float(test) == 0.0
    assert float(grad(loss)(1.0)) == 8.0
