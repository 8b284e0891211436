# source: https://github.com/patrick-kidger/equinox/issues/119 (the maintainer's MWE of the
#   reporter's pattern: a list of modules given to lax.switch inside __call__)
# observed on jax 0.10.2 CPU (equinox 0.13.8): lax.switch hashes the branch callables it is
#   given; each branch is an eqx.nn.Linear, a module whose __hash__ hashes its weight and
#   bias arrays, so the call raises TypeError: unhashable type: 'jaxlib._jax.ArrayImpl' (the
#   report hit the same hash with JVPTracer leaves while training). Added: nothing.
# gap: static-hashability
import equinox as eqx
import jax.lax as lax
import jax.numpy as jnp
import jax.random as jr

class M(eqx.Module):
    modules: list[eqx.Module]

    def __init__(self, *, key):
        self.modules = [eqx.nn.Linear(1, 1, key=k) for k in jr.split(key, 5)]

    def __call__(self, x, *, key):
        i = jr.randint(key, (), minval=0, maxval=5)
        return lax.switch(i, self.modules, x)  # expect: JIT302

m = M(key=jr.PRNGKey(0))
m(jnp.array([1.]), key=jr.PRNGKey(1))
