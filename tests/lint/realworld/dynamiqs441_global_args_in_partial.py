# source: https://github.com/dynamiqs/dynamiqs/pull/441 (the check in the description)
# observed on jax 0.10.2 CPU: the lambda inside the jitted global_fun reads the module
#   global `args`, not its parameters y and z; the value of `args` at the first trace is
#   baked in, so after `args = (4.0, 5.0)` the jitted call still returns 3*(2+3) = 15
#   where the function without jit returns 3*(4+5) = 27. (The user read the fast second
#   timings as "no re-jit"; it is a stale value.)
# gap: stale-state-attributes
import jax
import jax.numpy as jnp
from jax.tree_util import Partial
import time

def global_fun(y, z):
    def my_fun(x, y, z):
        return x * (y + z) * jnp.ones(3)

    # Partially apply my_fun to bind the first argument
    fun = Partial(lambda x: my_fun(x, *args))  # expect: JIT201

    return fun(3.0)

# == jit the global function
global_fun_jit = jax.jit(global_fun)

# == first set of arguments
args = (2.0, 3.0)

start_time = time.time()
global_fun_jit(*args).block_until_ready()
print(f"{(time.time() - start_time)*1e6:.3f} us") 
# 13761.997 us

start_time = time.time()
global_fun_jit(*args).block_until_ready()
print(f"{(time.time() - start_time)*1e6:.3f} us")
# 227.690 us

# == second set of arguments
args = (4.0, 5.0)

start_time = time.time()
global_fun_jit(*args).block_until_ready()
print(f"{(time.time() - start_time)*1e6:.3f} us")
# 43.154 us

start_time = time.time()
global_fun_jit(*args).block_until_ready()
print(f"{(time.time() - start_time)*1e6:.3f} us")
# 37.909 us


if __name__ == "__main__":
    jitted, fresh = global_fun_jit(*args), global_fun(*args)
    # observed: line 18 keeps the value `args` had when global_fun was first traced
    assert float(jitted[0]) == 15.0 and float(fresh[0]) == 27.0, (jitted, fresh)
