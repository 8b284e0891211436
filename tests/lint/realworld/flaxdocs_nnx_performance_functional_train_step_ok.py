# source: https://github.com/google/flax/blob/84da828a35aa47617cfa64fed73f0189dbe3e79c/docs_nnx/guides/performance.md
# observed on jax 0.10.2 CPU: with flax 0.12.8 and optax 0.2.8 the guide's three training
#   loops run as written: the nnx.jit step, the same step through nnx.cached_partial, and the
#   functional loop that splits (model, optimizer, metrics) once, merges inside a plain jax.jit
#   and returns the new state. The functional step compiles once for its ten calls, the
#   optimizer's step count reaches 10, and the dropout stream's count advances, so every step
#   draws a fresh dropout mask. Added: the `__main__` block that checks this; the guide's code
#   cells are kept in order.
# gap: exemption-vs-JAX
from flax import nnx
import jax
import jax.numpy as jnp
import optax

class Model(nnx.Module):
  def __init__(self, din, dmid, dout, rngs: nnx.Rngs):
    self.linear = nnx.Linear(din, dmid, rngs=rngs)
    self.bn = nnx.BatchNorm(dmid, use_running_average=False, rngs=rngs)
    self.dropout = nnx.Dropout(0.2, deterministic=False, rngs=rngs)
    self.linear_out = nnx.Linear(dmid, dout, rngs=rngs)

  def __call__(self, x):
    x = nnx.relu(self.dropout(self.bn(self.linear(x))))
    return self.linear_out(x)

model = Model(2, 64, 3, rngs=nnx.Rngs(0))  # eager initialization
optimizer = nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param)
metrics = nnx.MultiMetric(
  loss=nnx.metrics.Average('loss'),
)

@nnx.jit  # <== currently slow
def train_step(model, optimizer, metrics, x, y):
  def loss_fn(model):
    y_pred = model(x)  # call methods directly
    return ((y_pred - y) ** 2).mean()

  loss, grads = nnx.value_and_grad(loss_fn)(model)
  optimizer.update(model, grads)  # in-place updates
  metrics.update(loss=loss)

  return loss

for _ in range(10):
  x, y = jnp.ones((32, 2)), jnp.zeros((32, 3))
  loss = train_step(model, optimizer, metrics, x, y)

cached_train_step = nnx.cached_partial(train_step, model, optimizer, metrics)

for _ in range(10):
  x, y = jnp.ones((32, 2)), jnp.zeros((32, 3))
  loss = cached_train_step(x, y)

# split before training loop
graphdef, state = nnx.split((model, optimizer, metrics))

@jax.jit  # regular JAX
def jax_train_step(graphdef, state, x, y):
  # merge at the beginning of the function
  model, optimizer, metrics = nnx.merge(graphdef, state)

  def loss_fn(model):
    y_pred = model(x)  # call methods directly
    return ((y_pred - y) ** 2).mean()

  loss, grads = nnx.value_and_grad(loss_fn)(model)
  optimizer.update(model, grads)
  metrics.update(loss=loss)

  state = nnx.state((model, optimizer, metrics))
  return loss, state

for _ in range(10):
  x, y = jnp.ones((32, 2)), jnp.zeros((32, 3))
  loss, state = jax_train_step(graphdef, state, x, y)

# update objects after training
nnx.update((model, optimizer, metrics), state)


if __name__ == "__main__":
    import jax.monitoring

    assert int(optimizer.step[...]) == 30, optimizer.step
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **_kw: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    graphdef, state = nnx.split((model, optimizer, metrics))
    count_before = int(model.dropout.rngs.count[...])
    losses = []
    for _ in range(5):
        x, y = jnp.ones((32, 2)), jnp.zeros((32, 3))
        loss, state = jax_train_step(graphdef, state, x, y)
        losses.append(float(loss))
    nnx.update((model, optimizer, metrics), state)
    assert int(optimizer.step[...]) == 35, optimizer.step
    assert int(model.dropout.rngs.count[...]) == count_before + 5
    assert len(set(losses)) == 5, losses
    assert len(compiles) <= 1, compiles
