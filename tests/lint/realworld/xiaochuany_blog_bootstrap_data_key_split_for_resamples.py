# source: https://github.com/xiaochuany/blog/blob/3a08c210dbaf211a7cdad7091adbf97e5786be6b/docs/posts/2025-12-02-bootstrap.md (blog post "Scalable bootstrapping": the lax.map bootstrap and its vmap/lax.map hybrid)
# observed on jax 0.10.2 CPU: the post draws the data `seq` from `key` with jr.choice and then
#   splits the same `key` into the bootstrap replications' keys, so the resampling keys come
#   from the key the data were drawn from; with jax_debug_key_reuse on, that split raises
#   KeyReuseError ("Previously-consumed key passed to random_split"). The jitted lax.map runs
#   (len(seq) is a static size), one compile.
# gap: other
# (changed: the post's sizes, 5_000_000 draws and 1_000_000 replications, are 5_000 and
#   1_000 here so that the file runs in seconds on CPU; added: the __main__ block, which also
#   calls resample_batched, defined but not called in the post, with a fresh key)
import jax
import jax.numpy as jnp
import jax.random as jr

key = jr.key(0)
seq = jr.choice(key, 2, (5000,), p=jnp.array([95,5]))

def resample(key, seq):
    return jr.choice(key, seq, shape=(len(seq),)).mean() # reduction op is the mean

@jax.jit
def resample_all_sequential(keys, seq):
    return jax.lax.map(lambda k: resample(k, seq), keys)

resample_all_sequential(jr.split(key, 1000), seq).shape   # expect: JIT502


@jax.jit
def resample_batched(keys, seq): 
    keys_reshaped = keys.reshape(-1, 100)  
    return jax.lax.map(
        jax.vmap(lambda k: resample(k, seq)),  # expect more than one key
        keys_reshaped                          # a sequence of key groups, each group=100 keys
    ).flatten()


if __name__ == "__main__":
    out = resample_all_sequential(jr.split(jr.key(1), 1000), seq)
    assert out.shape == (1000,)
    assert resample_all_sequential._cache_size() == 1
    assert resample_batched(jr.split(jr.key(2), 1000), seq).shape == (1000,)

    # observed: line 25 splits the key the data were drawn from: replayed under
    # jax_debug_key_reuse, the split raises KeyReuseError
    jax.config.update("jax_debug_key_reuse", True)
    try:
        k = jr.key(0)
        s = jr.choice(k, 2, (5000,), p=jnp.array([95, 5]))
        resample_all_sequential(jr.split(k, 1000), s)  # tolerate: JIT502
        raise AssertionError("the reused key was not detected")
    except jax.errors.KeyReuseError as e:
        assert str(e).startswith("Previously-consumed key passed to random_split"), e
    finally:
        jax.config.update("jax_debug_key_reuse", False)
