# source: https://github.com/jax-ml/jax/pull/20236 (the test script in the description)
# observed on jax 0.10.2 CPU: `print(f(42))` raises KeyReuseError ("Previously-consumed key") at
#   `y += jax.random.normal(key)`: the key that `jax.random.uniform` consumed is drawn from
#   again, so x and the normal draw come from the same random bits. The flag
#   `jax_enable_key_reuse_checks` of the PR is spelled with its current name,
#   `jax_debug_key_reuse`.
# gap: other
import jax

jax.config.update('jax_debug_key_reuse', True)

def f(seed):
    key = jax.random.key(seed)
    x = jax.random.uniform(key)
    y = 2 * x
    y += jax.random.normal(key)  # expect: JIT502
    return 2 * y

print(f(42))
