# source: https://github.com/google/flax/blob/c6498d57de6cf8799ecf5f3b975d99fe91540e0b/examples/nnx_toy_examples/02_lifted_transforms.py
#   (Flax's NNX toy example of the lifted transforms: `nnx.jit` train and test steps over
#   an MLP that counts its calls in an `nnx.Variable`, run through `nnx.cached_partial`)
# observed on jax 0.10.2 CPU (flax 0.12.8, optax 0.2.8): runs clean. `self.count.value += 1`
#   in `MLP.__call__` runs under `nnx.jit` (and `nnx.grad` inside it), which trace the
#   module's state in and write it back, so the count rises on every call, not once per
#   trace: after the loop it equals the number of forward passes (2003). The data come from
#   NumPy's global generator outside jit. Changed: `total_steps` 10_000 -> 2_000 (run
#   time); left out: the matplotlib plot at the end. Added: the final asserts.
# gap: stale-state-attributes
# %%
import jax
import jax.numpy as jnp
import numpy as np
import optax

from flax import nnx

X = np.linspace(0, 1, 100)[:, None]
Y = 0.8 * X**2 + 0.1 + np.random.normal(0, 0.1, size=X.shape)


def dataset(batch_size):
  while True:
    idx = np.random.choice(len(X), size=batch_size)
    yield X[idx], Y[idx]


class Linear(nnx.Module):
  def __init__(self, din: int, dout: int, *, rngs: nnx.Rngs):
    self.w = nnx.Param(jax.random.uniform(rngs.params(), (din, dout)))
    self.b = nnx.Param(jnp.zeros((dout,)))

  def __call__(self, x):
    return x @ self.w.value + self.b.value


class Count(nnx.Variable):
  pass


class MLP(nnx.Module):
  def __init__(self, din, dhidden, dout, *, rngs: nnx.Rngs):
    self.count = Count(jnp.array(0))
    self.linear1 = Linear(din, dhidden, rngs=rngs)
    self.linear2 = Linear(dhidden, dout, rngs=rngs)

  def __call__(self, x):
    self.count.value += 1
    x = self.linear1(x)
    x = jax.nn.relu(x)
    x = self.linear2(x)
    return x


model = MLP(din=1, dhidden=32, dout=1, rngs=nnx.Rngs(0))
tx = optax.sgd(1e-3)
optimizer = nnx.Optimizer(model, tx, wrt=nnx.Param)


@nnx.jit
def train_step(model: MLP, optimizer: nnx.Optimizer, batch):
  x, y = batch

  def loss_fn(model: MLP):
    y_pred = model(x)
    return jnp.mean((y - y_pred) ** 2)

  grads: nnx.State = nnx.grad(loss_fn)(model)
  optimizer.update(model, grads)


@nnx.jit
def test_step(model: MLP, batch):
  x, y = batch
  y_pred = model(x)
  loss = jnp.mean((y - y_pred) ** 2)
  return {'loss': loss}

cached_train_step = nnx.cached_partial(train_step, model, optimizer)
cached_test_step = nnx.cached_partial(test_step, model)

total_steps = 2_000
for step, batch in enumerate(dataset(32)):
  cached_train_step(batch)

  if step % 1000 == 0:
    logs = cached_test_step((X, Y))
    print(f"step: {step}, loss: {logs['loss']}")

  if step >= total_steps - 1:
    break

print('times called:', model.count.value)

y_pred = model(X)

# One forward pass per train step, per test step (steps 0 and 1000) and the last call.
assert int(model.count.value) == total_steps + 2 + 1
assert float(jnp.mean((Y - y_pred) ** 2)) < 0.1
