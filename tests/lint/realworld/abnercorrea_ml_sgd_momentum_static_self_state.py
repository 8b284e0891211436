# source: https://github.com/abnercorrea/machine-learning/blob/e9e6464ac347af96b8e6aff206fdfb5d01a6474a/src/abnercorrea/jax/optimizers/momentum.py
#   (a learner's own optimizers in JAX: SGDWithMomentum keeps its running average in
#   self.vd, inside a method jitted with a static self, on top of MiniBatchSGD from
#   gradient_descent.py, which logs from its jitted sgd_update and samples every mini batch
#   with self.prng_key)
# observed on jax 0.10.2 CPU: over three epochs the two logging.debug calls of sgd_update emit
#   once (at the trace); every epoch trains on the same mini batch, because
#   create_sample_batch gets the same self.prng_key each time; calculate_update reads
#   self.vd (None) once, while tracing, so the compiled update never carries momentum: two
#   steps on one batch move the parameters by lr * 0.1 * g each, not lr * 0.19 * g the
#   second time; and after training opt.vd holds leaked tracers. (sgd_update also passes
#   self.epoch through the static self, so it stays 1, but neither class here reads it.)
# gap: stale-state-attributes
# added: MiniBatchSGD from src/abnercorrea/jax/optimizers/gradient_descent.py (commit
#   27c36e1da60dfde8acc09a6f033455890932eec4) and create_sample_batch from
#   src/abnercorrea/jax/util/data_prep.py (commit c9cd85237ff4af0db0af5fb6081f2a74c5440a74),
#   modules of the same repo (MiniBatchSGD's docstring cut to its first paragraph, optimize's
#   docstring left out), and the Optimizer base class from optimizers/optimizer.py;
#   jax.tree_multimap (removed from JAX) spelled jax.tree_util.tree_map; the __main__ block,
#   with a linear-regression loss and NumPy data.
from abc import abstractmethod
from absl import logging
from functools import partial

import jax
import jax.numpy as jnp
from jax import random


def create_sample_batch(x, y, mini_batch_size, prng_key):
    if mini_batch_size is None:
        return x, y

    n = y.size
    sample_indices = random.choice(prng_key, n, shape=(mini_batch_size,), replace=False).tolist()
    x_batch = x[sample_indices]
    y_batch = y[sample_indices]

    return x_batch, y_batch


class Optimizer:
    @abstractmethod
    def optimize(self, params, x, y, loss_f):
        pass


class MiniBatchSGD(Optimizer):
    """
    In both gradient descent (GD) and stochastic gradient descent (SGD), you update a set of parameters in an iterative manner to minimize an error function.

    While in GD, you have to run through ALL the samples in your training set to do a single update for a parameter in a particular iteration,
    in SGD, on the other hand, you use ONLY ONE or SUBSET of training sample from your training set to do the update for a parameter in a particular iteration.
    If you use SUBSET, it is called Minibatch Stochastic gradient Descent.
    """

    def __init__(self, mini_batch_size=256, epochs=10000, learning_rate=1e-8, eps=1e-3, overshoot_decrease_rate=.5, stagnation_batch_size=2, prng_key=None):
        assert mini_batch_size is None or mini_batch_size > 0, 'mini_batch_size can be either greater than 0 or None (for ordinary GD).'
        assert stagnation_batch_size > 1, 'stagnation_batch_size has to be greater than 1.'

        self.mini_batch_size = mini_batch_size
        self.epochs = epochs
        self.epoch = 0
        self.learning_rate = learning_rate
        self.eps = eps
        self.overshoot_decrease_rate = overshoot_decrease_rate
        self.stagnation_batch_size = stagnation_batch_size
        self.prng_key = prng_key or random.PRNGKey(0)
        self.loss_hist = []

    @partial(jax.jit, static_argnames=('self',))
    def calculate_update(self, grads, epoch):
        # Ordinary SGD uses gradient for updates
        return grads

    @partial(jax.jit, static_argnames=('self', 'loss_f',))
    def sgd_update(self, params, x, y, loss_f):
        loss, grads = jax.value_and_grad(loss_f)(params, x, y)

        logging.debug(f'Epoch: {self.epoch}\nLoss: {loss}\nGrads: {grads}\nParams: {params}')  # expect: JIT203

        update = self.calculate_update(grads, self.epoch)

        params = jax.tree_util.tree_map(lambda p, g: p - self.learning_rate * g, params, update)

        logging.debug(f'Params updated: {params}')  # expect: JIT203

        return params, loss, grads

    def optimize(self, params, x, y, loss_f):
        mini_batch_size, epochs, eps, learning_rate, overshoot_decrease_rate, stagnation_batch_size = self.mini_batch_size, self.epochs, self.eps, self.learning_rate, self.overshoot_decrease_rate, self.stagnation_batch_size
        loss_hist = self.loss_hist

        for epoch in range(1, epochs + 1):
            self.epoch = epoch

            # Creates mini batch
            x_batch, y_batch = create_sample_batch(x, y, mini_batch_size, self.prng_key)  # expect: JIT502
            # Applies SGD update
            params, loss, grads = self.sgd_update(params, x_batch, y_batch, loss_f)
            loss_hist.append(loss.item())

            logging.debug(f'Loss hist: {loss_hist}')

            # TODO: vanished gradient? diverged?
            if jnp.all(jnp.isnan(grads[0])).item():
                logging.error(f'Gradient vanished! - epoch: {epoch}, loss: {loss}, prev_loss: {loss_hist[-2] if epoch > 1 else None}')
                break

            # TODO: research and improve learning rate decreasing
            if epoch > 1:
                overshoot = loss_hist[-1] > loss_hist[-2]
                if overshoot:
                    learning_rate *= overshoot_decrease_rate
                    logging.info(f'Overshoot! Lowering learning rate to {learning_rate} - Epoch: {epoch} - Loss: {loss} - Prev loss: {loss_hist[-2]}')

            # TODO: research and improve convergence checking
            if epoch >= stagnation_batch_size:
                loss_delta = jnp.abs(loss_hist[-1] - loss_hist[-stagnation_batch_size])
                logging.debug(f'Loss delta: {loss_delta}')
                if loss_delta <= eps:
                    logging.info(f'SGD converged in {epoch} epochs! - Initial loss: {loss_hist[0]}, final loss: {loss}')
                    break

        return params


