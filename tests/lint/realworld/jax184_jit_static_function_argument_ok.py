# source: https://github.com/jax-ml/jax/issues/184
# observed on jax 0.10.2 CPU: both spellings run clean. `@jit(static_argnums=(0,))` failed
#   in 2019 (jit was not a decorator factory); jax.jit now accepts keyword arguments alone
#   and returns a decorator. The function argument `f` is static (functions hash by
#   identity), so mymap(jnp.sin, x) and mymap(jnp.cos, x) are two traces, each called with
#   a traced x. `from jax.api import jit` (removed) is spelled `from jax import jit`;
#   the calls and inputs are added.
# gap: static-hashability
import jax.numpy as jnp
from jax import jit

@jit(static_argnums=(0,))
def mymap(f, x):
    return f(x)

x = jnp.linspace(0.0, 1.0, 4)
print(mymap(jnp.sin, x), mymap(jnp.cos, x))

def mymap(f, x):
    return f(x)
mymap = jit(mymap, static_argnums=(0,))

print(mymap(jnp.sin, x), mymap(jnp.cos, x))
