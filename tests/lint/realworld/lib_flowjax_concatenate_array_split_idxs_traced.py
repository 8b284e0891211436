# source: https://github.com/danielward27/flowjax/blob/ec632ccceb3e51b5f6b22c921b3d33a7a7b4b0c0/flowjax/bijections/concatenate.py
#   (flowjax, normalizing flows on equinox used for variational inference and simulation-based
#   inference: Concatenate keeps the split points as an array field, `jnp.cumsum(jnp.array(...))`;
#   "bugfix for concatenate bijection to allow jax tracing" (0cc31e4) turned it into a tuple
#   of 0-d arrays, and "Provide default transform and inverse methods" (7311b37) into the
#   tuple of Python ints that works under every transform)
# observed on jax 0.10.2 CPU: under eqx.filter_jit, as flowjax's training step calls a flow,
#   the array field `split_idxs` is a leaf of the module and is traced, and
#   jnp.array_split(x, self.split_idxs, ...) raises ConcretizationTypeError in each of the four
#   methods (lines 100, 108, 119, 127); the __main__ block calls each method under filter_jit and checks the
#   line of the error.
# gap: types
# added: the imports of equinox and jax; stand-ins for flowjax's AbstractBijection and Affine
#   (loc/scale) and merge_cond_shapes from flowjax/utils.py; the `__main__` block (an Affine
#   of shape (2,) and one of shape (3,)); the module's Stack class is left out.
"""Module contains bijections formed by "stacking/concatenating" other bijections."""

from collections.abc import Sequence

import equinox as eqx
import jax
import jax.numpy as jnp
from jax import Array


class AbstractBijection(eqx.Module):  # stand-in for flowjax.bijections.bijection.AbstractBijection
    shape: eqx.AbstractVar[tuple[int, ...]]
    cond_shape: eqx.AbstractVar[tuple[int, ...] | None]

    def transform(self, x, condition=None):
        return self.transform_and_log_det(x, condition)[0]

    def inverse(self, y, condition=None):
        return self.inverse_and_log_det(y, condition)[0]


def merge_cond_shapes(shapes):  # flowjax/utils.py
    """Merges shapes (tuples of ints or None) used in bijections and distributions.

    Returns None if all shapes are None, otherwise checks none None shapes match, and
    returns the shape.
    """
    if len(shapes) == 0:
        raise ValueError("No shapes have been provided.")
    if all(s is None for s in shapes):
        return None
    shapes = [s for s in shapes if s is not None]
    if all(s == shapes[0] for s in shapes):
        return shapes[0]
    raise ValueError("The shapes do not match.")


class Affine(AbstractBijection):  # stand-in for flowjax.bijections.Affine
    loc: Array
    scale: Array
    shape: tuple[int, ...]
    cond_shape: None = None

    def __init__(self, loc, scale):
        self.loc, self.scale = jnp.asarray(loc, float), jnp.asarray(scale, float)
        self.shape = self.loc.shape

    def transform_and_log_det(self, x, condition=None):
        return x * self.scale + self.loc, jnp.sum(jnp.log(jnp.abs(self.scale)))

    def inverse_and_log_det(self, y, condition=None):
        return (y - self.loc) / self.scale, -jnp.sum(jnp.log(jnp.abs(self.scale)))


