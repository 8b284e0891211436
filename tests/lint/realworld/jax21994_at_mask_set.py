# source: https://github.com/jax-ml/jax/issues/21994
# observed on jax 0.10.2 CPU: g (jnp.where) runs under jit; f raises
#   NonConcreteBooleanIndexError: a boolean mask inside .at[...] is not allowed under jit.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp

def f(x):
    return x.at[x < 5].set(0)  # expect: JIT403

def g(x):
    return jnp.where(x < 5, 0, x)

x = jnp.arange(10)
assert jnp.array_equal(f(x), g(x))  # type: ignore

print(jax.jit(g)(x))  # no error
print(jax.jit(f)(x))  # error
