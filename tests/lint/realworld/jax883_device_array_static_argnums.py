# source: https://github.com/jax-ml/jax/issues/883
# observed on jax 0.10.2 CPU: ValueError: Non-hashable static arguments are not supported
#   (v = np.array([1, 2, 3]) with np = jax.numpy is static argument 1). `partial` now
#   comes from functools (jax no longer re-exports it).
# gap: static-hashability
from functools import partial

import jax.numpy as np
from jax import jit


@partial(jit, static_argnums=(1,))
def f(x,v):
    return x

def main():
    x = np.ones((10,10))
    v = np.array([1,2,3])
    firstCall = f(x,v)  # expect: JIT302
    print(firstCall)
    secondCall = f(x,v)
    print(secondCall)

if __name__=='__main__':
    main()
