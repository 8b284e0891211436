# source: https://github.com/sungyubkim/cifar_jax/blob/1072eb31b7e2dba67a80548dbb6246f7d752dc4e/utils/metrics.py
#   (an individual's CIFAR training code in JAX/Flax: the metrics helpers that the training
#   script cifar/train.py calls after training, with train.py's loss_fn and pmapped opt_step
#   and the mixup helper utils/mixup.py it calls, at commit c25cdf9ed990745e00ca666916d886d4bd47ca13)
# observed on jax 0.10.2 CPU: tr_ntk_batch_p's fori_loop body splits the carried key with
#   `_, rng = jax.random.split( rng )`, draws its Rademacher probe from that `rng` and hands
#   the same, already consumed `rng` back as the carry, so every iteration splits the key the
#   previous iteration drew from. Run op by op (jax.disable_jit, so the fori_loop is a Python
#   loop) with `jax_debug_key_reuse` on and a typed key, the second iteration's split raises
#   KeyReuseError "Previously-consumed key passed to random_split" (__main__); the jitted
#   trace alone is not flagged. tr_hess_batch_p splits correctly
#   (`rng, rng_r = jax.random.split(rng)`) and passes the same check; opt_step, mixup and
#   acc_batch run as written.
# gap: other
# Kept: the helpers as written. Added: a small flax model with BatchNorm standing in for the
#   repository's ResNet18, the absl flags the helpers read (defined in cifar/train.py and
#   utils/mixup.py, parsed in __main__ with small values), random data, and the __main__
#   block. Left out: tr_hess_dataset and tr_ntk_dataset (loops over the dataset calling the
#   two batch functions; the latter also reads `n` before it is set), train.py's main
#   (tfds loading, checkpoints) and init_state's model choice. Changed: optax.hvp, removed
#   from optax, is spelled hvp, a local copy of its definition in optax/_src/second_order.py.
from typing import Any
from functools import partial
from absl import flags
import jax
from jax.flatten_util import ravel_pytree
import jax.numpy as jnp
import flax
from flax import linen as nn
from flax.training import train_state
from flax.jax_utils import replicate
import optax

import numpy as np

def hvp(loss, v, params, inputs, targets):
    # optax.second_order.hvp as optax defined it (removed from optax 0.2)
    _, unravel_fn = ravel_pytree(params)
    loss_fn = lambda p: loss(p, inputs, targets)
    return jax.jvp(jax.grad(loss_fn), [params], [unravel_fn(v)])[1]

# --- utils/mixup.py ---
flags.DEFINE_float('beta', 0.0, help='mixup coefficient')

def mixup(rng, batch):
    if FLAGS.beta > 0:
        x, y = batch['x'], batch['y']
        alpha = jax.random.beta(rng, FLAGS.beta, FLAGS.beta, (x.shape[0],))
        alpha = jnp.maximum(alpha, 1. - alpha)
        alpha_x = alpha.reshape(-1,1,1,1)
        alpha_y = alpha.reshape(-1,1)
        x_mix = alpha_x * x + (1. - alpha_x) * x[::-1]
        y_mix = alpha_y * y + (1. - alpha_y) * y[::-1]
        return {'x' : x_mix, 'y' : y_mix}
    else:
        return batch

# --- utils/metrics.py ---
flags.DEFINE_integer('iter_max', 100, 
help='number of iteration for Hutchison method')
FLAGS = flags.FLAGS

@jax.pmap
def acc_batch(state, batch):
    pred = state.apply_fn(
        {'params': state.params, 'batch_stats': state.batch_stats},
        batch['x'], 
        train=False,
        )
    acc = jnp.mean(
        jnp.argmax(pred, axis=-1) == jnp.argmax(batch['y'],axis=-1)
    )
    return acc

def acc_dataset(state, dataset):
    acc_total = 0.
    n_total = 0
    for batch in dataset:
        batch_shape = batch['x'].shape
        n = batch_shape[0] * batch_shape[1]
        acc = acc_batch(state, batch)
        acc_total += np.mean(jax.device_get(acc)) * n
        n_total += n
    acc_total /= n_total
    return acc_total

@partial(jax.pmap, static_broadcasted_argnums=(0,))
def tr_hess_batch_p(loss_fn, state, batch):
    # Hutchinson's method for estimating trace of Hessian
    rng = jax.random.PRNGKey(FLAGS.seed)
    # redefine loss for HVP computation
    loss_fn_ = lambda params, inputs, targets : loss_fn(
        params, 
        state, 
        {'x' : inputs, 'y' : targets},
        False,
        )[0]
    def body_fn(_, carrier):
        res, rng = carrier
        rng, rng_r = jax.random.split(rng)
        v = jax.random.rademacher(
            rng_r, 
            (ravel_pytree(state.params)[0].size,), 
            jnp.float32,
            )
        Hv = hvp(loss_fn_, v, state.params, batch['x'], batch['y'])
        Hv = ravel_pytree(Hv)[0] / batch['x'].shape[0]
        vHv = jnp.vdot(v, Hv)
        res += vHv / FLAGS.iter_max
        return res, rng
    res, rng = jax.lax.fori_loop(0, FLAGS.iter_max, body_fn, (0, rng))
    return res

def tr_hess_batch(loss_fn, state, batch):
    tr_hess = tr_hess_batch_p(loss_fn, state, batch)
    tr_hess = np.mean(jax.device_get(tr_hess))
    return tr_hess

