# source: https://github.com/jax-ml/jax/issues/1443
# observed on jax 0.10.2 CPU: the function argument is marked static, so jit hashes the
#   lambda and calls it while tracing; prints 6. (The answer in the thread, to "how can I
#   pass a function as an argument to another function while still being able to jit
#   it".) Added: the check in __main__.
# gap: static-hashability
from __future__ import print_function
from functools import partial
from jax import jit

@partial(jit, static_argnums=(0,))
def app(f, x):
  return f(x)

print(app(lambda x: 2 * x, 3))

if __name__ == "__main__":
    double = lambda x: 2 * x
    assert int(app(double, 3)) == 6 and int(app(double, 4)) == 8
