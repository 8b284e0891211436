# source: https://github.com/codymlewis/ymir/blob/c6d6e1e773f738cffac1cd33719bb67df33519bd/ymirlib/ymirlib/__init__.py
#   (ymirlib, the tree utilities of ymir, a JAX federated-learning framework; the free-rider
#   and bad-mouther adversaries call tree_uniform(params, low=-10e-3, high=10e-3) and
#   tree_add_normal(grad, loc=0.0, scale=10e-4); the next commit, 72993e4 "Fixed ymir lib
#   non-static args bug", made low/high and loc/scale static)
# observed on jax 0.10.2 CPU: under @jax.jit low/high and loc/scale are tracers, and
#   np.random.uniform / np.random.normal convert them with NumPy: both functions raise
#   TracerArrayConversionError on their lambda lines. (Were they static, NumPy would draw
#   once, at the trace, and every call would return the same "random" tree.)
# gap: other
# added: jax.tree_map and jax.tree_multimap (removed from JAX) spelled
#   jax.tree_util.tree_map; the __main__ block, with a small parameter pytree, calling the two
#   functions as the adversary controllers of ymir/scout/adversaries/__init__.py do.
import jax
import numpy as np

"""
General utility library for ymir
"""


@jax.jit
def tree_uniform(tree, low=0.0, high=1.0):
    """Create an equivalently shaped tree with random number elements in the range [low, high)"""
    return jax.tree_util.tree_map(lambda x: np.random.uniform(low=low, high=high, size=x.shape), tree)  # expect: JIT402  # tolerate: JIT204


@jax.jit
def tree_add_normal(tree, loc=0.0, scale=1.0):
    """Add normally distributed noise to each element of the tree, (mu=loc, sigma=scale)"""
    return jax.tree_util.tree_map(lambda x: x + np.random.normal(loc=loc, scale=scale, size=x.shape), tree)  # expect: JIT402  # tolerate: JIT204


@jax.jit
def tree_mul(tree, scale):
    """Multiply the elements of a pytree by the value of scale"""
    return jax.tree_util.tree_map(lambda x: x * scale, tree)


@jax.jit
def tree_add(*trees):
    """Element-wise add any number of pytrees"""
    return jax.tree_util.tree_map(lambda *xs: sum(xs), *trees)


if __name__ == "__main__":
    import traceback
    import jax.numpy as jnp

    params = {"w": jnp.ones((3, 2)), "b": jnp.zeros(2)}
    prev_params = {"w": jnp.full((3, 2), 0.5), "b": jnp.zeros(2)}

    # the honest path of the free-rider controller runs clean
    delta = tree_add(params, tree_mul(prev_params, -1))
    assert jnp.allclose(delta["w"], 0.5)

    def failing_line(thunk):
        try:
            thunk()
        except jax.errors.TracerArrayConversionError as e:
            frames = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__]
            return frames[-1].lineno
        raise AssertionError("no error")

    # observed: line 25 raises TracerArrayConversionError: np.random.uniform gets traced low/high
    assert failing_line(lambda: tree_uniform(params, low=-10e-3, high=10e-3)) == 25
    # observed: line 31 raises TracerArrayConversionError: np.random.normal gets traced loc/scale
    assert failing_line(lambda: tree_add_normal(delta, loc=0.0, scale=10e-4)) == 31
