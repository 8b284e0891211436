# source: https://github.com/NeoNeuron/jax_tutorial/blob/2625d3868bfb90cb571d5b17d168621f75ff4842/notebooks/02_vmap_and_scan.ipynb
#   (a JAX tutorial for computational neuroscientists, notebook "02 - vmap and scan", section
#   2.1: the imports cell and the "Speedup: vmap vs Python loop" cell, as written. Left out:
#   matplotlib, which that cell does not use. Added: the __main__ block.)
# observed on jax 0.10.2 CPU: the weight matrix and the 512 "examples" are drawn from the same
#   key, so with the default partitionable threefry the first 64 rows of X_big are exactly
#   W_big (and the benchmark multiplies W_big by its own rows); the timings run fine.
# gap: other
import jax
import jax.numpy as jnp
import numpy as np
import time

# Speedup: vmap vs Python loop
key = jax.random.PRNGKey(0)
W_big = jax.random.normal(key, (64, 64))
X_big = jax.random.normal(key, (512, 64))   # 512 examples  # expect: JIT502

batch_fn = jax.jit(jax.vmap(lambda x: W_big @ x))
_ = batch_fn(X_big).block_until_ready()  # warm up

n = 50
t0 = time.perf_counter()
for _ in range(n):
    r = jnp.stack([W_big @ X_big[i] for i in range(512)])
elapsed_loop = (time.perf_counter() - t0) / n * 1000

t0 = time.perf_counter()
for _ in range(n):
    batch_fn(X_big).block_until_ready()
elapsed_vmap = (time.perf_counter() - t0) / n * 1000

print(f'Python loop: {elapsed_loop:.2f} ms   |   vmap+jit: {elapsed_vmap:.2f} ms')
print(f'Speedup: {elapsed_loop/elapsed_vmap:.1f}x')


if __name__ == "__main__":
    # observed: line 17 draws X_big from the key that already drew W_big: its first 64 rows
    # are W_big itself
    assert bool(jnp.array_equal(X_big[:64], W_big))
    assert np.allclose(np.asarray(batch_fn(X_big)), np.asarray(r), atol=1e-4)
