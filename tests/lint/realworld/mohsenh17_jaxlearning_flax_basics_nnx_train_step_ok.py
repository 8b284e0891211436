# source: https://github.com/mohsenh17/jaxLearning/blob/36526d4e9522db2bd2580b86b03f00d4a5094187/flax/basics.ipynb
#   (a learner's notebook on Flax NNX: a hand-written Linear layer and an MLP with dropout
#   and batch norm, trained with an nnx.jit train_step that updates an nnx.Optimizer in place)
# observed on jax 0.10.2 CPU: runs clean; nnx.jit traces train_step once, the optimizer's
#   step count advances on every call and the loss falls over a few steps on one batch.
# gap: stale-state-attributes
# added: the cells with the Linear, MLP and train_step kept (the Counter, LoRA surgery and
#   nnx.vmap/nnx.scan cells and the nnx.display calls left out); flax 0.12 wants `wrt=` for
#   nnx.Optimizer and the model in optimizer.update, so `nnx.Optimizer(model, opt)` is spelled
#   `nnx.Optimizer(model, opt, wrt=nnx.Param)` and `optimizer.update(grads)` is
#   `optimizer.update(model, grads)`; the __main__ block with a trace counter.
from flax import nnx
import jax
from jax import numpy as jnp
import optax

TRACES = []

class Linear(nnx.Module):

  def __init__(self, din:int, dout:int, *, rngs:nnx.Rngs): # * force the succeeding variables must be provided with keyword arg
    key = rngs.params()
    self.w = nnx.Param(jax.random.uniform(key, (din, dout)))
    self.b = nnx.Param(jnp.zeros((dout,)))
    self.din, self.dout = din, dout

  def __call__(self, x:jnp.ndarray):
    return x @ self.w + self.b


class MLP(nnx.Module):
  def __init__(self, din:int, dmid:int, dout:int, *, rngs:nnx.Rngs):
    self.lin1 = Linear(din, dmid, rngs=rngs)
    self.dropout = nnx.Dropout(rate=0.5, rngs=rngs)
    self.bn = nnx.BatchNorm(dmid, rngs=rngs)
    self.lin2 = Linear(dmid, dout, rngs=rngs)
  def __call__(self, x:jnp.ndarray):
    x = self.lin1(x)
    x = self.bn(x)
    x = self.dropout(x)
    x = nnx.gelu(x)
    x = self.lin2(x)
    return x


model = MLP(2, 16, 10, rngs=nnx.Rngs(0))
opt = optax.adam(1e-3)
optimizer = nnx.Optimizer(model, opt, wrt=nnx.Param)

@nnx.jit
def train_step(model, optimizer, x, y):
  TRACES.append(1)
  def loss_fn(model):
    y_pred = model(x)
    return jnp.mean((y_pred - y)**2)

  loss, grads = nnx.value_and_grad(loss_fn)(model)
  optimizer.update(model, grads)

  return loss


if __name__ == "__main__":
    x, y = jnp.ones((5, 2)), jnp.ones((5, 10))
    model.eval()  # dropout off, so the losses on one batch can be compared
    model.bn.use_running_average = False
    losses = [float(train_step(model, optimizer, x, y)) for _ in range(20)]
    assert len(TRACES) == 1
    assert int(optimizer.step[...]) == 20
    assert losses[-1] < losses[0]
