# source: https://github.com/patrick-kidger/equinox/issues/291
# observed on jax 0.10.2 CPU: with equinox 0.13.8 runs clean: the two bound methods `model.f`
#   now hash and compare equal, so `apply` traces once for f1 and f2 (the recompilation the
#   issue reported is gone). The trace counter and the __main__ block are added.
# gap: static-hashability
import jax
import jax.numpy as jnp
import equinox as eqx
from functools import partial

n_traces = 0

# define a eqx.Module that is hashable (since it has no unhashable leaves)
class Model(eqx.Module):
    def f(self):
        return

model = Model()
# We get a different function (Partial function) each time we __get__ a bound method
f1 = model.f
f2 = model.f
assert not (f1 is f2)
print(hash(f1))
print(hash(f2))

# Let's try using the bound method as a static argument; now jax.jit cares only about __hash__ and __eq__ of the static argument
@partial(jax.jit, static_argnums=0)
def apply(f):
    global n_traces
    n_traces += 1
    return f()

# This causes a recompilation since the hash of f1 and f2 are different
with jax.log_compiles(True):
    apply(f1)
    apply(f2)

if __name__ == "__main__":
    assert n_traces == 1, n_traces
