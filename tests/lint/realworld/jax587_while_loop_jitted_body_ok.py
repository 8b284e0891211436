# source: https://github.com/jax-ml/jax/issues/587 (the repro in the description)
# observed on jax 0.10.2 CPU: runs clean: a jitted function used as the body of
#   lax.while_loop, called twice; the issue was only about op-by-op speed. Added: the
#   __main__ block.
# gap: other
import time
import jax.numpy as np
from jax import jit, lax

def f(x):
    return np.mean(x - np.ones(10000))

x = np.array(0.)

t = time.time()
f(x)
print("time to evaluate f       :", time.time() - t)

jf = jit(f)
jf(x)

t = time.time()
jf(x)
print("time to evaluate jitted f:", time.time() - t)

t = time.time()
lax.while_loop(lambda x: x < 0, jf, np.array(0.))
print("time for while_loop f    :", time.time() - t)

t = time.time()
lax.while_loop(lambda x: x < 0, jf, np.array(0.))
print("time for while_loop f    :", time.time() - t)

if __name__ == "__main__":
    assert float(lax.while_loop(lambda x: x < 0, jf, np.array(0.))) == 0.0
