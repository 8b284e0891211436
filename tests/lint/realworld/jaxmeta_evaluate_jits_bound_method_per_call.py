# source: https://github.com/tristandeleu/jax-meta-learning/blob/33f160c33a6dc3ffe522708b48738a814df73c4a/jax_meta/metalearners/base.py
#   (jax-meta-learning, a JAX library of meta-learning algorithms (MAML, ANIL, iMAML, ...):
#   MetaLearner.evaluate before commit 3a0a584 "Jit batch_outer_loss only once for
#   evaluation"; the MAML subclass from jax_meta/metalearners/maml.py)
# observed on jax 0.10.2 CPU: every call of evaluate wraps the bound method
#   self.batch_outer_loss in a new jax.jit, so each evaluation (run every few hundred
#   meta-training steps) traces and compiles batch_outer_loss again, although the meta-learner,
#   the shapes and the static args are the same; within one evaluate call the batches reuse
#   the compilation. train_step, jitted once with a static self, compiles once.
# gap: per-call-recompile
# added: cross_entropy and accuracy from jax_meta/utils/losses.py and metrics.py; a linear
#   classifier with the init/apply-with-state interface of the haiku transform_with_state
#   models the library is used with (haiku is not installed), a small stand-in for the
#   library's finite few-shot dataset (size, reset() yielding batches of train/test tasks),
#   and the __main__ block, which meta-trains a few steps and evaluates twice; the imports of
#   base.py, maml.py and the losses merged into one `from jax import ...` line.
import jax.numpy as jnp
import optax

from abc import ABC, abstractmethod
from jax import jit, grad, tree_util, vmap, random, lax, nn
from functools import partial
from collections import namedtuple


def nll_loss(log_likelihoods, targets):
    losses = jnp.take_along_axis(log_likelihoods, targets[..., None], axis=-1)
    return -jnp.squeeze(losses, axis=-1)


def cross_entropy(logits, targets):
    log_likelihoods = nn.log_softmax(logits, axis=-1)
    return nll_loss(log_likelihoods, targets)


def accuracy(outputs, targets):
    return jnp.mean(jnp.argmax(outputs, axis=-1) == targets)


MetaLearnerState = namedtuple('MetaLearnerState', ['model', 'optimizer', 'key'])


class MetaLearner(ABC):
    def __init__(self):
        self._optimizer = None

    @abstractmethod
    def loss(self, params, state, inputs, targets, args):
        pass

    @abstractmethod
    def adapt(self, params, state, inputs, targets, args):
        pass

    @abstractmethod
    def meta_init(self, key, *args, **kwargs):
        pass

    def step(self, params, state, train, test, *args):
        return self.train_step(params, state, train, test, args)

    def outer_loss(self, params, state, train, test, args):
        adapted_params, inner_logs = self.adapt(
            params, state, train.inputs, train.targets, args
        )
        outer_loss, (state, outer_logs) = self.loss(
            adapted_params, state, test.inputs, test.targets, args
        )
        return (outer_loss, state, inner_logs, outer_logs)

    @partial(jit, static_argnums=(0, 5))
    def train_step(self, params, state, train, test, args):
        outer_loss_grad = grad(self.batch_outer_loss, has_aux=True)
        grads, (model_state, logs) = outer_loss_grad(
            params, state.model, train, test, args)

        # Apply gradient descent
        updates, opt_state = self.optimizer.update(grads, state.optimizer, params)
        params = optax.apply_updates(params, updates)

        # TODO: The key will eventually be split and used in various methods
        state = MetaLearnerState(model=model_state, optimizer=opt_state, key=state.key)

        return params, state, logs

    @property
    def optimizer(self):
        if self._optimizer is None:
            raise ValueError(f'`{self:s}` contains no optimizer. To train the'
                             'model, you must call the `init` function.')
        return self._optimizer

    def batch_outer_loss(self, params, state, train, test, args):
        outer_loss = vmap(self.outer_loss, in_axes=(None, None, 0, 0, None))
        outer_losses, states, inner_logs, outer_logs = outer_loss(
            params, state, train, test, args
        )
        state = tree_util.tree_map(partial(jnp.mean, axis=0), states)

        logs = {
            **{f'inner/{k}': v for (k, v) in inner_logs.items()},
            **{f'outer/{k}': v for (k, v) in outer_logs.items()}
        }
        return jnp.mean(outer_losses), (state, logs)

    def init(self, key, optimizer, *args, **kwargs):
        self._optimizer = optimizer
        key, subkey = random.split(key)
        params, model_state = self.meta_init(subkey, *args, **kwargs)
        state = MetaLearnerState(
            model=model_state,
            optimizer=self.optimizer.init(params),
            key=key
        )
        return params, state

    def evaluate(self, params, state, dataset, *args):
        if dataset.size is None:
            raise RuntimeError('The dataset for evaluation must be finite, '
                'got an infinite dataset. You must set the `size` argument '
                'when creating the dataset.')

        outer_loss = jit(self.batch_outer_loss, static_argnums=(4,))  # expect: JIT301
        results = None
        for i, batch in enumerate(dataset.reset()):
            _, (_, logs) = outer_loss(params, state.model, batch['train'], batch['test'], args)
            logs = tree_util.tree_map(lambda arr: jnp.mean(arr, axis=0), logs)

            if results is None:
                results = logs
            else:
                online_mean = lambda mean, arr: mean + ((arr - mean) / (i + 1))
                results = tree_util.tree_map(online_mean, results, logs)

        return results


