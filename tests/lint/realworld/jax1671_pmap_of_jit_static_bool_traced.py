# source: https://github.com/jax-ml/jax/issues/1671 (the example; added: the
#   XLA_FLAGS line that gives the CPU the eight devices the example's leading axis of 8
#   needs; `jax.tree_map` written `jax.tree.map`, its current spelling)
# observed on jax 0.10.2 CPU: wrapper(...) runs on both calls, then p_wrapper raises
#   ValueError: Non-hashable static arguments are not supported ... DynamicJaxprTracer, at
#   `return pmapped(a, b, use_b)`: pmap traces every argument, so the jitted function gets
#   a tracer in its static position 2 (use_b), which cannot be hashed.
# gap: static-hashability
import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"

import jax 
import jax.numpy as np

def bcast_all_devices(obj, num_devices):
  obj_stacked = jax.tree.map(lambda x: np.stack([x] * num_devices, axis=0), obj)
  obj_all_devices = jax.pmap(lambda x: x)(obj_stacked)  # shard across devices
  return obj_all_devices

def func(a, b, use_b):
  if use_b:
    return a * b
  else:
    return a ** 2
    
jit_func = jax.jit(func, static_argnums=2)
def wrapper(a, b=None):
  b, use_b = (1, False) if b is None else (b, True)
  return jit_func(a, b, use_b)

pmapped = jax.pmap(jit_func)

def p_wrapper(a, b=None):
  num_devices = a.shape[0]
  b, use_b = (1, False) if b is None else (b, True)
  use_b = bcast_all_devices(use_b, num_devices)
  return pmapped(a, b, use_b)  # expect: JIT302

a = np.ones([8, 2]) * 2
b = np.arange(16).reshape([8, 2])
print(wrapper(a[0], b[0]))
print(wrapper(a[0]))
print(p_wrapper(a, b))
