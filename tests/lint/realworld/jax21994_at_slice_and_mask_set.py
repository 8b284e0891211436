# source: https://github.com/jax-ml/jax/issues/21994 (the second example of the report)
# observed on jax 0.10.2 CPU: g runs under jit; f raises NonConcreteBooleanIndexError
#   (a computed boolean mask mixed with a slice inside .at[...]).
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp

def f(x):
    return x.at[:4, jnp.mod(x[0], 2) == 0].set(0)  # expect: JIT403

def g(x):
    return x.at[:4].set(jnp.where(jnp.mod(x[0], 2) == 0, 0, x[:4]))

x = jnp.reshape(jnp.arange(100), shape=(10, 10))
assert jnp.array_equal(f(x), g(x))

print(jax.jit(g)(x))  # no error
print(jax.jit(f)(x))  # error
