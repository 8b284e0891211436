# source: https://github.com/jax-ml/jax/issues/2777
# observed on jax 0.10.2 CPU: runs clean; sample compiles once per (n, scan) pair, in well
#   under a second each for n up to 8 with the Python loop (the report saw compile time grow
#   exponentially with n in 2020, an XLA problem since fixed), and the unrolled loop and the
#   lax.scan version return the same array. `n` and `scan` are static, so `range(n)` and
#   `if scan:` see Python values; inner_loop splits its key before each draw and hands the
#   new key on. The report's IPython `%time` lines are plain calls here.
# gap: other
import functools
import jax
import jax.numpy as jnp

num_obs = 8

@jax.jit
def inner_loop(key, ra, rb):
  gate_shape = (num_obs, 1, 1, 1)
  key, shard = jax.random.split(key)

  gate_forward = jax.random.uniform(
      shard, gate_shape, dtype=jnp.float32, minval=0.0, maxval=1.0)

  gate_forward = gate_forward.reshape([-1, 1])
  new_ra = 0.5 * (ra + gate_forward * ra + (1 - gate_forward) * rb)
  new_rb = 0.5 * (rb + gate_forward * ra + (1 - gate_forward) * rb)
  ra = new_ra
  rb = new_rb
  return key, ra, rb

@functools.partial(jax.jit, static_argnums=[1, 2])
def sample(key, n, scan=False):

  ra = jnp.array([[1.0, 0.0] for _ in range(num_obs)])
  rb = jnp.array([[0.0, 1.0] for _ in range(num_obs)])

  if scan:
    (key, ra, rb), () = jax.lax.scan(
        lambda c, _: (inner_loop(*c), ()),
        (key, ra, rb), (), length=n)
  else:
    for _ in range(n):
      key, ra, rb = inner_loop(key, ra, rb)

  return ra

print('scan=True')
for i in range(1, 9):
  _ = sample(jax.random.PRNGKey(1), i, True)
print('scan=False')
for i in range(1, 9):
  _ = sample(jax.random.PRNGKey(1), i, False)

if __name__ == "__main__":
  assert sample._cache_size() == 16
  for n in (1, 5, 8):
    assert jnp.allclose(sample(jax.random.PRNGKey(1), n, True),
                        sample(jax.random.PRNGKey(1), n, False))
