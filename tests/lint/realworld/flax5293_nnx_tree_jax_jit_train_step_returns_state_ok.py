# source: https://github.com/google/flax/pull/5293 (docs_nnx/nnx_basics_tree.md as added by the
#   pull request, commit 03af843e: "Training step with JAX transforms"; a review bot flagged
#   this `jax.jit` train_step as critical, saying the in-place `optimizer.update(model, grads)`
#   "will not be correctly propagated")
# observed on jax 0.10.2 CPU (flax 0.12.8, optax 0.2.8): runs clean and the updates do
#   propagate: the jitted step returns `nnx.state((model, optimizer))` and the caller applies it
#   with `nnx.update`, so after two steps `model.count` is 2, `optimizer.step` is 2 and the
#   weights have moved; the step compiles once. Added: the `__main__` block, which runs the
#   guide's two cells twice and checks the counts, the weights and the compile count.
# gap: exemption-vs-JAX
from flax import nnx
import jax
import jax.numpy as jnp

nnx.graphlib.set_graph_mode(False)
nnx.graphlib.set_graph_updates(False)


class Count(nnx.Variable): pass  # custom Variable types

class Linear(nnx.Pytree):
  def __init__(self, din: int, dout: int, *, rngs: nnx.Rngs):
    self.din, self.dout = din, dout                                # static attributes
    self.w = nnx.Param(rngs.uniform((din, dout)))  # data attribute
    self.count = Count(jnp.array(0))                            # data attribute

  def __call__(self, x: jax.Array):
    self.count[...] += 1  # inplace state updates
    return x @ self.w     # Variable are Array-like


import optax

x, y = jnp.ones((3, 2)), jnp.ones((3, 5))
model = Linear(2, 5, rngs=nnx.Rngs(0))
optimizer = nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param)

@jax.jit
def train_step(model, optimizer, x, y):
  # use same filter as Optimizer's `wrt`
  graphdef, params, nondiff = nnx.split(model, nnx.Param, ...)

  def loss_fn(params, nondiff):
    nondiff = nnx.clone(nondiff) # refresh trace state
    model = nnx.merge(graphdef, params, nondiff)
    loss = jnp.mean((model(x) - y) ** 2)
    return loss, nnx.state(model, Count)  # propagate state

  grads, updates = jax.grad(loss_fn, has_aux=True)(params, nondiff)
  nnx.update(model, updates)
  optimizer.update(model, grads)

  return nnx.state((model, optimizer))

updates = train_step(model, optimizer, x, y)
nnx.update((model, optimizer), updates)

print(f'{model.count[...] = }')
print(f'{optimizer.step[...] = }')


if __name__ == "__main__":
  import jax.monitoring

  compiles = []
  jax.monitoring.register_event_duration_secs_listener(
      lambda event, _secs, **_kw: compiles.append(event)
      if event == "/jax/core/compile/backend_compile_duration" else None
  )
  w_before = jnp.array(model.w[...])
  before = len(compiles)
  updates = train_step(model, optimizer, x, y)
  step_compiles = len(compiles) - before
  nnx.update((model, optimizer), updates)
  assert int(model.count[...]) == 2, model.count[...]
  assert int(optimizer.step[...]) == 2, optimizer.step[...]
  assert not jnp.allclose(model.w[...], w_before)
  assert step_compiles == 0, step_compiles
