import jax
import jax.numpy as jnp


@jax.jit
def count_classes(labels):
    classes = jnp.unique(labels)  # expect: JIT403
    return classes.shape[0]


@jax.jit
def count_classes_ok(labels):
    classes = jnp.unique(labels, size=10, fill_value=-1)
    return jnp.sum(classes >= 0)


@jax.jit
def boxes_above(scores, boxes, thresh):
    keep = jnp.argwhere(scores > thresh)  # expect: JIT403
    return boxes[keep[:, 0]]


@jax.jit
def select_cols(x):
    cols = jnp.array([0, 2, 3])
    return x[:, cols]
