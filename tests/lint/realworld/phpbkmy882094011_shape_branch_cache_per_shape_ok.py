# source: https://php.bkmy88.com/faq/2094011.html
#   (a Stack Overflow question retold on php.cn: does @jit compile `test` once, and how
#   can a Python `if` on the input's shape work under jit?)
# observed on jax 0.10.2 CPU: test(x8) is 1 and test(x3) is -1; test._cache_size() is
#   0, 1, 1, 2 at the four prints, as the page says: `x.shape[0] > 4` is decided while
#   tracing, from the static shape, and each input shape gets its own compiled version.
#   The page's code block lost its line breaks; it is laid out one statement per line.
#   Added: the __main__ block.
# gap: omnistaging
import jax
import jax.numpy as jnp
@jax.jit
def test(x):
    if x.shape[0] > 4:
        return 1
    else:
        return -1
x8 = jnp.ones(8) # shape = (8,)
x3 = jnp.ones(3) # shape = (3,)

print(test._cache_size()) # 0 — 尚未调用
test(x8)
print(test._cache_size()) # 1 — 缓存了 (8,) 版本
test(x8)
print(test._cache_size()) # 1 — 复用,不新增
test(x3)
print(test._cache_size()) # 2 — 新增 (3,) 版本

if __name__ == "__main__":
    assert int(test(x8)) == 1
    assert int(test(x3)) == -1
    assert test._cache_size() == 2