@jax.pmap
def tr_ntk_batch_p(state, batch):
    # Hutchinson's method for estimating trace of NTK
    rng = jax.random.PRNGKey(FLAGS.seed)
    # redefine forward for JVP computation
    def f(params):
        return state.apply_fn(
            {'params' : params, 'batch_stats': state.batch_stats},
            batch['x'], 
            train=False,
        )
    _, f_vjp = jax.vjp(f, state.params)
    def body_fn(_, carrier):
        res, rng = carrier
        _, rng = jax.random.split( rng )  # expect: JIT502
        v = jax.random.rademacher(
        rng, 
        (batch['x'].shape[0], batch['y'].shape[-1]),
        jnp.float32,
        )
        j_p = ravel_pytree(f_vjp(v))[0]
        tr_ntk= jnp.sum(jnp.square(j_p)) / batch['x'].shape[0]
        res += tr_ntk / FLAGS.iter_max
        return res, rng
    a = jax.lax.fori_loop(0, FLAGS.iter_max, body_fn, (0.,rng))
    res, rng = a
    return res

def tr_ntk_batch(state, batch):
    tr_ntk = tr_ntk_batch_p(state, batch)
    tr_ntk = np.mean(jax.device_get(tr_ntk))
    return tr_ntk

# --- cifar/train.py ---
flags.DEFINE_integer('seed', 0, 
help='random number seed')
flags.DEFINE_float('weight_decay', 0.0005, 
help='l2 regularization coeffcient')

class TrainState(train_state.TrainState):
    batch_stats: Any

def loss_fn(params, state, batch, train):
    if train:
        logits, new_net_state = state.apply_fn(
            {'params':params, 'batch_stats': state.batch_stats},
            batch['x'], train=train, mutable=['batch_stats'],
        )
    else:
        logits = state.apply_fn(
            {'params':params, 'batch_stats': state.batch_stats},
            batch['x'], train=train,
        )
        new_net_state = None
    loss = optax.l2_loss(logits, batch['y']).sum(axis=-1).mean()
    wd = 0.5 * jnp.sum(jnp.square(ravel_pytree(params)[0]))
    loss_ = loss + FLAGS.weight_decay * wd
    acc = jnp.mean(
        jnp.argmax(logits, axis=-1) == jnp.argmax(batch['y'],axis=-1)
        )
    return loss_, (loss, wd, acc, new_net_state)

@partial(jax.pmap, axis_name='batch')
def opt_step(rng, state, batch):
    batch = mixup(rng, batch)
    grad_fn = jax.grad(loss_fn, has_aux=True)
    grads, (loss, wd, acc, new_net_state) = grad_fn(
        state.params, 
        state, 
        batch, 
        True,
        )
    # sync and update
    grads = jax.lax.pmean(grads, axis_name='batch')
    batch_stats = jax.lax.pmean(new_net_state['batch_stats'], axis_name='batch')
    new_state = state.apply_gradients(
    grads=grads, batch_stats=batch_stats
    )
    # log norm of gradient
    grad_norm = jnp.sum(jnp.square(ravel_pytree(grads)[0]))
    return loss, wd, grad_norm, acc, new_state


class SmallNet(nn.Module):
    # stand-in for model/resnet.py's ResNet18: a conv, BatchNorm and a dense head
    num_classes: int = 10

    @nn.compact
    def __call__(self, x, train=True):
        x = nn.Conv(4, (3, 3))(x)
        x = nn.BatchNorm(use_running_average=not train)(x)
        x = nn.relu(x).mean(axis=(1, 2))
        return nn.Dense(self.num_classes)(x)


if __name__ == "__main__":
    FLAGS(['cifar_jax', '--iter_max=4', '--beta=0.2'])
    rng = jax.random.PRNGKey(0)
    net = SmallNet()
    x = jax.random.normal(jax.random.PRNGKey(1), (8, 8, 8, 3))
    y = jax.nn.one_hot(jnp.arange(8) % 10, 10)
    variables = net.init(rng, x[:1])
    state = TrainState.create(apply_fn=net.apply, params=variables['params'],
                              tx=optax.sgd(0.1, momentum=0.9, nesterov=True),
                              batch_stats=variables['batch_stats'])
    state = replicate(state)
    batch = {'x': x[None], 'y': y[None]}

    loss, wd, grad_norm, acc, state = opt_step(replicate(jax.random.PRNGKey(2)), state, batch)
    print('loss', loss, 'acc', acc_dataset(state, [batch]))
    print('tr_hess', tr_hess_batch(loss_fn, state, batch), 'tr_ntk', tr_ntk_batch(state, batch))

    # the key-reuse check, with typed keys: run both estimators' bodies op by op
    #   (jax.disable_jit turns the fori_loops into Python loops the checker follows)
    jax.config.update("jax_debug_key_reuse", True)
    _PRNGKey = jax.random.PRNGKey
    jax.random.PRNGKey = lambda seed: jax.random.key(seed)
    one = jax.tree_util.tree_map(lambda a: a[0], state)
    b1 = {'x': x, 'y': y}
    import traceback
    try:
        with jax.disable_jit():
            tr_hess_batch_p.__wrapped__(loss_fn, one, b1)  # splits correctly: no error
            tr_ntk_batch_p.__wrapped__(one, b1)
    except jax.errors.KeyReuseError as e:
        lines = [f.lineno for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__]
        # observed: line 133 splits the carried key that the previous iteration's rademacher drew from
        print('KeyReuseError:', str(e).splitlines()[0], 'at lines', lines)
        assert lines[-1] == 133, lines
    else:
        raise AssertionError("no KeyReuseError")
    finally:
        jax.random.PRNGKey = _PRNGKey
        jax.config.update("jax_debug_key_reuse", False)
