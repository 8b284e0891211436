# source: https://github.com/google/flax/issues/4847
#   (the reporter's example: activation statistics collected inside a custom_vjp forward)
# observed on jax 0.10.2 CPU: with flax 0.12.8, the plain call runs (the custom_vjp primal
#   runs eagerly and stores a concrete 42.0); under nnx.grad JAX traces the custom_vjp
#   function, and fwd, called from it, assigns a value of that inner trace to
#   self.stats.value, a Variable of the module outside it: nnx raises TraceContextError
#   "Cannot mutate QuantStats from a different trace level" on the assignment (line 32).
#   Bypassing the check (the commented __setattr__) would store a tracer that escapes the
#   trace.
# gap: stale-state-attributes
# added: the imports.
import jax
import jax.numpy as jnp
from flax import nnx

class QuantStats(nnx.Variable):
  # __setattr__ = object.__setattr__
  pass


class Model(nnx.Module):
  def __init__(self):
    self.stats = QuantStats({'absmax': jnp.zeros(())})
    self.linear = nnx.Linear(12, 10, rngs=nnx.Rngs(0))

  def __call__(self, x):
    @jax.custom_vjp
    def f(x):
      return fwd(x)[0]

    def fwd(x):
      self.stats.value = {'absmax': jnp.max(jnp.abs(x))}  # expect: JIT202
      return x, ()

    def bwd(_, g):
      return g

    f.defvjp(fwd, bwd)
    return self.linear(f(x))


def loss_fn(model, x):
  out = model(x)
  return jnp.sum(jnp.abs(out))


model = Model()
loss_fn(model, jnp.full((1, 12), 42.))
print(model.stats['absmax'])
nnx.grad(loss_fn)(model, jnp.full((1, 12), 43.))
print(model.stats['absmax'])
