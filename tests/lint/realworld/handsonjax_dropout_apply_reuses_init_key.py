# source: https://github.com/sungyubkim/hands_on_jax/blob/35c0b0d1aa95fc4342939b924b72b62747a4ae5d/2_stochastic_models/stochastic_models.ipynb
#   (a "JAX in practice" notebook series, "Stochastic Models" (Monte-Carlo dropout): cells 1,
#   3, 5, 7, 9, 11, 12, 14, 16, 17 and 18 without their plotting lines)
# observed on jax 0.10.2 CPU: cell 5 initialises the Haiku MLP with `rng`, and cell 7 then
#   samples the dropout masks of its first prediction from the same `rng` (apply with the
#   init key), and cell 9 splits that consumed `rng` for the next samples. With the raw
#   PRNGKey nothing raises; replaying cells 5 and 7 with a typed key under
#   jax.debug_key_reuse(True) raises KeyReuseError in apply, and splitting that key after
#   init raises it too. The notebook's `from utils import Trainer, params_to_vec,
#   make_forward` is replaced by those three definitions, copied from the repository's
#   utils.py (same commit); matplotlib is not imported. Added: the __main__ block.
# gap: other
import jax
import haiku as hk
import optax
import numpy as np
import jax.numpy as jnp
from tqdm import tqdm
from functools import partial
from dataclasses import dataclass

# utils.py of the same repository: Trainer, make_forward, params_to_vec
from flax import struct
from typing import Any, Callable

class Trainer(struct.PyTreeNode):
    apply_fn: Callable = struct.field(pytree_node=False)
    tx: Callable = struct.field(pytree_node=False)
    step: int
    params: Any = None
    state: Any = None
    opt_state: Any = None
    
    @classmethod
    def create(cls, *, apply_fn, params, tx, **kwargs):
        opt_state = tx.init(params)
        return cls(step=0, apply_fn=apply_fn, params=params, tx=tx, opt_state=opt_state, **kwargs)
    
    def apply_gradients(self, *, grads, **kwargs):
        updates, new_opt_state = self.tx.update(grads, self.opt_state, self.params)
        new_params = optax.apply_updates(self.params, updates)
        return self.replace(step=self.step+1, params=new_params, opt_state=new_opt_state, **kwargs)

def make_forward(model):

  def _forward(*args, **kwargs):
    return model()(*args, **kwargs)

  return hk.transform(_forward)

def params_to_vec(param, unravel=False):
    vec_param, unravel_fn = jax.flatten_util.ravel_pytree(param)
    if unravel:
        return vec_param, unravel_fn
    else:
        return vec_param

@dataclass
class MLP(hk.Module):
  width : int
  depth : int
      
  def __call__(self, inputs):
    x = inputs
    for i in range(self.depth):
      x = hk.Linear(self.width)(x)
      if i < self.depth-1:
        x = jax.nn.relu(x)
        x = hk.dropout(hk.next_rng_key(), 0.1, x)
    x = hk.Linear(1, name='head')(x)
    return x

# define pseudo random number generator for NN initialization
rng = jax.random.PRNGKey(42)
# define artificial input
batch = jnp.zeros((10, 1))

tx = optax.sgd(learning_rate=0.01, momentum=0.9)

mlp = make_forward(partial(MLP, width=100, depth=3))
params_mlp = mlp.init(rng, batch)
trainer = Trainer.create(
    apply_fn=mlp.apply,
    params=params_mlp,
    tx = tx,
)

x = jnp.linspace(-3, 3, 100).reshape(-1, 1)

pred = trainer.apply_fn(trainer.params, rng, x)  # expect: JIT502

for i in range(5):
    rng, rng_ = jax.random.split(rng)  # expect: JIT502
    pred_ = trainer.apply_fn(trainer.params, rng_, x)

# define labels
f = lambda x : jnp.sin(x)
y = f(x)

def loss_fn(params, trainer, inputs, outputs, rng):

  pred = trainer.apply_fn(params, rng, inputs)
  loss = jnp.mean(jnp.sum(jnp.square(pred - outputs),axis=-1))
  weight_decay = jnp.sum(jnp.square(params_to_vec(params)))

  return loss + 5e-4 * weight_decay, (loss, weight_decay)

def opt_step(trainer, inputs, outputs, rng):

  grad_fn = jax.grad(loss_fn, has_aux=True)
  grads, (loss, wd) = grad_fn(
      trainer.params,
      trainer,
      inputs,
      outputs,
      rng,
  )

  grad_norm = jnp.sqrt(jnp.sum(jnp.square(params_to_vec(grads))))

  trainer = trainer.apply_gradients(grads=grads)

  log = {
      'loss': loss,
      'wd': wd,
      'grad_norm': grad_norm,
  }

  return log, trainer

opt_step_jitted = jax.jit(opt_step)

NUM_STEP = 1000

pbar = tqdm(range(NUM_STEP))
for step in pbar:

  rng, rng_ = jax.random.split(rng)
  log, trainer = opt_step_jitted(trainer, x, y, rng_)

  pbar.set_postfix(log)

for i in range(5):
    rng, rng_ = jax.random.split(rng)
    pred_mlp = trainer.apply_fn(trainer.params, rng_, x)


if __name__ == "__main__":
    def raises_key_reuse(call):
        try:
            call()
        except jax.errors.KeyReuseError:
            return True
        return False

    with jax.debug_key_reuse(True):
        typed = jax.random.key(42)
        replay_params = mlp.init(typed, batch)
        # observed: line 90 applies with the key that mlp.init consumed: KeyReuseError
        assert raises_key_reuse(lambda: trainer.apply_fn(replay_params, typed, x))  # tolerate: JIT502
        # observed: line 93 splits that consumed key: KeyReuseError
        assert raises_key_reuse(lambda: jax.random.split(typed))  # tolerate: JIT502
    assert float(log['loss']) < 0.5
