# source: https://github.com/jax-ml/jax/issues/1131
# observed on jax 0.10.2 CPU: the scan body f runs a Python loop of 2000 iterations at
#   trace time, so the body lax.scan compiles holds 2000 add operations; every new `steps`
#   (a static argument) traces and compiles that unrolled body again, about 0.6-1.2 s each
#   here against well under a millisecond per run. (The reported growth of compile time with
#   the step count is gone on this XLA.) Changed to run here: the Colab `!pip install` lines
#   are dropped and time.clock, removed from Python, is time.perf_counter. Added:
#   `import time` and the __main__ block.
# gap: other
import time
import jax.numpy as np
from jax import lax
from jax import jit


def f(x, s):
  for i in range(2000):  # expect: JIT303
    x = x + 1.0
  return x, np.array([0])

def g(x, steps):
  xs = lax.iota(np.int32, steps)
  return lax.scan(f, x, xs)[0]

q = jit(g, static_argnums=(1,))

for p in range(1, 14):
  x = 2 ** p
  
  time1 = time.perf_counter()
  temp = q(np.array(2.0), x).block_until_ready()
  time2 = time.perf_counter()
  temp = q(np.array(2.0), x).block_until_ready()
  time3 = time.perf_counter()

  first_run_time = (time2 - time1)
  second_run_time = (time3 - time2)
  compile_time = first_run_time - second_run_time
  
  print('x = {}, compile time = {} (run times = {}, {})'.format(
      x, compile_time, first_run_time, second_run_time))


if __name__ == "__main__":
  import jax

  jaxpr = jax.make_jaxpr(g, static_argnums=(1,))(np.array(2.0), 8)
  scan_eqn = next(eqn for eqn in jaxpr.eqns if eqn.primitive.name == "scan")
  body = scan_eqn.params["jaxpr"].jaxpr
  # observed: line 17 unrolls into 2000 add equations in the scan body
  assert sum(eqn.primitive.name == "add" for eqn in body.eqns) == 2000
  assert float(q(np.array(2.0), 8)) == 2.0 + 8 * 2000
