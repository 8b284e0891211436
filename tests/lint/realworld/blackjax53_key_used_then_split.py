# source: https://github.com/blackjax-devs/blackjax/issues/53 (the reporter's example)
# observed on jax 0.10.2 CPU: v of the first call equals u of the second call: the key
#   that f draws u from is split again, inside f and outside it, giving the same key.
# gap: other
import jax

def f(rng_key):
    u = jax.random.normal(rng_key)
    rng_key, _ = jax.random.split(rng_key, 2) # reuse of key is ok, when used for splitting.  # expect: JIT502
    v =  jax.random.normal(rng_key)
    return(u, v)

key = jax.random.PRNGKey(0)
print(f(key))
key, _ = jax.random.split(key, 2) # reuse of key is ok, when used for splitting.  # expect: JIT502
print(f(key))

if __name__ == "__main__":
    first = f(jax.random.PRNGKey(0))
    second = f(key)  # tolerate: JIT502
    # observed: line 9 and line 15 split keys already consumed: the draws repeat
    assert float(first[1]) == float(second[0])
