# source: https://github.com/jax-ml/jax/issues/15136 (the method quoted in the answer; the
#   report's notebook is not public, so self.nn and the data are the smallest stand-ins)
# observed on jax 0.10.2 CPU: after t.opt() the attribute self.param holds leaked tracers
#   (with a static self the write happens once, at trace time, with traced values).
# gap: stale-state-attributes
import functools

import jax
import jax.numpy as jnp
from jax import grad, jit


class NN:
  def __init__(self):
    self.param = [(jnp.ones((2, 2)), jnp.zeros(2))]
    self.lr = 0.1

  def loss(self, param, data, labels):
    (w, b), = param
    return jnp.mean((data @ w + b - labels) ** 2)


class Trainer:
  def __init__(self, nn, data, labels):
    self.nn = nn
    self.data = data
    self.labels = labels

  @functools.partial(jit, static_argnums=(0,))
  def opt(self):
    grads=grad(self.nn.loss)(self.nn.param,self.data,self.labels)
    self.param=[(w-self.nn.lr*dw,b-self.nn.lr*db) for (w,b),(dw,db) in zip(self.nn.param,grads)]  # expect: JIT202
    return


t = Trainer(NN(), jnp.ones((4, 2)), jnp.zeros((4, 2)))
t.opt()

if __name__ == "__main__":
    # observed: line 32 stores traced values on the static self
    assert isinstance(t.param[0][0], jax.core.Tracer)
