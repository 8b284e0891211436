# source: https://github.com/Dikshuy/jax-MAML/blob/3f2348d1192592d7e68938cfecde3e64298a5c66/maml_cc.py
# observed on jax 0.10.2 CPU: see the observed lines below; the model, the optimizer and every @jit function are rebuilt inside the training loop, so each step retraces and recompiles, and the never-advanced global key gives the same initial weights every step
# gap: per-call-recompile
# renamed old APIs: jax.experimental.stax/optimizers -> jax.example_libraries.stax/optimizers, tree_multimap -> jax.tree_util.tree_map.
# added: Dataset.__init__ fills self.data with random 28x28 images instead of loading Omniglot from tfds (tensorflow dropped);
# sklearn.utils.shuffle replaced by a small permutation stand-in; the module-level sweep is wrapped in run() with
# the argparse block, the losses/accuracy files and the prints dropped; batch_size 25 -> 2, shots 5 -> 1, Conv out_chan 64 -> 8
# (small sizes); imports of tensorflow, tfds, matplotlib, sklearn, urllib3 and argparse dropped; the __main__ block.
# (onp.mean on the vmapped losses inside maml_loss_batch is left unlabelled: NumPy dispatches to the tracer's .mean and computes correctly.)
# observed: line 118 net_init(rng, ...) with the global key that is never advanced: the initial params are identical in every training step
# observed: line 123 @jit maml_loss_batch: a new function every step, a new jitted object created and traced in each of 2 steps
# observed: line 134 @jit batch_step: a new function every step, compiled again in every step (2 compilations for 2 steps)
# observed: line 142 @jit loss: a new function every step, a new jitted object created and traced in each of 2 steps
# observed: line 148 @jit inner_update: a new function every step, a new jitted object created and traced in each of 2 steps
# observed: line 162 @jit maml_loss: a new function every step, a new jitted object created and traced in each of 2 steps
# observed: line 178 @jit acc_func: a new function every step, compiled again in every step (2 compilations for 2 steps)
import jax
import jax.numpy as jnp
import optax
import numpy as np
from jax import grad
from jax import vmap
from functools import partial
from jax import jit
from jax.example_libraries import stax
from jax.example_libraries.stax import Conv, Dense, MaxPool, Relu, Flatten, Softmax, LogSoftmax, AvgPool, BatchNorm
from jax.example_libraries import optimizers
from jax.tree_util import tree_map as tree_multimap
import random
import numpy as onp
from tqdm import tqdm


def shuffle(*arrays):
    perm = np.random.permutation(len(arrays[0]))
    return tuple(a[perm] for a in arrays)


rng = jax.random.PRNGKey(0)
rng, init_rng = jax.random.split(rng)

meta_step_size = 0.001

batch_size = 2

meta_iters = 2000
eval_iters = 5
inner_iters = 4

eval_interval = 1
train_shots = 20
shots = 1
classes = 5

class Dataset:
    # This class will facilitate the creation of a few-shot dataset
    # from the Omniglot dataset that can be sampled from quickly while also
    # allowing to create new labels at the same time.
    def __init__(self, training):
        self.data = {}
        for label in range(10):
            self.data[str(label)] = [np.random.rand(28, 28, 1).astype(np.float32) for _ in range(3)]
        self.labels = list(self.data.keys())


    def get_mini_dataset(
        self, shots = shots, num_classes = classes
    ):
        temp_labels = np.zeros(shape=(num_classes * shots))
        temp_images = np.zeros(shape=(num_classes * shots, 28, 28, 1))
        test_labels = np.zeros(shape=(num_classes))
        test_images = np.zeros(shape=(num_classes, 28, 28, 1))

        # Get a random subset of labels from the entire label set.
        label_subset = random.choices(self.labels, k=num_classes)
        for class_idx, class_obj in enumerate(label_subset):
            # Use enumerated index value as a temporary label for mini-batch in
            # few shot learning.
            temp_labels[class_idx * shots : (class_idx + 1) * shots] = class_idx
            # label to create the test dataset.
            test_labels[class_idx] = class_idx
            images_to_split = random.choices(
                self.data[label_subset[class_idx]], k=shots + 1
            )
            test_images[class_idx] = images_to_split[-1]
            temp_images[
                class_idx * shots : (class_idx + 1) * shots
            ] = images_to_split[:-1]

        temp_images, temp_labels = shuffle(temp_images.astype(np.float32), temp_labels.astype(np.int32))

        support_set = {'images': temp_images, 'labels': temp_labels}
        query_set = {'images': test_images, 'labels': test_labels}

        return support_set, query_set


