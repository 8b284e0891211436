# source: https://github.com/instadeepai/flashbax/commit/66192004f2f4085c4bbfbcc1c47254b879f73d62
#   (flashbax/utils.py before "fix: use lax.cond for jax control flow.": get_tree_shape_prefix
#   and get_timestep_count as written; add_dim_to_args is left out. Added: flashbax's
#   TrajectoryBufferState (flashbax/buffers/trajectory_buffer.py at the parent commit) and
#   the __main__ block.)
# observed on jax 0.10.2 CPU: get_timestep_count works on a concrete buffer state, but under
#   jax.jit the conditional expression asks for the truth value of the traced
#   buffer_state.is_full (TracerBoolConversionError), and when is_full is a Python False
#   (the ternary then picks the traced current_index) int(b_size * t_size) raises
#   ConcretizationTypeError. The fix replaces the ternary with jax.lax.cond and returns
#   b_size * t_size without int().
# gap: types
from typing import Generic, TypeVar

import chex
import jax
import jax.numpy as jnp
from chex import dataclass
from jax import Array

Experience = TypeVar("Experience", bound=chex.ArrayTree)


@dataclass(frozen=True)
class TrajectoryBufferState(Generic[Experience]):
    """State of the  trajectory replay buffer."""

    experience: Experience
    current_index: Array
    is_full: Array


def get_tree_shape_prefix(tree: chex.ArrayTree, n_axes: int = 1) -> chex.Shape:
    """Get the shape of the leading axes (up to n_axes) of a pytree. This assumes all
    leaves have a common leading axes size (e.g. a common batch size)."""
    flat_tree, tree_def = jax.tree_util.tree_flatten(tree)
    leaf = flat_tree[0]
    leading_axis_shape = leaf.shape[0:n_axes]
    chex.assert_tree_shape_prefix(tree, leading_axis_shape)
    return leading_axis_shape


def get_timestep_count(buffer_state: chex.ArrayTree) -> int:
    """Utility to compute the total number of timesteps currently in the buffer state.

    Args:
        buffer_state (BufferStateTypes): the buffer state to compute the total timesteps for.

    Returns:
        int: the total number of timesteps in the buffer state.
    """
    # Ensure the buffer state is a valid buffer state.
    assert hasattr(buffer_state, "experience")
    assert hasattr(buffer_state, "current_index")
    assert hasattr(buffer_state, "is_full")

    b_size, t_size_max = get_tree_shape_prefix(buffer_state.experience, 2)
    t_size = t_size_max if buffer_state.is_full else buffer_state.current_index  # expect: JIT101
    return int(b_size * t_size)  # expect: JIT401


if __name__ == "__main__":
    import traceback

    def error_line(fn, *args):
        try:
            fn(*args)
        except (jax.errors.TracerBoolConversionError, jax.errors.ConcretizationTypeError) as e:
            frames = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__]
            return type(e).__name__, frames[-1].lineno
        raise AssertionError("no error")

    state = TrajectoryBufferState(
        experience={"obs": jnp.zeros((4, 10, 3)), "reward": jnp.zeros((4, 10))},
        current_index=jnp.array(6),
        is_full=jnp.array(False),
    )
    assert get_timestep_count(state) == 24

    # observed: line 58 raises TracerBoolConversionError under jit (is_full is traced)
    assert error_line(jax.jit(get_timestep_count), state) == ("TracerBoolConversionError", 58)

    def count_not_full(current_index):
        return get_timestep_count(
            TrajectoryBufferState(
                experience=state.experience, current_index=current_index, is_full=False
            )
        )

    # observed: line 59 raises ConcretizationTypeError on int() of the traced count
    assert error_line(jax.jit(count_not_full), jnp.array(6)) == ("ConcretizationTypeError", 59)
