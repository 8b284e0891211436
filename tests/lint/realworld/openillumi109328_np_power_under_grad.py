# source: https://openillumi.com/?p=109328 (a Stack Overflow question retold: the mean
#   squared error of a linear model written with NumPy, then differentiated)
# observed on jax 0.10.2 CPU: `grad(f)(params, x, y)` raises TracerArrayConversionError in
#   np.power: params['w'] is a JVP tracer that NumPy tries to convert. The page's `df = grad(f)`
#   call with `params = {'w': 2.4, 'b': 10.}` is as posted; imports are added.
# gap: other
import numpy as np
from jax import grad

x = np.linspace(0,1,100)
y = 2 * x + 3 + np.random.randn(100)

def f(params, x, y):
  return np.mean(np.power((params['w'] * x + params['b'])-y , 2))  # expect: JIT402

params = {'w': 2.4, 'b': 10.}
df = grad(f)
df(params, x, y)