def run(learning_rates, num_inner_loops, TRAIN_STEPS):
  for lr in learning_rates:
    for inner_loop in num_inner_loops:
      maml_losses = []
      maml_accuracy = []
      for i in tqdm(range(TRAIN_STEPS)):
        train_dataset = Dataset(training=True)
        test_dataset = Dataset(training=False)

        net_init, net_apply = stax.serial(
            Conv(out_chan = 8, filter_shape = (3,3), strides = [1,1], padding = 'SAME'), BatchNorm(), Relu,
            Conv(out_chan = 8, filter_shape = (3,3), strides = [1,1], padding = 'SAME'), BatchNorm(), Relu,
            Conv(out_chan = 8, filter_shape = (3,3), strides = [1,1], padding = 'SAME'), BatchNorm(), Relu,
            Conv(out_chan = 8, filter_shape = (3,3), strides = [1,1], padding = 'SAME'), BatchNorm(), Relu,
            AvgPool((28, 28)),
            Flatten,
            Dense(classes),
        )

        in_shape = (-1, 28, 28, 1)
        out_shape, net_params = net_init(rng, in_shape)  # expect: JIT502

        opt_init, opt_update, get_params = optimizers.adam(step_size=meta_step_size)
        opt_state = opt_init(net_params)

        @jit  # expect: JIT301
        def maml_loss_batch(params, x1_b, y1_b, x2_b, y2_b):
            '''
            input:
            - params
            - x1_b, y1_b, x2_b, y2_b: batches of sample task
            output:
            - combined loss of the batch
            '''
            return  onp.mean(vmap(partial(maml_loss, params))(x1_b, y1_b, x2_b, y2_b))

        @jit  # expect: JIT301
        def batch_step(i, opt_state, x1_b, y1_b, x2_b, y2_b):
            p = get_params(opt_state)
            g = grad(maml_loss_batch)(p, x1_b, y1_b, x2_b, y2_b)
            l = maml_loss_batch(p, x1_b, y1_b, x2_b, y2_b)
            return opt_update(i, g, opt_state), l


        @jit  # expect: JIT301
        def loss(params, inputs, targets):
            predictions = net_apply(params, inputs)
            loss_ = jnp.mean(optax.softmax_cross_entropy(predictions, jax.nn.one_hot(targets, num_classes=classes)))
            return loss_

        @jit  # expect: JIT301
        def inner_update(params, inputs, outputs, alpha = lr):
            '''
            input:
            - params: model's parameters
            - inputs
            - targets: true label
            output
            - updated parameters
            '''
            grads = grad(loss)(params, inputs, outputs)
            grad_update_fn = lambda g, state: (state - alpha * g)
            return tree_multimap(grad_update_fn, grads, params)

        @jit  # expect: JIT301
        def maml_loss(params, support_img, support_lab, query_img, query_lab, num_inner_loops=inner_loop):
            '''
            input:
            - params: model's parameters
            - x1, y1: task's train set
            - x2, y2: task's test set
            output:
            - Loss after update parameters 1 time on the test set.
            '''
            params_updated = params
            for _ in range(num_inner_loops):
                params_updated = inner_update(params_updated, support_img, support_lab)
            total_loss = loss(params_updated, query_img, query_lab)
            return total_loss

        @jit  # expect: JIT301
        def acc_func(params, inputs, targets):
            predictions = net_apply(params, inputs)
            max_pred = jnp.argmax(predictions, -1)
            accuracy = jnp.mean(max_pred == targets)
            return accuracy

        # get x_support, y_support, x_query, y_query batch
        x_support_batch = []
        y_support_batch = []
        x_query_batch = []
        y_query_batch = []
        for j in range(batch_size):
            support, query = train_dataset.get_mini_dataset()
            x_support, y_support = support['images'], support['labels']
            x_query, y_query = query['images'], query['labels']
            x_support_batch.append(x_support)
            y_support_batch.append(y_support)
            x_query_batch.append(x_query)
            y_query_batch.append(y_query)
        x_support_batch = np.stack(x_support_batch)
        y_support_batch = np.stack(y_support_batch)
        x_query_batch = np.stack(x_query_batch)
        y_query_batch = np.stack(y_query_batch)
        opt_state, l = batch_step(i, opt_state, x_support_batch, y_support_batch, x_query_batch, y_query_batch)
        p = get_params(opt_state)
        acc_val =  onp.mean(vmap(partial(acc_func, p))(x_query_batch, y_query_batch))
        maml_losses.append(l)
        maml_accuracy.append(acc_val)

      net_params = get_params(opt_state)
  return maml_losses, maml_accuracy


if __name__ == "__main__":
    import collections
    import functools
    import logging
    import re

    # spies: count how often each @jit function object is created and traced, and record the initial params
    created, traced, inits = collections.Counter(), collections.Counter(), []
    _real_jit, _real_stax = jit, stax

    def counting_jit(f):
        created[f.__name__] += 1

        @functools.wraps(f)
        def g(*args, **kwargs):
            traced[f.__name__] += 1
            return f(*args, **kwargs)
        return _real_jit(g)

    class _StaxSpy:
        def __getattr__(self, name):
            return getattr(_real_stax, name)

        def serial(self, *layers):
            init, apply = _real_stax.serial(*layers)

            def spy_init(key, shape):
                out = init(key, shape)
                inits.append(out[1])
                return out
            return spy_init, apply

    globals()["jit"] = counting_jit
    globals()["stax"] = _StaxSpy()

    compiles = []

    class _Catch(logging.Handler):
        def emit(self, record):
            m = re.match(r"Compiling jit\((\w+)\)", record.getMessage())
            if m:
                compiles.append(m.group(1))

    handler = _Catch()
    logging.getLogger("jax").addHandler(handler)
    jax.config.update("jax_log_compiles", True)
    run([0.01], [1], 2)
    jax.config.update("jax_log_compiles", False)
    logging.getLogger("jax").removeHandler(handler)

    names = ["maml_loss_batch", "batch_step", "loss", "inner_update", "maml_loss", "acc_func"]
    for name in names:
        print(name, "created", created[name], "traced", traced[name], "compiled", compiles.count(name))
        assert created[name] == 2 and traced[name] >= 2, name
    assert compiles.count("batch_step") == 2
    assert compiles.count("acc_func") == 2
    same = all(bool(jnp.all(a == b)) for a, b in zip(jax.tree_util.tree_leaves(inits[0]),
                                                     jax.tree_util.tree_leaves(inits[1])))
    print("initial params identical in both steps:", same)
    assert same
