# source: https://github.com/jax-ml/jax/issues/25953
# observed on jax 0.10.2 CPU: runs clean with jax_debug_key_reuse on: key2 comes back from
#   jax.device_put unconsumed and is split once (jax 0.4.36 raised a spurious KeyReuseError,
#   fixed by registering a key-reuse rule for device_put, jax#25957). Added: the __main__
#   block, which repeats the sequence from a fresh key with the split under jax.jit.
# gap: other
import jax; jax.config.update('jax_debug_key_reuse', True)
key = jax.random.key(0)
key1, key2 = jax.random.split(key)
_, key2 = jax.device_put((key1, key2))
jax.random.split(key2)

if __name__ == "__main__":
    key = jax.random.key(0)
    key1, key2 = jax.random.split(key)
    _, key2 = jax.device_put((key1, key2))
    out = jax.jit(jax.random.split)(key2)
    assert out.shape == (2,)
