# source: https://crackedaicode.com/problems/jax-deterministic-batch-with-keys
#   (a course problem page, "Deterministic Batch via vmap+split": its worked mini-example)
# observed on jax 0.10.2 CPU: runs clean; each row of batch is drawn from its own split
#   key, and the rows differ. Added: the __main__ block, which checks the rows and runs
#   the draw under jit on keys split from another seed.
# gap: other
import jax, jax.numpy as jnp

base = jax.random.PRNGKey(0)
batch_size = 4

keys = jax.random.split(base, batch_size)   # shape (4, 2)
def draw(k):
    return jax.random.normal(k, (3,))       # one length-3 sample per key

batch = jax.vmap(draw)(keys)
# batch.shape == (4, 3) — each row is an independent N(0,1) sample

if __name__ == "__main__":
    assert batch.shape == (4, 3)
    assert not jnp.array_equal(batch[0], batch[1])
    fresh = jax.random.split(jax.random.PRNGKey(1), batch_size)
    assert jax.jit(jax.vmap(draw))(fresh).shape == (4, 3)
