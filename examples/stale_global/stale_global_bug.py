"""An SGD step that reads its learning rate from a module global (the bug)."""

import jax

LEARNING_RATE = 0.1


def set_learning_rate(value):
    """Change the learning rate used by ``sgd_step`` (or so it seems)."""
    global LEARNING_RATE
    LEARNING_RATE = value


@jax.jit
def sgd_step(params, grads):
    """Return ``params - LEARNING_RATE * grads``, leaf by leaf."""
    # Bug: LEARNING_RATE is read once, while tracing, and frozen into the program.
    return jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads)
