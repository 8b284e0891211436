# source: https://github.com/Confirm-Solutions/confirmasaurus/blob/0fad334ffc9ab94445c7787fcfee4b1e758f5efe/research/lei/lewis/jax_wrappers.py
#   (a project's lazy-slicing helpers, the "Useful Lazy-Evaluation Technique" of its
#   docs/jax_patterns.md: "JAX cannot jit a[i:j] where i, j are non-static", but indexing an
#   ArraySlice0 is jit-able)
# observed on jax 0.10.2 CPU: runs clean under jax.jit: ArraySlice0 keeps the traced start and
#   end and only indexes `array[start + index]`, a gather with a traced index, so no slice of
#   traced length is ever built; ArrayReshape0 and reshape_slice0 compute a flat index from a
#   traced multi-index the same way. The jitted results equal plain NumPy indexing. Added:
#   the __main__ block, whose `f` is the docs' jit-able example.
# gap: exemption-vs-JAX
import jax.numpy as jnp


class ArraySlice0:
    def __init__(self, a, start, end):
        self.array = a
        self.start = start
        self.end = end
        self.size = self.end - self.start

    def __getitem__(self, index):
        return self.array[self.start + index]


class ArrayReshape0:
    def __init__(self, a, shape):
        self.array = a
        self.shape = shape
        self.mask = jnp.flip(jnp.cumprod(jnp.flip(self.shape[1:])))

    def __getitem__(self, index):
        i = index[-1] + jnp.sum(self.mask * index[:-1])
        return self.array[i]


def slice0(a, start, end):
    """
    Slices an array along axis 0 from start and end.

    Parameters:
    -----------
    a:          array to slice along axis 0.
    start:      starting position to slice.
    end:        ending position to slice (non-inclusive).
    """
    return ArraySlice0(a, start, end)


def reshape0(a, shape):
    """
    Reshapes a given array along the 0th axis
    with a new shape.

    Parameters:
    -----------
    a:          array to reshape along axis 0.
    shape:      new shape of array along axis 0.
    """
    return ArrayReshape0(a, shape)


def reshape_slice0(a, start, index, shape):
    mask = jnp.flip(jnp.cumprod(jnp.flip(shape[1:])))
    i = index[-1] + jnp.sum(mask * index[:-1])
    return a[start + i]


if __name__ == "__main__":
    import jax
    import numpy as np

    def f(x, y):
        y = ArraySlice0(y, x[0], x[1])
        return y[0]

    def g(a, shape, index):
        return reshape0(a, shape)[index]

    y = jnp.arange(10.0)
    assert float(jax.jit(f)(jnp.array([3, 7]), y)) == 3.0
    a = jnp.arange(24.0)
    shape = jnp.array([2, 3, 4])
    index = jnp.array([1, 2, 3])
    expected = np.arange(24.0).reshape(2, 3, 4)[1, 2, 3]
    assert float(jax.jit(g)(a, shape, index)) == expected
    assert float(jax.jit(reshape_slice0)(a, 0, index, shape)) == expected
