# source: https://github.com/JaxGaussianProcesses/GPJax/blob/823c931d78f1e9ab6c9dff04307b57c97d6f80bc/gpjax/scan.py
#   (GPJax's `vscan`, the verbose `lax.scan` behind `gpx.fit(..., verbose=True)`, as of
#   https://github.com/JaxGaussianProcesses/GPJax/pull/483, which moved its progress bar from
#   `host_callback.id_tap` to `jax.debug.callback`. Verbatim without the license lines;
#   beartype is not installed, so `beartype.typing` (a re-export of `typing`) is spelled
#   `typing`, and ScalarBool/ScalarInt are copied from gpjax/typing.py. The __main__ block
#   runs the docstring example and a small gradient descent through it, as `fit` does)
# observed on jax 0.10.2 CPU: runs clean: the `.item()`, `is not None` and the f-string in
#   `_update_tqdm` run on the host inside `jax.debug.callback`, on concrete NumPy values;
#   the conditions in the scan body go through `lax.cond`.
# gap: exemption-vs-JAX
from typing import (
    Any,
    Callable,
    Optional,
    Tuple,
    TypeVar,
    Union,
)
import jax
from jax import lax
import jax.numpy as jnp
import jax.tree_util as jtu
from jaxtyping import (
    Array,
    Bool,
    Int,
    Shaped,
)
from tqdm.auto import trange

ScalarBool = Union[bool, Bool[Array, ""]]  # gpjax/typing.py
ScalarInt = Union[int, Int[Array, ""]]  # gpjax/typing.py

Carry = TypeVar("Carry")
X = TypeVar("X")
Y = TypeVar("Y")
def _callback(cond: ScalarBool, func: Callable, *args: Any) -> None:
    r"""Callback a function for a given argument if a condition is true.

    Args:
        cond (bool): The condition.
        func (Callable): The function to call.
        *args (Any): The arguments to pass to the function.
    """
    # lax.cond requires a result, so we use a dummy result.
    _dummy_result = 0

    def _do_callback(_) -> int:
        """Perform the callback."""
        jax.debug.callback(func, *args)
        return _dummy_result

    def _not_callback(_) -> int:
        """Do nothing."""
        return _dummy_result

    _ = lax.cond(cond, _do_callback, _not_callback, operand=None)


def vscan(
    f: Callable[[Carry, X], Tuple[Carry, Y]],
    init: Carry,
    xs: X,
    length: Optional[int] = None,
    reverse: Optional[bool] = False,
    unroll: Optional[int] = 1,
    log_rate: Optional[int] = 10,
    log_value: Optional[bool] = True,
) -> Tuple[
    Carry, Shaped[Array, "..."]
]:  # return type should be Tuple[Carry, Y[Array]]...
    r"""Scan with verbose output.

    This is based on code from this [excellent blog post](https://www.jeremiecoullon.com/2021/01/29/jax_progress_bar/).

    Example:
        >>> import jax.numpy as jnp
        ...
        >>> def f(carry, x):
        ...     return carry + x, carry + x
        >>> init = 0
        >>> xs = jnp.arange(10)
        >>> vscan(f, init, xs)
        (Array(45, dtype=int32), Array([ 0,  1,  3,  6, 10, 15, 21, 28, 36, 45], dtype=int32))

    Args:
        f (Callable[[Carry, X], Tuple[Carry, Y]]): A function that takes in a carry and
            an input and returns a tuple of a new carry and an output.
        init (Carry): The initial carry.
        xs (X): The inputs.
        length (Optional[int]): The length of the inputs. If None, then the length of
            the inputs is inferred.
        reverse (bool): Whether to scan in reverse.
        unroll (int): The number of iterations to unroll.
        log_rate (int): The rate at which to log the progress bar.
        log_value (bool): Whether to log the value of the objective function.

    Returns
    -------
        Tuple[Carry, list[Y]]: A tuple of the final carry and the outputs.
    """
    _xs_flat = jtu.tree_leaves(xs)
    _length = length if length is not None else len(_xs_flat[0])
    _iter_nums = jnp.arange(_length)
    _remainder = _length % log_rate

    _progress_bar = trange(_length)
    _progress_bar.set_description("Compiling...", refresh=True)

    def _set_running(*args: Any) -> None:
        """Set the tqdm progress bar to running."""
        _progress_bar.set_description("Running", refresh=False)

    def _update_tqdm(*args: Any) -> None:
        """Update the tqdm progress bar with the latest objective value."""
        _value, _iter_num = args
        _progress_bar.update(_iter_num.item())

        if log_value and _value is not None:
            _progress_bar.set_postfix({"Value": f"{_value: .2f}"})

    def _close_tqdm(*args: Any) -> None:
        """Close the tqdm progress bar."""
        _progress_bar.close()

    def _body_fun(carry: Carry, iter_num_and_x: Tuple[ScalarInt, X]) -> Tuple[Carry, Y]:
        # Unpack iter_num and x.
        iter_num, x = iter_num_and_x

        # Compute body function.
        carry, y = f(carry, x)

        # Conditions for iteration number.
        _is_first: bool = iter_num == 0
        _is_multiple: bool = (iter_num % log_rate == 0) & (
            iter_num != _length - _remainder
        )
        _is_remainder: bool = iter_num == _length - _remainder
        _is_last: bool = iter_num == _length - 1

        # Update progress bar, if first of log_rate.
        _callback(_is_first, _set_running)

        # Update progress bar, if multiple of log_rate.
        _callback(_is_multiple, _update_tqdm, y, log_rate)

        # Update progress bar, if remainder.
        _callback(_is_remainder, _update_tqdm, y, _remainder)

        # Close progress bar, if last iteration.
        _callback(_is_last, _close_tqdm)

        return carry, y

    carry, ys = jax.lax.scan(
        _body_fun,
        init,
        (_iter_nums, xs),
        length=length,
        reverse=reverse,
        unroll=unroll,
    )

    return carry, ys


if __name__ == "__main__":
    def f(carry, x):
        return carry + x, carry + x

    init = 0
    xs = jnp.arange(10)
    carry, ys = vscan(f, init, xs)
    assert int(carry) == 45
    assert ys.tolist() == [0, 1, 3, 6, 10, 15, 21, 28, 36, 45]

    # gradient descent on a quadratic, logging the objective as `fit` does
    target = jnp.array([1.0, -2.0, 3.0])
    loss = lambda w: jnp.sum((w - target) ** 2)

    def step(w, _):
        value, grad = jax.value_and_grad(loss)(w)
        return w - 0.1 * grad, value

    w, history = vscan(step, jnp.zeros(3), None, length=57, log_rate=10)
    assert history.shape == (57,)
    assert bool(history[-1] < history[0]) and jnp.allclose(w, target, atol=1e-3)
