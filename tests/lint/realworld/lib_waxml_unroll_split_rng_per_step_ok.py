# source: https://github.com/eserie/wax-ml/blob/b1b4488dc955d9033601f1c3bc30afb157dd7e59/wax/unroll.py
#   (unroll_transform_with_state after commit b1b4488, "[unroll] split rng in two rng
#   keys": the scan state carries `rng`, each step splits it into the key it carries on
#   and the key it hands to tfunc.apply)
# observed on jax 0.10.2 CPU with haiku 0.0.17: runs clean under jax.jit (lax.scan) and
#   with the Python static_scan; the module of wax's regression test draws a different key
#   at each of the five steps, in both unrolls.
#   Kept verbatim: ScanState, unroll_transform_with_state, iter_first_axis and static_scan
#   (static_scan's docstring is shortened). Current spelling: `from jax import
#   tree_flatten, tree_unflatten` is `from jax.tree_util import ...`; the unused
#   `fori_loop` import of the module is left out.
# gap: other
from functools import partial
from typing import Any, Callable, NamedTuple, Union, cast

import haiku as hk
import jax
import jax.numpy as jnp
from haiku import TransformedWithState
from jax.tree_util import tree_flatten, tree_map, tree_unflatten
from tqdm.auto import tqdm


class UnrollTransformedWithState(NamedTuple):
    init: Callable
    apply: Callable


class ScanState(NamedTuple):
    params: Any
    fun_state: Any
    rng: jnp.ndarray


def unroll_transform_with_state(
    fun: Union[Callable, TransformedWithState, UnrollTransformedWithState],
    skip_first: bool = False,
    dynamic: bool = True,
    pbar: bool = False,
) -> UnrollTransformedWithState:
    """Transforms a function using Haiku modules into a pair of pure functions.
        which is unrolled on input arguments.

    Args:
        fun : callable or pair of pure functions (init, apply).
        skip_first : if true, first value of the sequence is not used in apply.
        dynamic : if true,  unroll using jax.lax.scan.
        pbar: if true, activate progress bar. Currently, it only works when dynamic=False.
    """
    if callable(fun):
        tfunc = hk.transform_with_state(fun)
    else:
        tfunc = cast(TransformedWithState, fun)
    del fun

    def scan_f(scan_state, inputs):
        params, state, rng = scan_state
        args_step, kwargs_step = inputs
        if rng is not None:
            (rng, sub_rng) = jax.random.split(rng)
        else:
            sub_rng = None
        outputs, state = tfunc.apply(params, state, sub_rng, *args_step, **kwargs_step)
        return ScanState(params, state, rng), outputs

    def init(rng: jnp.ndarray, *args, **kwargs):
        xs = (args, kwargs)
        args_0, kwargs_0 = tree_map(lambda x: x[0], xs)
        params, state = tfunc.init(rng, *args_0, **kwargs_0)
        return params, state

    def apply_fn(params: Any, state: Any, rng: jnp.ndarray, *args, **kwargs):
        xs = (args, kwargs)

        if skip_first:
            xs = tree_map(lambda x: x[1:], xs)

        if dynamic:
            scan = jax.lax.scan
        else:
            scan = partial(static_scan, pbar=pbar)
        scan_state, output_sequence = scan(
            scan_f, init=ScanState(params, state, rng), xs=xs
        )
        _, final_state, _ = scan_state
        return output_sequence, final_state

    return UnrollTransformedWithState(init, apply_fn)


def iter_first_axis(xs, pbar=False):
    """Iterate over first axis of a nested data structure."""
    xs_flat, treedef = tree_flatten(xs)
    T = len(xs_flat[0])
    if pbar:
        dates = tqdm(list(range(T)), desc="iter_first_axis (static_unroll)")
    else:
        dates = range(T)
    for t in dates:
        x_flat = map(lambda x: x[t], xs_flat)
        yield tree_unflatten(treedef, x_flat)


def static_scan(scan_f, init, xs=None, length=None, pbar=False):
    """Scan a function over leading array axes while carrying along state.

    Note:  Python implementation of jax.lax.scan
    """
    if xs is None:
        xs = [None] * length
    carry = init
    ys = None
    for x in iter_first_axis(xs, pbar=pbar):
        carry, y = scan_f(carry, x)

        y, treedef = tree_flatten(y)
        if ys is None:
            ys = tuple([] for _ in y)
        for ys_, y_ in zip(ys, y):
            ys_.append(y_)

    ys = map(jnp.stack, ys)
    ys = tree_unflatten(treedef, ys)
    return carry, ys


class GenModel(hk.Module):
    # wax/unroll_test.py of commit 009c07c
    def __call__(self, i):
        return hk.next_rng_key()[0]


if __name__ == "__main__":
    xs = jnp.arange(5)
    init_rng, dynamic_rng, static_rng = jax.random.split(jax.random.PRNGKey(42), 3)

    dynamic = unroll_transform_with_state(lambda x: GenModel()(x), dynamic=True)
    params, state = dynamic.init(init_rng, xs)
    out, _ = jax.jit(dynamic.apply)(params, state, dynamic_rng, xs)
    assert out.shape == (5,) and len(set(out.tolist())) == 5, out

    static = unroll_transform_with_state(lambda x: GenModel()(x), dynamic=False)
    out_static, _ = static.apply(params, state, static_rng, xs)
    assert out_static.shape == (5,) and len(set(out_static.tolist())) == 5, out_static
