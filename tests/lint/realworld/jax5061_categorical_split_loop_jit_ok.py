# source: https://github.com/jax-ml/jax/issues/5061 (the reporter's code example: a jitted
#   jax.random.categorical against the eager one, each loop splitting a fresh PRNGKey(0))
# observed on jax 0.10.2 CPU: runs clean; both loops split their key before every draw, and
#   the jitted sampler gives the same ten samples as the eager one, all 0 or 1 (the
#   2147483647 of the report was a jaxlib bug, fixed in 0.1.57). Each loop starts from a
#   fresh PRNGKey(0) on purpose, to compare the two. Added: the lists that collect the samples
#   (each loop's `print(sample(subkey))` is split into `s = ...; print(s)` to keep them) and
#   the `__main__` assert.
# gap: other
import jax
import jax.numpy as jnp
import jax.random as jrandom

def sample(rngkey):
    return jrandom.categorical(rngkey, jnp.ones((1, 2)))

jsample = jax.jit(sample)

eager, jitted = [], []
print("No jit")
rngkey = jrandom.PRNGKey(0)
for i in range(10):
    rngkey, subkey = jrandom.split(rngkey)
    s = sample(subkey)
    print(s)
    eager.append(int(s[0]))

print("\njit")
rngkey = jrandom.PRNGKey(0)
for i in range(10):
    rngkey, subkey = jrandom.split(rngkey)
    s = jsample(subkey)
    print(s)
    jitted.append(int(s[0]))


if __name__ == "__main__":
    assert eager == jitted, (eager, jitted)
    assert set(eager) <= {0, 1}
