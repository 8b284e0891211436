# source: https://github.com/jax-ml/jax/issues/37859
# observed on jax 0.10.2 CPU: runs clean with jax_debug_key_reuse on, for the batch of 3
#   keys and for the 0-sized batch alike: f splits its key and draws from each half once
#   (the report's KeyReuseError for the empty batch no longer occurs). Added: the __main__
#   block, which runs the same under jax.jit.
# gap: other
from jax import random, config, vmap

config.update('jax_debug_key_reuse', True)

def f(key):
    a, b = random.split(key)
    return random.normal(a) + random.normal(b)  # no reuse

# Sanity check: f is fine for any non-empty batch of keys
non_empty = random.split(random.key(0), 3)
vmap(f)(non_empty)  # ok

# Same function, but the leading axis happens to be 0:
empty = random.split(random.key(1), 0)
assert empty.shape == (0,)
vmap(f)(empty)  # raises KeyReuseError

if __name__ == "__main__":
    import jax

    assert jax.jit(vmap(f))(random.split(random.key(2), 3)).shape == (3,)
    assert jax.jit(vmap(f))(random.split(random.key(3), 0)).shape == (0,)