class SGDWithMomentum(MiniBatchSGD):
    """
    Uses an exponentially weighted average of the gradients to update parameters.
    """
    def __init__(self, momentum=0.9, **kwargs):
        super().__init__(**kwargs)

        self.momentum = momentum
        # Exponentially weighted average of the gradients
        self.vd = None

    @partial(jax.jit, static_argnames=('self',))
    def calculate_update(self, grads, epoch):
        vd = self.vd or jax.tree_util.tree_map(lambda g: jnp.zeros_like(g), grads)  # expect: JIT201
        # exponentially weighted average of the gradients
        self.vd = jax.tree_util.tree_map(lambda vd, g: self.momentum * vd + (1 - self.momentum) * g, vd, grads)  # expect: JIT202
        return self.vd


def mse(params, x, y):
    w, b = params
    return jnp.mean((x @ w + b - y) ** 2)


if __name__ == "__main__":
    import logging as std_logging

    records = []
    handler = std_logging.Handler()
    handler.emit = records.append
    logging.get_absl_logger().addHandler(handler)
    logging.set_verbosity(logging.DEBUG)

    import numpy as np

    x = np.random.default_rng(1).normal(size=(32, 3)).astype(np.float32)
    y = x @ np.array([1.0, -2.0, 0.5], dtype=np.float32) + 0.3
    params = (jnp.zeros(3), jnp.zeros(()))

    batches = []
    _create_sample_batch = create_sample_batch

    def create_sample_batch(*args):
        batch = _create_sample_batch(*args)
        batches.append(batch)
        return batch

    opt = SGDWithMomentum(momentum=0.9, mini_batch_size=8, epochs=3, learning_rate=0.1, eps=-1.0)
    opt.optimize(params, x, y, mse)

    messages = [r.getMessage() for r in records]
    # observed: line 80 and line 86 log once over three epochs: only the trace runs them
    assert sum(m.startswith("Epoch:") for m in messages) == 1
    assert sum(m.startswith("Params updated:") for m in messages) == 1
    # observed: line 98 samples the same mini batch in every epoch from the unsplit self.prng_key
    assert len(batches) == 3
    assert all(bool((batches[0][0] == b[0]).all()) for b in batches[1:])
    # observed: line 143 leaves a tracer of calculate_update's trace in opt.vd
    assert all(isinstance(leaf, jax.core.Tracer) for leaf in jax.tree_util.tree_leaves(opt.vd))
    # observed: line 141 read self.vd (None) at the trace: two steps on one batch move the
    #   parameters by lr * 0.1 * g both times; momentum would make the second 0.19
    xb, yb = batches[0]
    p1, _, g0 = opt.sgd_update(params, xb, yb, mse)
    p2, _, g1 = opt.sgd_update(p1, xb, yb, mse)
    assert jnp.allclose(p1[0] - params[0], -0.1 * 0.1 * g0[0], atol=1e-6)
    assert jnp.allclose(p2[0] - p1[0], -0.1 * 0.1 * g1[0], atol=1e-6)
    assert not jnp.allclose(p2[0] - p1[0], -0.1 * (0.9 * 0.1 * g0[0] + 0.1 * g1[0]), atol=1e-6)
