# source: https://github.com/jax-ml/jax/issues/10878
# observed on jax 0.10.2 CPU: `np.random.rand(3200000)` runs once per trace, so its draw is
#   a constant baked into each compiled version of f: calls with other keys return the same
#   z (the difference of two outputs is one constant). The loop also passes the same `key`
#   to every call, so each call draws the same x (`jax_debug_key_reuse` with a typed key
#   rejects the second call: "Previously-consumed key passed to jit-compiled function").
#   The print is the reporter's trace-time marker. Left out: the
#   `jax.profiler.save_device_memory_profile(f"memory{j}.prof")` line in the loop, which
#   only writes profile files for pprof.
# gap: other
import jax
import jax.random as rd
import numpy as np
import jax.numpy as jnp
import jax.profiler
from functools import partial

key = rd.PRNGKey(233)



@partial(jax.jit,static_argnums=(1,))
def f(key, n):
    print('function is jitting !')  # tolerate: JIT203
    z = np.random.rand(3200000)  # expect: JIT204
    x = jax.random.normal(key, (3,))
    return z + x[n]


for j in range(3):
    y = f(key, j)  # expect: JIT502


if __name__ == "__main__":
    # observed: line 25 draws z once per trace: two keys give outputs that differ by one constant
    other = rd.PRNGKey(7)
    d = np.asarray(f(other, 0)) - np.asarray(f(key, 0))  # tolerate: JIT502
    assert np.allclose(d, d[0]), d[:5]
    # observed: line 31 hands every call the same key: JAX's key-reuse checker, given it typed, rejects the second call
    tkey = jax.random.wrap_key_data(key)
    with jax.debug_key_reuse(True):
        f(tkey, 0)  # tolerate: JIT502
        try:
            f(tkey, 1)  # tolerate: JIT502
        except jax.errors.KeyReuseError as e:
            assert "Previously-consumed key" in str(e), e
        else:
            raise AssertionError("the second call with the same key was accepted")
