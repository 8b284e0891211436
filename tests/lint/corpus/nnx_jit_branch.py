import jax.numpy as jnp
from flax import nnx


@nnx.jit
def clipped_update(model, grads, max_norm):
    leaves = [jnp.sum(g**2) for g in jax_leaves(grads)]
    norm = jnp.sqrt(sum(leaves))
    if norm > max_norm:  # expect: JIT101
        grads = scale_tree(grads, max_norm / norm)
    return grads


def jax_leaves(tree):
    import jax

    return jax.tree_util.tree_leaves(tree)


def scale_tree(tree, s):
    import jax

    return jax.tree_util.tree_map(lambda g: g * s, tree)
