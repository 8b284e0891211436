# source: https://github.com/patrick-kidger/equinox/issues/746
# observed on jax 0.10.2 CPU with equinox 0.13.8: the second call raises ValueError:
#   static arguments should be comparable using __eq__ (the static field `data` holds a
#   JAX array, and comparing two of them against the cache fails); equinox also warns
#   "A JAX array is being set as static!" when Data is built. Added: nothing.
# gap: static-hashability
import jax
import jax.numpy as np
import jax.random as jr
import equinox as eqx


class Data(eqx.Module):
    data: jax.Array = eqx.field(static=True)

    def __init__(self, seed):
        self.data = jr.uniform(jr.PRNGKey(seed), (10, 10))


class Model(eqx.Module):
    foo: jax.Array

    def __init__(self, foo):
        self.foo = np.array(foo)

@eqx.filter_jit
@eqx.filter_value_and_grad
def loss_fn(model, data):
    return np.sum(model.foo - data.data)

model = Model(1.0)
data0, data1 = Data(0), Data(1)

loss, grads = loss_fn(model, data0) # This call evaluates fine
loss, grads = loss_fn(model, data1) # This call throws a ValueError  # expect: JIT302
