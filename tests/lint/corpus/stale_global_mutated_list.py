import jax
import jax.numpy as jnp

class_weights = [1.0, 1.0, 1.0]
MEANS = (0.485, 0.456, 0.406)
_registry = {}


@jax.jit
def weighted_ce(logits, labels):
    w = jnp.asarray(class_weights)[labels]  # expect: JIT201
    return -jnp.mean(w * jax.nn.log_softmax(logits)[jnp.arange(labels.shape[0]), labels])


@jax.jit
def normalize(images):
    return images - jnp.asarray(MEANS)


def rebalance(counts):
    total = sum(counts)
    for i, c in enumerate(counts):
        class_weights[i] = total / (len(counts) * c)


def register(name, fn):
    _registry[name] = fn
