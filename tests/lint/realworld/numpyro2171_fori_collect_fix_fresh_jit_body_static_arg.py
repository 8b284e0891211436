# source: https://github.com/pyro-ppl/numpyro/pull/2171 ("fix repeated recompilation in
#   no-progress-bar fori_collect path"); the code is the merged fix,
#   https://github.com/pyro-ppl/numpyro/blob/e10f6648bf24d2e30fbf1e691d3a174dec91d819/numpyro/util.py
#   (unchanged in numpyro 0.22.0 but for a comment)
# observed on jax 0.10.2 CPU: the fix moves the loop to the module-level `_fori_collect_loop`
#   but hands it the loop body as a static argument, `_body_fn`, which every call wraps anew in
#   `maybe_jit` (jax.jit) around the function `cached_by` returns. Two jit wrappers of one
#   function are neither equal nor equal in hash, so the static argument differs on every call
#   and jit(_fori_collect_loop) is compiled again on every fori_collect call with the same
#   body, shapes and dtypes (jax_log_compiles names it each time), as the closure did before
#   the fix. Kept verbatim: `_fori_collect_loop`, fori_collect up to its `progbar=False`
#   branch, and the helpers it uses from the same file (maybe_jit, cond, fori_loop, identity,
#   _is_under_jax_transform, cached_by). Left out: the two progress-bar branches (tqdm,
#   progress_bar_factory), which this call does not reach; the function ends after the loop
#   with its own `return`. Added: the `__main__` block (the PR's test body `f`, called three
#   times, counting compilations through jax.monitoring).
# gap: per-call-recompile
from collections import OrderedDict
from functools import partial
from typing import Any, Callable

import jax
from jax import jit, lax
import jax.numpy as jnp

_DISABLE_CONTROL_FLOW_PRIM = False


def maybe_jit(fn: Callable, *args, **kwargs) -> Callable:
    if _DISABLE_CONTROL_FLOW_PRIM:
        return fn
    else:
        return jit(fn, *args, **kwargs)


def cond(
    pred: bool, true_operand, true_fun: Callable, false_operand, false_fun: Callable
) -> Any:
    if _DISABLE_CONTROL_FLOW_PRIM:
        if pred:
            return true_fun(true_operand)
        else:
            return false_fun(false_operand)
    else:
        return lax.cond(pred, true_operand, true_fun, false_operand, false_fun)


def fori_loop(lower, upper, body_fun, init_val):
    if _DISABLE_CONTROL_FLOW_PRIM:
        val = init_val
        for i in range(int(lower), int(upper)):
            val = body_fun(i, val)
        return val
    else:
        return lax.fori_loop(lower, upper, body_fun, init_val)


def identity(x, *args, **kwargs):
    return x


def _is_under_jax_transform():
    """Check if we are currently under a JAX transform (e.g. jit, vmap).

    When under a transform, caching functions that close over traced values
    can cause tracer leaks (see https://github.com/pyro-ppl/numpyro/issues/2000).
    """
    from jax._src.core import trace_state_clean

    return not trace_state_clean()


def cached_by(outer_fn, *keys):
    # Restrict cache size to prevent ref cycles.
    max_size = 8
    outer_fn._cache = getattr(outer_fn, "_cache", OrderedDict())

    def _wrapped(fn):
        # Skip caching when inside a JAX tracing context to avoid
        # tracer leaks (https://github.com/pyro-ppl/numpyro/issues/2000).
        if _is_under_jax_transform():
            return fn

        fn_cache = outer_fn._cache
        hashkeys = (*keys, fn.__name__)
        if hashkeys in fn_cache:
            fn = fn_cache[hashkeys]
            # update position
            del fn_cache[hashkeys]
            fn_cache[hashkeys] = fn
        else:
            fn_cache[hashkeys] = fn
        if len(fn_cache) > max_size:
            fn_cache.popitem(last=False)
        return fn

    return _wrapped


def _fori_collect_loop(_body_fn, upper, init_val, collection, start_idx, thinning):
    return fori_loop(
        0,
        upper,
        lambda i, vals: _body_fn(i, *vals),
        (init_val, collection, start_idx, thinning),
    )