class Concatenate(AbstractBijection):
    """Concatenate bijections along an existing axis, similar to ``jnp.concatenate``.

    See also :class:`Stack`.

    Args:
        bijections: Bijections, to stack into a single bijection.
        axis: Axis along which to stack. Defaults to 0.
    """

    shape: tuple[int, ...]
    cond_shape: tuple[int, ...] | None
    split_idxs: Array
    bijections: Sequence[AbstractBijection]
    axis: int

    def __init__(self, bijections: Sequence[AbstractBijection], axis: int = 0):
        self.bijections = bijections
        self.axis = axis

        shapes = [b.shape for b in bijections]
        self._argcheck_shapes(shapes)
        axis = range(len(shapes[0]))[axis]  # Avoids issues when axis==-1
        self.shape = (
            shapes[0][:axis] + (sum(s[axis] for s in shapes),) + shapes[0][axis + 1 :]
        )
        self.split_idxs = jnp.cumsum(jnp.array([s[axis] for s in shapes[:-1]]))
        self.cond_shape = merge_cond_shapes([b.cond_shape for b in bijections])

    def transform(self, x, condition=None):
        x_parts = jnp.array_split(x, self.split_idxs, axis=self.axis)  # expect: JIT404
        y_parts = [
            b.transform(x_part, condition)
            for b, x_part in zip(self.bijections, x_parts, strict=True)
        ]
        return jnp.concatenate(y_parts, axis=self.axis)

    def transform_and_log_det(self, x, condition=None):
        x_parts = jnp.array_split(x, self.split_idxs, axis=self.axis)  # expect: JIT404

        ys_log_dets = [
            b.transform_and_log_det(x, condition)
            for b, x in zip(self.bijections, x_parts, strict=True)
        ]

        y_parts, log_dets = zip(*ys_log_dets, strict=True)
        return jnp.concatenate(y_parts, self.axis), sum(log_dets)

    def inverse(self, y, condition=None):
        y_parts = jnp.array_split(y, self.split_idxs, axis=self.axis)  # expect: JIT404
        x_parts = [
            b.inverse(y_part, condition)
            for b, y_part in zip(self.bijections, y_parts, strict=True)
        ]
        return jnp.concatenate(x_parts, axis=self.axis)

    def inverse_and_log_det(self, y, condition=None):
        y_parts = jnp.array_split(y, self.split_idxs, axis=self.axis)  # expect: JIT404

        xs_log_dets = [
            b.inverse_and_log_det(y, condition)
            for b, y in zip(self.bijections, y_parts, strict=True)
        ]

        x_parts, log_dets = zip(*xs_log_dets, strict=True)
        return jnp.concatenate(x_parts, self.axis), sum(log_dets)

    def _argcheck_shapes(self, shapes: Sequence[tuple[int, ...]]):
        axis = range(len(shapes[0]))[self.axis]  # Avoid negative index
        expected_matching = shapes[0][:axis] + shapes[0][axis + 1 :]
        for i, shape in enumerate(shapes):
            if shape[:axis] + shape[axis + 1 :] != expected_matching:
                raise ValueError(
                    f"Expected bijection shapes to match except along axis {axis}, but "
                    f"index 0 had shape {shapes[0]}, and index {i} had shape {shape}.",
                )


if __name__ == "__main__":
    import traceback

    def line_of_error(fn, *args):
        try:
            fn(*args)
        except jax.errors.ConcretizationTypeError as e:
            frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__]
            return frames[-1].lineno
        return None

    flow = Concatenate([Affine(jnp.zeros(2), 2 * jnp.ones(2)), Affine(jnp.ones(3), 0.5 * jnp.ones(3))])
    x = jnp.arange(5.0)
    # eager calls work: split_idxs is concrete
    y = flow.transform(x)
    assert jnp.allclose(flow.inverse(y), x)
    # observed: line 100 raises ConcretizationTypeError under filter_jit (transform)
    assert line_of_error(eqx.filter_jit(lambda f, x: f.transform(x)), flow, x) == 100
    # observed: line 108 raises it too (transform_and_log_det)
    assert line_of_error(eqx.filter_jit(lambda f, x: f.transform_and_log_det(x)), flow, x) == 108
    # observed: line 119 raises it too (inverse)
    assert line_of_error(eqx.filter_jit(lambda f, y: f.inverse(y)), flow, y) == 119
    # observed: line 127 raises it too (inverse_and_log_det)
    assert line_of_error(eqx.filter_jit(lambda f, y: f.inverse_and_log_det(y)), flow, y) == 127
