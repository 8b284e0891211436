import jax
import jax.numpy as jnp


@jax.jit
def promote(tree):
    tree = jax.tree_util.tree_map(lambda x: x if x.ndim else x[None], tree)
    tree = jax.tree_util.tree_map(lambda x: None if x is None else x * 2, tree, is_leaf=lambda x: x is None)
    return tree


@jax.jit
def clip_tree(tree, c):
    return jax.tree_util.tree_map(lambda x: x if x < c else c, tree)  # expect: JIT101