def fori_collect(
    lower: int,
    upper: int,
    body_fun: Callable,
    init_val: Any,
    transform: Callable = identity,
    progbar: bool = True,
    progress_rate: None | int = None,
    return_last_val: bool = False,
    collection_size=None,
    thinning=1,
    **progbar_opts,
):
    """
    This looping construct works like :func:`~jax.lax.fori_loop` but with the additional
    effect of collecting values from the loop body. In addition, this allows for
    post-processing of these samples via `transform`, and progress bar updates.
    Note that, `progbar=False` will be faster, especially when collecting a
    lot of samples. Refer to example usage in :func:`~numpyro.infer.mcmc.hmc`.

    :param int lower: the index to start the collective work. In other words,
        we will skip collecting the first `lower` values.
    :param int upper: number of times to run the loop body.
    :param body_fun: a callable that takes a collection of
        `np.ndarray` and returns a collection with the same shape and
        `dtype`.
    :param init_val: initial value to pass as argument to `body_fun`. Can
        be any Python collection type containing `np.ndarray` objects.
    :param transform: a callable to post-process the values returned by `body_fn`.
    :param progbar: whether to post progress bar updates.
    :param progress_rate: number of iterations per progress bar update.
    :param bool return_last_val: If `True`, the last value is also returned.
        This has the same type as `init_val`.
    :param thinning: Positive integer that controls the thinning ratio for retained
        values. Defaults to 1, i.e. no thinning.
    :param int collection_size: Size of the returned collection. If not
        specified, the size will be ``(upper - lower) // thinning``. If the
        size is larger than ``(upper - lower) // thinning``, only the top
        ``(upper - lower) // thinning`` entries will be non-zero.
    :param `**progbar_opts`: optional additional progress bar arguments. A
        `diagnostics_fn` can be supplied which when passed the current value
        from `body_fun` returns a string that is used to update the progress
        bar postfix. Also a `progbar_desc` keyword argument can be supplied
        which is used to label the progress bar.
    :return: collection with the same type as `init_val` with values
        collected along the leading axis of `np.ndarray` objects.
    """
    assert lower <= upper
    assert thinning >= 1
    collection_size = (
        (upper - lower) // thinning if collection_size is None else collection_size
    )
    assert collection_size >= (upper - lower) // thinning
    init_val_transformed = transform(init_val)
    start_idx = lower + (upper - lower) % thinning
    num_chains = progbar_opts.pop("num_chains", 1)

    if progress_rate is None:
        if upper > 20:
            progress_rate = int(upper / 20)
        else:
            progress_rate = 1

    @partial(maybe_jit, donate_argnums=2)
    @cached_by(fori_collect, body_fun, transform)
    def _body_fn(i, val, collection, start_idx, thinning):
        val = body_fun(val)
        idx = (i - start_idx) // thinning

        def update_fn(collect_array, new_val):
            return cond(
                idx >= 0,
                collect_array,
                lambda x: x.at[idx].set(new_val),
                collect_array,
                identity,
            )

        def update_collection(collection, val):
            return jax.tree.map(update_fn, collection, transform(val))

        collection = update_collection(collection, val)
        return val, collection, start_idx, thinning

    def map_fn(x):
        nx = jnp.asarray(x)
        return jnp.zeros((collection_size, *nx.shape), dtype=nx.dtype) * nx[None, ...]

    collection = jax.tree.map(map_fn, init_val_transformed)

    if not progbar:
        last_val, collection, _, _ = maybe_jit(  # expect: JIT301
            _fori_collect_loop,
            static_argnums=(0, 1),
            donate_argnums=3,
        )(_body_fn, upper, init_val, collection, start_idx, thinning)

    return (collection, last_val) if return_last_val else collection


if __name__ == "__main__":
    import numpy as np

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, duration, **kw: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration" else None
    )

    def f(x):
        return x + 1

    result1 = fori_collect(0, 10, f, jnp.array([0.0]), progbar=False)
    before = len(compiles)
    result2 = fori_collect(0, 10, f, jnp.array([5.0]), progbar=False)
    result3 = fori_collect(0, 10, f, jnp.array([7.0]), progbar=False)
    np.testing.assert_allclose(result1, np.arange(1, 11).reshape(-1, 1))
    np.testing.assert_allclose(result2, np.arange(6, 16).reshape(-1, 1))
    np.testing.assert_allclose(result3, np.arange(8, 18).reshape(-1, 1))
    # observed: line 200 compiles jit(_fori_collect_loop) again on every call (its static
    # `_body_fn` is a new jit wrapper each time): the second and third calls, with the same
    # body, shapes and dtypes as the first, compile once each
    assert len(compiles) - before == 2, compiles[before:]
