# source: https://crackedaicode.com/problems/jax-prngkey-and-split
#   (a course problem page, "PRNGKey and Split": its worked mini-example, the reused key
#   marked as wrong and the split marked as right, both in one cell)
# observed on jax 0.10.2 CPU: x1 and x2 of the first part are the same three numbers: the
#   second jax.random.normal draws from the key the first already used. The "splitting"
#   part then splits that same key, already consumed twice: with jax_debug_key_reuse on,
#   the split raises KeyReuseError. Added: the __main__ block.
# gap: other
import jax, jax.numpy as jnp

key = jax.random.PRNGKey(0)
# ❌ Reusing the key:
x1 = jax.random.normal(key, (3,))
x2 = jax.random.normal(key, (3,))   # IDENTICAL to x1!  # expect: JIT502

# ✅ Splitting:
k1, k2 = jax.random.split(key, 2)  # expect: JIT502
x1 = jax.random.normal(k1, (3,))
x2 = jax.random.normal(k2, (3,))   # independent

if __name__ == "__main__":
    # observed: line 14 draws from the key x1 was drawn from: the same numbers
    key = jax.random.PRNGKey(0)
    a = jax.random.normal(key, (3,))
    b = jax.random.normal(key, (3,))  # tolerate: JIT502
    assert jnp.array_equal(a, b)
    # observed: line 17 splits the key both draws consumed; the key-reuse checker
    # rejects the split
    jax.config.update("jax_debug_key_reuse", True)
    key = jax.random.key(0)
    jax.random.normal(key, (3,))
    try:
        jax.random.split(key, 2)  # tolerate: JIT502
    except jax.errors.KeyReuseError:
        pass
    else:
        raise AssertionError("no KeyReuseError")
