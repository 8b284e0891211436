# source: https://github.com/jax-ml/jax/issues/1219 (hgt312's comment of 2019-08-22, running
#   @clemisch's code)
# observed on jax 0.10.2 CPU: the first call f(a, b) raises ValueError: Non-hashable static
#   arguments are not supported: both arguments of jnp.multiply are marked static, and they
#   are JAX arrays (in 2019 jit accepted them and hashed them by object identity). The
#   comment's `jit(numpy.multiply, [0, 1])` passed static_argnums positionally, which jit
#   no longer accepts; it is spelled `static_argnums=[0, 1]`.
# gap: static-hashability
from jax import numpy, jit
import time

a = numpy.ones((1000000,)) * 3
b = numpy.ones((1000000,)) * 5
f = jit(numpy.multiply, static_argnums=[0, 1])

times = []
for _ in range(10):
    start = time.time()
    res = f(a, b)  # expect: JIT302
    res.block_until_ready()   # block!
    times.append(time.time() - start)
[print(t) for t in times]
print("Avg:", sum(times) / 10)
