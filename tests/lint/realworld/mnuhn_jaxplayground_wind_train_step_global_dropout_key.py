# source: https://github.com/mnuhn/jax-playground/blob/dc93559dd3ee58af371e1726d269afa524fedb79/004-Wind-Prediction/train.py
#   (a personal "jax-playground" project: wind prediction with flax models trained by a
#   jitted train_step, with optional batch norm and dropout chosen on the command line)
# observed on jax 0.10.2 CPU (flax 0.12.8): train_step is jitted and closes over the
#   module-level dropout_key split once from root_key, so every training step draws the
#   same dropout mask: two steps from one state on one batch, at different step counts,
#   give the identical loss, while two different dropout keys give different losses. Both
#   dropout branches (batch norm on, line 101; batch norm off, line 122) do it.
# changed/added: argparse replaced by a Namespace holding the options the code reads
#   (dropout 0.2, batch norm on); the npz data by small random X/Y arrays; lstm.LSTM (and
#   the other models) by a small stand-in flax module with Dense, BatchNorm and Dropout;
#   datalib.getbatch by a stand-in batch generator. Trimmed: tensorboard logging,
#   eval_step, the Visualizer drawing and model saving. The training loop keeps its core.
#   Added: the __main__ block.
# gap: other
import argparse

from flax.training import train_state
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax

p = argparse.Namespace(bs=8, lr=0.001, dropout=0.2, batch_norm=True, loss_fac=1.0,
                       epochs=2)

rs = np.random.RandomState(0)
X = rs.normal(size=(32, 12, 3)).astype(np.float32)
Y = rs.normal(size=(32, 4, 2)).astype(np.float32)


def getbatch(X, Y, bs):
  while True:
    for i in range(0, X.shape[0] // bs):
      yield X[i * bs:(i + 1) * bs], Y[i * bs:(i + 1) * bs]


class StandIn(nn.Module):
  dropout: float
  batch_norm: bool

  @nn.compact
  def __call__(self, x, train, debug=False):
    x = x.reshape((x.shape[0], -1))
    x = nn.Dense(16)(x)
    if self.batch_norm:
      x = nn.BatchNorm(use_running_average=not train)(x)
    x = nn.relu(x)
    x = nn.Dropout(rate=self.dropout, deterministic=not train)(x)
    return nn.Dense(8)(x).reshape((x.shape[0], 4, 2))


m = StandIn(dropout=p.dropout, batch_norm=p.batch_norm)

batcher = getbatch(X, Y, p.bs)
x_batch, y_batch = next(batcher)

root_key = jax.random.key(seed=0)
main_key, params_key, dropout_key = jax.random.split(key=root_key, num=3)
variables = m.init(params_key, x_batch, train=False)

params = variables['params']
if p.batch_norm:
  batch_stats = variables['batch_stats']
else:
  batch_stats = None


class TrainState(train_state.TrainState):
  batch_stats: any


state = TrainState.create(apply_fn=m.apply,
                          params=params,
                          batch_stats=batch_stats,
                          tx=optax.adam(learning_rate=p.lr))


def scaled_loss(preds, y, non_first_fac):
  loss = (preds - y)**2
  #loss = jaxopt.loss.huber_loss(target=y, pred=preds, delta=0.2)
  # Downscale weight of non-primary features.
  loss = loss.at[:, :, 1:].set(loss[:, :, 1:] * non_first_fac)
  loss = jnp.mean(jnp.sum(loss, axis=2))
  return loss


@jax.jit
def train_step(state: TrainState, x, y):

  def loss_fn(params):
    if p.batch_norm and p.dropout > 0.0:
      preds, updates = state.apply_fn(
          {
              'params': params,
              'batch_stats': state.batch_stats,
          },
          x,
          train=True,
          rngs={'dropout': dropout_key},  # expect: JIT502
          mutable=['batch_stats'])
      loss = scaled_loss(preds, y, p.loss_fac)
      return loss, (preds, updates)
    elif p.batch_norm:
      preds, updates = state.apply_fn(
          {
              'params': params,
              'batch_stats': state.batch_stats,
          },
          x,
          train=True,
          mutable=['batch_stats'])
      loss = scaled_loss(preds, y, p.loss_fac)
      return loss, (preds, updates)
    elif p.dropout > 0.0:
      preds = state.apply_fn({
          'params': params,
      },
                             x,
                             train=True,
                             rngs={'dropout': dropout_key})  # expect: JIT502
      loss = scaled_loss(preds, y, p.loss_fac)
      return loss, (preds,)
    else:
      preds = state.apply_fn({'params': params}, x, train=True)
      loss = scaled_loss(preds, y, p.loss_fac)
      return loss, (preds,)

  grad_fn = jax.value_and_grad(loss_fn, has_aux=True)
  if p.batch_norm:
    (cur_train_loss, (preds, updates)), grads = grad_fn(state.params)
  else:
    (cur_train_loss, (preds,)), grads = grad_fn(state.params)
  state = state.apply_gradients(grads=grads)
  if p.batch_norm:
    state = state.replace(batch_stats=updates['batch_stats'])
  return state, cur_train_loss, grads


examples = X.shape[0]
iters = int(p.epochs * (examples / p.bs))

for step in range(int(iters)):
  if step > iters:
    break
  (x, y) = next(batcher)
  state, train_loss, grads = train_step(state, x, y)
  train_loss = train_loss**0.5
print(f"train_loss={train_loss:.06f}")


if __name__ == "__main__":
  def losses_of(step_fn, st):
    _, l_a, _ = step_fn(st, x_batch, y_batch)
    _, l_b, _ = step_fn(st.replace(step=st.step + 5), x_batch, y_batch)
    return float(l_a), float(l_b)

  def loss_with_key(st, key):
    variables = {'params': st.params}
    if p.batch_norm:
      variables['batch_stats'] = st.batch_stats
    out = st.apply_fn(variables, x_batch, train=True, rngs={'dropout': key},
                      mutable=['batch_stats'] if p.batch_norm else False)
    preds = out[0] if p.batch_norm else out
    return float(scaled_loss(preds, y_batch, p.loss_fac))

  k1, k2 = jax.random.split(jax.random.key(1))
  # Dropout is active: two different keys give two different losses.
  assert loss_with_key(state, k1) != loss_with_key(state, k2)
  # observed: line 101 (batch norm on) draws the same dropout mask at every step: steps N and
  #   N+5 from one state on one batch give the identical loss
  l_a, l_b = losses_of(train_step, state)
  assert l_a == l_b, (l_a, l_b)

  # The same run with --batch_norm off takes the dropout-only branch.
  p.batch_norm = False
  m2 = StandIn(dropout=p.dropout, batch_norm=False)
  state2 = TrainState.create(apply_fn=m2.apply,
                             params=m2.init(params_key, x_batch, train=False)['params'],
                             batch_stats=None, tx=optax.adam(learning_rate=p.lr))
  assert loss_with_key(state2, k1) != loss_with_key(state2, k2)
  # observed: line 122 (batch norm off) draws the same dropout mask at every step as well
  l_a, l_b = losses_of(jax.jit(train_step.__wrapped__), state2)
  assert l_a == l_b, (l_a, l_b)
  print("OK: one dropout mask for every step, in both dropout branches")
