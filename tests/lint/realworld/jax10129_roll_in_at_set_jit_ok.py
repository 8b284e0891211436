# source: https://github.com/jax-ml/jax/issues/10129
# observed on jax 0.10.2 CPU: all three comparisons print True: jit(f1) matches the eager
#   f1 (the mismatch of the report was a CPU backend bug, fixed since). Added: the assert.
# gap: other
import jax.numpy as jnp
from jax import jit, random

key = random.PRNGKey(42)
key, subkey = random.split(key)

X = random.uniform(subkey, (2, 100))

def f1(X):
    X = X.at[0].set(jnp.roll(X[0], 5, axis=-1))
    return X

def f2(X):
    X = X.at[0].set(X[0]**2)
    return X

def f3(X):
    x = jnp.roll(X[0], 5, axis=-1) 
    return jnp.stack([x, X[1]])

print(jnp.all(f1(X) == jit(f1)(X))) # evaluates to False
print(jnp.all(f2(X) == jit(f2)(X))) # evaluates to True
assert all(bool(jnp.all(f(X) == jit(f)(X))) for f in (f1, f2, f3))
