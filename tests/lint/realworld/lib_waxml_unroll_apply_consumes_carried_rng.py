# source: https://github.com/eserie/wax-ml/blob/009c07ced44f35f34c9d691223ac3d154c7d3e61/wax/unroll.py
#   (unroll_transform_with_state after commit 009c07c, "Renew the PRNG key in the unroll
#   operations", and before commit b1b4488, "[unroll] split rng in two rng keys", which
#   splits `(rng, sub_rng)` and hands sub_rng to fun.apply)
# observed on jax 0.10.2 CPU with haiku 0.0.17: each step replaces `rng` by
#   `jax.random.split(rng, 1)[0]`, hands that key to fun.apply (line 59), where haiku
#   splits it for hk.next_rng_key, and carries the same key on to the next step, which
#   splits it again (line 58). With jax_debug_key_reuse and a typed key, running the
#   unroll step by step (the static_scan, and the lax.scan under jax.disable_jit) raises
#   KeyReuseError "Previously-consumed key passed to random_split" at line 58 on the
#   second step. Kept verbatim: ScanState, unroll_transform_with_state, iter_first_axis
#   and static_scan (static_scan's docstring is shortened). Current spelling: `from jax
#   import tree_flatten, tree_unflatten` is `from jax.tree_util import ...`; the unused
#   `fori_loop` import of the module is left out. The unrolled model is a stand-in that
#   draws one uniform number per step.
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


class ScanState(NamedTuple):
    params: Any
    fun_state: Any
    rng: jnp.ndarray


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

    def scan_f(scan_state, inputs):
        params, state, rng = scan_state
        args_step, kwargs_step = inputs
        if rng is not None:
            (rng,) = jax.random.split(rng, 1)  # tolerate: JIT502
        outputs, state = fun.apply(params, state, rng, *args_step, **kwargs_step)  # expect: JIT502
        return ScanState(params, state, rng), outputs

    def init(rng: jnp.ndarray, *args, **kwargs):
        xs = (args, kwargs)
        args_0, kwargs_0 = tree_map(lambda x: x[0], xs)
        params, state = fun.init(rng, *args_0, **kwargs_0)
        return params, state

    def apply_fn(params: Any, state: Any, rng: jnp.ndarray, *args, **kwargs):
        xs = (args, kwargs)

        if skip_first:
            xs = tree_map(lambda x: x[1:], xs)

        if dynamic:
            scan = jax.lax.scan
        else:
            scan = static_scan
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


def noise(x):
    # stand-in model: one uniform draw per step
    return x + jax.random.uniform(hk.next_rng_key(), ())


def raising_line(error):
    # the line of this file where a caught error was raised
    frames = [f for f in __import__("traceback").extract_tb(error.__traceback__)
              if f.filename == __file__]
    return frames[-1].lineno


if __name__ == "__main__":
    xs = jnp.arange(5.0)
    init_rng, static_rng, dynamic_rng = jax.random.split(jax.random.key(0), 3)

    jax.config.update("jax_debug_key_reuse", True)
    static = unroll_transform_with_state(noise, dynamic=False)
    params, state = static.init(init_rng, xs)
    try:
        static.apply(params, state, static_rng, xs)
        raise AssertionError("no key reuse reported")
    except jax.errors.KeyReuseError as e:
        # observed: line 59 hands fun.apply the key that the next step splits again
        assert raising_line(e) == 58, raising_line(e)

    dynamic = unroll_transform_with_state(noise, dynamic=True)
    with jax.disable_jit():
        try:
            dynamic.apply(params, state, dynamic_rng, xs)
            raise AssertionError("no key reuse reported")
        except jax.errors.KeyReuseError as e:
            # observed: line 59 does the same in every step of the lax.scan
            assert raising_line(e) == 58, raising_line(e)
