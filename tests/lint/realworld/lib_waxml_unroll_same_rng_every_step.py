# source: https://github.com/eserie/wax-ml/blob/b8e6748e7b3730430428ed87dfe9c45d1766c4a6/wax/unroll.py
#   (unroll_transform_with_state before commit 009c07c, "Renew the PRNG key in the unroll
#   operations", which carries the key in the scan state and splits it at every step)
# observed on jax 0.10.2 CPU with haiku 0.0.17: both scan bodies hand the same closed-over
#   `rng` to fun.apply at every step, so every step of the unrolled sequence draws the
#   same random numbers: under jax.jit (lax.scan, line 60) and with the Python static_scan
#   (line 76), the module of wax's own regression test (GenModel, from wax/unroll_test.py
#   of the fixing commit) returns one and the same key word at all five steps.
#   Kept verbatim: unroll_transform_with_state, iter_first_axis and static_scan (the
#   docstrings are shortened). Current spelling: `from jax import tree_flatten,
#   tree_unflatten` is `from jax.tree_util import ...`; the unused `fori_loop` import of
#   the module is left out.
# gap: other
from typing import Any, Callable, NamedTuple, cast

import haiku as hk
import jax
import jax.numpy as jnp
from haiku import TransformedWithState
from jax.tree_util import tree_flatten, tree_map, tree_unflatten
from tqdm.auto import tqdm


class UnrollTransformedWithState(NamedTuple):
    init: Callable
    apply: Callable


def unroll_transform_with_state(
    fun: Callable, skip_first: bool = False, dynamic: bool = True, pbar: bool = False
):
    """Transforms a function using Haiku modules into a pair of pure functions.
        which is unrolled on input arguments.

    Args:
        fun : callable or pair of pure functions (init, apply).
        skip_first : if true, first value of the sequence is not used in apply.
        dynamic : if true,  unroll using jax.lax.scan.
        pbar: if true, activate progress bar. Currently, it only works when dynamic=False.
    """
    if callable(fun):
        fun = hk.transform_with_state(fun)

    fun = cast(TransformedWithState, fun)

    def init(rng: jnp.ndarray, *args, **kwargs):
        xs = (args, kwargs)
        args_0, kwargs_0 = tree_map(lambda x: x[0], xs)
        params, state = fun.init(rng, *args_0, **kwargs_0)
        return params, state

    def dynamic_apply_fn(params: Any, state: Any, rng: jnp.ndarray, *args, **kwargs):
        xs = (args, kwargs)

        if skip_first:
            xs = tree_map(lambda x: x[1:], xs)

        def scan_f(prev_state, inputs):
            args_step, kwargs_step = inputs
            outputs, next_state = fun.apply(  # expect: JIT502
                params, prev_state, rng, *args_step, **kwargs_step
            )
            return next_state, outputs

        final_state, output_sequence = jax.lax.scan(scan_f, init=state, xs=xs)
        return output_sequence, final_state

    def static_apply_fn(params: Any, state: Any, rng: jnp.ndarray, *args, **kwargs):
        xs = (args, kwargs)

        if skip_first:
            xs = tree_map(lambda x: x[1:], xs)

        def scan_f(prev_state, inputs):
            args_step, kwargs_step = inputs
            outputs, next_state = fun.apply(  # expect: JIT502
                params, prev_state, rng, *args_step, **kwargs_step
            )
            return next_state, outputs

        final_state, output_sequence = static_scan(scan_f, init=state, xs=xs, pbar=pbar)
        return output_sequence, final_state

    if dynamic:
        return UnrollTransformedWithState(init, dynamic_apply_fn)
    else:
        return UnrollTransformedWithState(init, static_apply_fn)


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
    # wax/unroll_test.py of the fixing commit
    def __call__(self, i):
        return hk.next_rng_key()[0]


if __name__ == "__main__":
    xs = jnp.arange(5)
    init_rng, dynamic_rng, static_rng = jax.random.split(jax.random.PRNGKey(42), 3)

    dynamic = unroll_transform_with_state(lambda x: GenModel()(x), dynamic=True)
    params, state = dynamic.init(init_rng, xs)
    out, _ = jax.jit(dynamic.apply)(params, state, dynamic_rng, xs)
    # observed: line 60 (lax.scan under jit) draws the same key at all 5 steps
    assert out.shape == (5,) and bool(jnp.all(out == out[0])), out

    static = unroll_transform_with_state(lambda x: GenModel()(x), dynamic=False)
    out_static, _ = static.apply(params, state, static_rng, xs)
    # observed: line 76 (static_scan) draws the same key at all 5 steps
    assert out_static.shape == (5,) and bool(jnp.all(out_static == out_static[0])), out_static