class MAML(MetaLearner):
    def __init__(self, model, num_steps=5, alpha=0.1):
        super().__init__()
        self.model = model
        self.num_steps = num_steps
        self.alpha = alpha

    def loss(self, params, state, inputs, targets, args):
        logits, state = self.model.apply(params, state, inputs, *args)
        loss = jnp.mean(cross_entropy(logits, targets))
        logs = {
            'loss': loss,
            'accuracy': accuracy(logits, targets),
        }
        return loss, (state, logs)

    def adapt(self, init_params, state, inputs, targets, args):
        loss_grad = grad(self.loss, has_aux=True)
        gradient_descent = lambda p, g: p - self.alpha * g  # Gradient descent
        def _gradient_update(params, _):
            # Do not update the state during adaptation
            grads, (_, logs) = loss_grad(params, state, inputs, targets, args)
            params = tree_util.tree_map(gradient_descent, params, grads)
            return params, logs

        return lax.scan(
            _gradient_update,
            init_params,
            None,
            length=self.num_steps
        )

    def meta_init(self, key, *args, **kwargs):
        return self.model.init(key, *args, **kwargs)


class LinearClassifier:
    """Stand-in for a haiku transform_with_state model: init -> (params, state), apply -> (out, state)."""
    def __init__(self, ways):
        self.ways = ways

    def init(self, key, inputs, is_training):
        w = random.normal(key, (inputs.shape[-1], self.ways)) * 0.1
        return {'w': w, 'b': jnp.zeros(self.ways)}, {'count': jnp.zeros(())}

    def apply(self, params, state, inputs, is_training):
        return inputs @ params['w'] + params['b'], state


Task = namedtuple('Task', ['inputs', 'targets'])


class FewShotDataset:
    """Stand-in for the library's finite dataset of batches of few-shot tasks."""
    def __init__(self, seed, batch_size, shots, ways, features, size):
        self.seed, self.batch_size, self.shots, self.ways = seed, batch_size, shots, ways
        self.features, self.size = features, size

    def _task(self, key, shots):
        centers = random.normal(key, (self.ways, self.features))
        targets = jnp.tile(jnp.arange(self.ways), (self.batch_size, shots))
        noise = random.normal(random.fold_in(key, 1), targets.shape + (self.features,))
        return Task(inputs=centers[targets] + 0.5 * noise, targets=targets)

    def reset(self):
        key = random.PRNGKey(self.seed)
        for i in range(self.size):
            k = random.fold_in(key, i)
            yield {'train': self._task(k, self.shots), 'test': self._task(k, 2 * self.shots)}

    @property
    def dummy_input(self):
        return jnp.zeros((1, self.features))


if __name__ == "__main__":
    import jax

    compiled = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, secs, fun_name=None, **kw: compiled.append(fun_name)
        if name == "/jax/core/compile/backend_compile_duration" else None
    )

    metalearner = MAML(LinearClassifier(ways=3), num_steps=3, alpha=0.5)
    params, state = metalearner.init(random.PRNGKey(0), optax.adam(1e-2),
                                     jnp.zeros((1, 4)), True)
    train_set = FewShotDataset(seed=1, batch_size=4, shots=2, ways=3, features=4, size=6)
    eval_set = FewShotDataset(seed=2, batch_size=4, shots=2, ways=3, features=4, size=3)

    evaluations = []
    for epoch in range(2):
        for batch in train_set.reset():
            params, state, logs = metalearner.step(params, state, batch['train'], batch['test'], True)
        before = compiled.count('jit(batch_outer_loss)')
        results = metalearner.evaluate(params, state, eval_set, True)
        evaluations.append(compiled.count('jit(batch_outer_loss)') - before)

    assert compiled.count('jit(train_step)') == 1
    # observed: line 123 jits the bound method anew in each evaluate call: batch_outer_loss
    #   compiles once per evaluation (once for its three batches), twice in all
    assert evaluations == [1, 1], evaluations
    assert 0.0 <= float(results['outer/accuracy']) <= 1.0
