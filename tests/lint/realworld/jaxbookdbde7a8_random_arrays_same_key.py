# source: https://github.com/1040403998/JAX-/blob/dbde7a803ad41fa3b7bcb7f6c4d7774d86fd97d0/chapter03/%E4%BB%A3%E7%A0%81%E7%A4%BA%E4%BE%8B3.5.py (source code of the Chinese book 《JAX可微分编程》, code example 3.5 "数组的创建", section 3.1.10 "随机数组的生成（jax）")
# observed on jax 0.10.2 CPU: the three "random arrays" x, y, z are all drawn from the one key PRNGKey(0): z is bit-for-bit equal to x, and y is exactly the first 500 values of x
# gap: other
# (kept: the file's array-creation lines and sections 3.1.9-3.1.11; left out: the "key的依赖性" lines that print random.normal(key, (2,)) twice on purpose to show that a key gives the same numbers; added: the __main__ block)
import numpy as np
import jax.numpy as jnp

t0 = jnp.array(0)
t1 = jnp.array([0., 1., 2.])
t2 = jnp.array([[0., 1., 2.], [3., 4., 5.], [6., 7., 8.]])
t3 = jnp.array(np.array([[[0., 1., 2.], [3., 4., 5.], [6., 7., 8.]],
 		[[9., 10., 11.], [12., 13., 14.], [15., 16., 17.]],
  		[[18., 19., 20.], [21., 22., 23.], [24., 25., 26.]]]))



# 3.1.9 随机数组的生成（numpy）
from numpy.random import default_rng
rng = default_rng()
vals = rng.standard_normal((50, 50))

# 3.1.10 随机数组的生成（jax）
from jax import random
key = random.PRNGKey(0)
x = random.uniform(key, (50, 50))
y = random.uniform(key, (50, 10))  # expect: JIT502
z = random.uniform(key, (50, 50))  # expect: JIT502

# 3.1.11 劈分key
key = random.PRNGKey(0)
key, subkey = random.split(key)
print(random.normal(key   , shape=(2,)))  # [0.13893184  1.37066831]
print(random.normal(subkey, shape=(2,)))  # [1.13787844 -0.14331426]

# 劈分多份key
key = random.PRNGKey(0)
key, *subkeys = random.split(key, num=4)
print(subkeys)


if __name__ == "__main__":
    # observed: line 26 y is drawn from the key x was drawn from: its 500 values are exactly the first 500 values of x (x.ravel()[:500]), not an independent draw
    assert (y.ravel() == x.ravel()[:500]).all()
    k1, k2 = random.split(random.PRNGKey(0))
    assert not (random.uniform(k2, (50, 10)).ravel() == x.ravel()[:500]).any()
    # observed: line 27 z is bit-for-bit equal to x (same key, same shape)
    assert (z == x).all()
    print("OK: y and z reuse x's key; z == x")
