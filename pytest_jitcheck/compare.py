"""Compare pytrees of arrays leaf by leaf; ``assert_jit_matches_eager``.

The comparison is shared by the jit-vs-eager helper, the ``--jitcheck-eager``
instrumentation and the cross-device helper: each failure names the leaf by its key
path, its shape and dtype, how many elements differ, the worst element with both
values, the largest absolute and relative errors and the tolerance that was used.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pytest_jitcheck._eager_state import paused
from pytest_jitcheck._errors import PREFIX, JitcheckUsageError
from pytest_jitcheck._naming import aval_text, describe_function, without_addresses

# Default (rtol, atol) per dtype name. jit and eager may legitimately differ by a few
# ulps (XLA fuses, reorders reductions, uses FMAs and its own transcendental
# approximations), so these are looser than bit-exactness but tight enough that a stale
# value or a rewritten formula shows up. docs/tolerances.md explains the choice.
_DEFAULT_TOLERANCES: dict[str, tuple[float, float]] = {
    "bfloat16": (1.6e-2, 1.6e-2),
    "float16": (2e-3, 2e-3),
    "float32": (1e-5, 1e-5),
    "float64": (1e-10, 1e-10),
    "complex64": (1e-5, 1e-5),
    "complex128": (1e-10, 1e-10),
}
_FLOAT8_TOLERANCE = (2.5e-1, 2.5e-1)


@dataclass(frozen=True)
class Tolerance:
    """Relative and absolute tolerance: ``|a - b| <= atol + rtol * |b|``."""

    rtol: float
    atol: float

    def __str__(self) -> str:
        return f"rtol={self.rtol:g}, atol={self.atol:g}"


def check_tolerance(name: str, value: object) -> float | None:
    """Return ``value`` as a float, or raise a usage error if it is not a tolerance."""
    __tracebackhide__ = True
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | np.floating | np.integer):
        raise JitcheckUsageError(
            f"{name} must be a non-negative number or None, got {type(value).__name__} {value!r}"
        )
    result = float(value)
    if math.isnan(result) or result < 0:
        raise JitcheckUsageError(f"{name} must be a non-negative number, got {value!r}")
    return result


def default_tolerance(dtype: np.dtype[Any]) -> Tolerance:
    """Return the default tolerance for comparing arrays of ``dtype``."""
    name = dtype.name
    if name in _DEFAULT_TOLERANCES:
        return Tolerance(*_DEFAULT_TOLERANCES[name])
    if name.startswith("float8") or name.startswith("float4") or name.startswith("float6"):
        return Tolerance(*_FLOAT8_TOLERANCE)
    return Tolerance(0.0, 0.0)


def tolerance_for(dtype: np.dtype[Any], rtol: float | None, atol: float | None) -> Tolerance:
    """Return the user's tolerance where given, the dtype's default elsewhere."""
    default = default_tolerance(dtype)
    return Tolerance(default.rtol if rtol is None else rtol, default.atol if atol is None else atol)


def describe_array(x: np.ndarray[Any, Any]) -> str:
    """Return ``f32[3,4]`` for an array."""
    return aval_text(x.dtype, x.shape)


def describe_fn(fn: Callable[..., Any]) -> str:
    """Name a function for a message: ```name` (file:line)`` where that is known."""
    return describe_function(fn).quoted()


def is_jitted(fn: object) -> bool:
    """Tell whether ``fn`` is already a jitted callable (``jax.jit`` or a wrapper of it)."""
    return all(callable(getattr(fn, attr, None)) for attr in ("lower", "trace", "eval_shape"))


_ARRAY_SCALARS = (bool, int, float, complex, np.generic, np.ndarray)


def is_array_like(x: object) -> bool:
    """Tell whether ``x`` is a leaf that can be compared as an array."""
    import jax

    return isinstance(x, (*_ARRAY_SCALARS, jax.Array))


def _host(x: object) -> np.ndarray[Any, Any]:
    import jax

    if isinstance(x, jax.Array):
        if jax.numpy.issubdtype(x.dtype, jax.dtypes.extended):
            # Typed PRNG keys (and other extended dtypes) have no host form of their
            # own: compare the key data, which is what makes two keys the same.
            return np.asarray(jax.device_get(jax.random.key_data(x)))
        return np.asarray(jax.device_get(x))
    # Python numbers and NumPy values leave an eager run as they are, but a jitted run
    # turns them into JAX's canonical dtypes (float32 unless x64 is on): compare alike.
    host = np.asarray(x)
    if host.dtype.names is not None:  # float0
        return host
    return host.astype(jax.dtypes.canonicalize_dtype(host.dtype))


def host_tree(tree: Any) -> Any:
    """Copy the array leaves of ``tree`` to host NumPy arrays (other leaves stay)."""
    import jax

    def copy(leaf: Any) -> Any:
        try:
            return _host(leaf) if is_array_like(leaf) else leaf
        except Exception:  # not convertible: the comparison will say so
            return leaf

    return jax.tree_util.tree_map(copy, tree)


def _flatten(tree: Any, root: str) -> tuple[list[tuple[str, Any]], Any]:
    import jax

    leaves, treedef = jax.tree_util.tree_flatten_with_path(tree)
    return [(root + jax.tree_util.keystr(path), leaf) for path, leaf in leaves], treedef


def _check_leaves(leaves: list[tuple[str, Any]], label: str) -> None:
    __tracebackhide__ = True
    for path, leaf in leaves:
        if not is_array_like(leaf):
            raise JitcheckUsageError(
                f"the {label} result has a leaf {path} of type {type(leaf).__name__}, which "
                "cannot be compared as an array; return arrays or numbers"
            )


def compare_trees(
    a: Any,
    b: Any,
    *,
    labels: tuple[str, str] = ("jit", "eager"),
    rtol: float | None = None,
    atol: float | None = None,
    root: str = "output",
) -> list[str]:
    """Compare two pytrees of arrays; return one description per difference.

    ``b`` is the reference: relative errors are taken against it. Structure differences
    come back as a single entry; leaves that are not arrays or numbers are a usage error.
    """
    __tracebackhide__ = True
    leaves_a, tree_a = _flatten(a, root)
    leaves_b, tree_b = _flatten(b, root)
    _check_leaves(leaves_a, labels[0])
    _check_leaves(leaves_b, labels[1])
    # Treedefs hold node metadata that may compare by identity (a module's static
    # fields, a fresh function): the structure is the same when it prints the same,
    # object addresses aside.
    if tree_a != tree_b and without_addresses(str(tree_a)) != without_addresses(str(tree_b)):
        return [_structure_difference(leaves_a, tree_a, leaves_b, tree_b, labels)]
    problems = []
    for (path, x), (_, y) in zip(leaves_a, leaves_b, strict=True):
        problem = compare_leaf(path, _host(x), _host(y), labels=labels, rtol=rtol, atol=atol)
        if problem is not None:
            problems.append(problem)
    return problems


def _structure_difference(
    leaves_a: list[tuple[str, Any]],
    tree_a: Any,
    leaves_b: list[tuple[str, Any]],
    tree_b: Any,
    labels: tuple[str, str],
) -> str:
    paths_a = [p for p, _ in leaves_a]
    paths_b = [p for p, _ in leaves_b]
    only_a = [p for p in paths_a if p not in set(paths_b)]
    only_b = [p for p in paths_b if p not in set(paths_a)]
    lines = ["pytree structure differs:"]
    if only_a:
        lines.append(f"    leaves only in the {labels[0]} result: {', '.join(only_a)}")
    if only_b:
        lines.append(f"    leaves only in the {labels[1]} result: {', '.join(only_b)}")
    if not only_a and not only_b:
        text_a, text_b = str(tree_a), str(tree_b)
        at = next(
            (i for i, (x, y) in enumerate(zip(text_a, text_b, strict=False)) if x != y),
            min(len(text_a), len(text_b)),
        )
        start = max(at - 30, 0)
        lines.append(f"    same leaf paths; the node types differ at character {at}:")
        lines.append(f"    {labels[0]}: ...{text_a[start : at + 40]}...")
        lines.append(f"    {labels[1]}: ...{text_b[start : at + 40]}...")
    return "\n".join(lines)


def compare_leaf(
    path: str,
    x: np.ndarray[Any, Any],
    y: np.ndarray[Any, Any],
    *,
    labels: tuple[str, str] = ("jit", "eager"),
    rtol: float | None = None,
    atol: float | None = None,
) -> str | None:
    """Compare two host arrays; return a description of the difference, or None."""
    la, lb = labels
    if x.shape != y.shape or x.dtype != y.dtype:
        return f"{path}: {la} is {describe_array(x)}, {lb} is {describe_array(y)}"
    if x.dtype.names is not None:  # float0 (gradients of integer inputs): no values
        return None
    tol = tolerance_for(x.dtype, rtol, atol)
    if x.size == 0:
        return None
    inexact = x.dtype.kind in "fc" or x.dtype.name.startswith(("bfloat", "float"))
    if not inexact and tol.rtol == 0 and tol.atol == 0:
        bad = x != y
        if not bad.any():
            return None
        return _format_exact(path, x, y, bad, labels)
    wide = np.complex128 if x.dtype.kind == "c" else np.float64
    a = x.astype(wide)
    b = y.astype(wide)
    finite = np.isfinite(a) & np.isfinite(b)
    with np.errstate(invalid="ignore", over="ignore"):
        abs_err = np.where(finite, np.abs(a - b), 0.0)
        close = abs_err <= tol.atol + tol.rtol * np.abs(np.where(finite, b, 0.0))
    both_nan = np.isnan(a) & np.isnan(b)
    same_inf = np.isinf(a) & np.isinf(b) & (a == b)
    bad = ~((finite & close) | both_nan | same_inf)
    if not bad.any():
        return None
    return _format_inexact(path, x, y, a, b, bad, finite, abs_err, tol, labels)


def _index(flat: int, shape: tuple[int, ...]) -> str:
    if not shape:
        return "[]"
    return "[" + ", ".join(str(int(i)) for i in np.unravel_index(flat, shape)) + "]"


def _value(x: np.ndarray[Any, Any], flat: int) -> str:
    # str() of a NumPy scalar is the shortest repr at the array's own precision.
    return str(x.reshape(-1)[flat])


def _header(path: str, x: np.ndarray[Any, Any], count: int, tol: Tolerance | None) -> str:
    within = "exact comparison" if tol is None else f"tolerance {tol}"
    return f"{path}: {describe_array(x)}: {count} of {x.size} elements differ ({within})"


def _format_exact(
    path: str,
    x: np.ndarray[Any, Any],
    y: np.ndarray[Any, Any],
    bad: np.ndarray[Any, Any],
    labels: tuple[str, str],
) -> str:
    first = int(np.flatnonzero(bad.reshape(-1))[0])
    return (
        f"{_header(path, x, int(bad.sum()), None)}\n"
        f"    first at {_index(first, x.shape)}: {labels[0]}={_value(x, first)} "
        f"{labels[1]}={_value(y, first)}"
    )


def _format_inexact(
    path: str,
    x: np.ndarray[Any, Any],
    y: np.ndarray[Any, Any],
    a: np.ndarray[Any, Any],
    b: np.ndarray[Any, Any],
    bad: np.ndarray[Any, Any],
    finite: np.ndarray[Any, Any],
    abs_err: np.ndarray[Any, Any],
    tol: Tolerance,
    labels: tuple[str, str],
) -> str:
    la, lb = labels
    lines = [_header(path, x, int(bad.sum()), tol)]
    flat_bad = bad.reshape(-1)
    finite_bad = flat_bad & finite.reshape(-1)
    errs = abs_err.reshape(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(finite.reshape(-1), errs / np.abs(b.reshape(-1)), 0.0)
    rel = np.where(np.isnan(rel), np.inf, rel)  # 0/0 cannot happen on a bad element
    if finite_bad.any():
        worst = int(np.argmax(np.where(finite_bad, errs, -1.0)))
        lines.append(
            f"    worst at {_index(worst, x.shape)}: {la}={_value(x, worst)} "
            f"{lb}={_value(y, worst)}"
        )
        max_rel = float(np.max(np.where(finite_bad, rel, 0.0)))
        max_abs = float(errs[finite_bad].max())
        lines.append(f"    max abs error {max_abs:.6g}, max rel error {max_rel:.6g}")
    lines.extend(_nonfinite_lines(x, y, a, b, flat_bad, labels))
    return "\n".join(lines)


def _nonfinite_lines(
    x: np.ndarray[Any, Any],
    y: np.ndarray[Any, Any],
    a: np.ndarray[Any, Any],
    b: np.ndarray[Any, Any],
    flat_bad: np.ndarray[Any, Any],
    labels: tuple[str, str],
) -> list[str]:
    lines = []
    fa = a.reshape(-1)
    fb = b.reshape(-1)
    for kind, test in (("nan", np.isnan), ("inf", np.isinf)):
        for side, this, other in ((0, fa, fb), (1, fb, fa)):
            mask = flat_bad & test(this) & ~test(other)
            if not mask.any():
                continue
            first = int(np.flatnonzero(mask)[0])
            count = int(mask.sum())
            lines.append(
                f"    {kind} only in the {labels[side]} result at {count} element"
                f"{'s' if count != 1 else ''}; first at {_index(first, x.shape)}: "
                f"{labels[0]}={_value(x, first)} {labels[1]}={_value(y, first)}"
            )
    return lines


def format_failure(headline: str, problems: Sequence[str]) -> str:
    """Join a headline and per-leaf problems into one ``[jitcheck]`` message."""
    body = "\n".join("  " + p for p in problems)
    return f"{PREFIX} {headline}\n{body}"


def check_callable(fn: object) -> None:
    """Raise a usage error unless ``fn`` is callable."""
    __tracebackhide__ = True
    if not callable(fn):
        raise JitcheckUsageError(f"expected a function to check, got {type(fn).__name__}")


def static_positions(
    fn: Callable[..., Any],
    static_argnums: int | Sequence[int],
    static_argnames: str | Sequence[str],
) -> tuple[set[int], set[str]]:
    """Return the static positional indices and keyword names, each resolved via the other."""
    nums = {static_argnums} if isinstance(static_argnums, int) else set(static_argnums)
    names = {static_argnames} if isinstance(static_argnames, str) else set(static_argnames)
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return nums, names
    positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    nums |= {i for i, n in enumerate(positional) if n in names}
    names |= {positional[i] for i in nums if 0 <= i < len(positional)}
    return nums, names


def _check_inputs(
    args: tuple[Any, ...], kwargs: dict[str, Any], nums: set[int], names: set[str]
) -> None:
    __tracebackhide__ = True
    import jax

    for where, value, static, hint in [
        *((f"argument {i}", v, i in nums, "static_argnums") for i, v in enumerate(args)),
        *((f"argument {k!r}", v, k in names, "static_argnames") for k, v in kwargs.items()),
    ]:
        if static:
            continue
        for path, leaf in jax.tree_util.tree_flatten_with_path(value)[0]:
            if not is_array_like(leaf):
                raise JitcheckUsageError(
                    f"{where}{jax.tree_util.keystr(path)} is a {type(leaf).__name__}, which "
                    f"jax.jit cannot trace; mark it static with {hint}= or pass an array"
                )


def assert_jit_matches_eager(
    fn: Callable[..., Any],
    *args: Any,
    rtol: float | None = None,
    atol: float | None = None,
    static_argnums: int | Sequence[int] = (),
    static_argnames: str | Sequence[str] = (),
    **kwargs: Any,
) -> Any:
    """Assert that ``fn(*args, **kwargs)`` gives the same result jitted and eagerly.

    A plain function is jitted for the comparison; an already jitted ``fn`` is called as
    it is, so its compilation cache (and any value it captured when it was traced) is
    what gets checked. Returns the jitted result.
    """
    __tracebackhide__ = True
    import jax

    check_callable(fn)
    rtol = check_tolerance("rtol", rtol)
    atol = check_tolerance("atol", atol)
    if is_jitted(fn):
        if static_argnums != () or static_argnames != ():
            raise JitcheckUsageError(
                "static_argnums/static_argnames only apply to a function that is not jitted "
                "yet; this one is already jitted and has its own"
            )
        jitted = fn
    else:
        nums, names = static_positions(fn, static_argnums, static_argnames)
        _check_inputs(args, kwargs, nums, names)
        jitted = jax.jit(fn, static_argnums=static_argnums, static_argnames=static_argnames)
    # Eager first: a jitted call may donate (and so delete) its input buffers.
    with paused(), jax.disable_jit():
        eager_out = jax.block_until_ready(fn(*args, **kwargs))  # type: ignore[no-untyped-call]
    with paused():
        jit_out = jax.block_until_ready(jitted(*args, **kwargs))  # type: ignore[no-untyped-call]
    problems = compare_trees(jit_out, eager_out, rtol=rtol, atol=atol)
    if problems:
        raise AssertionError(
            format_failure(
                f"jit and eager results of {describe_fn(fn)} differ:",
                problems,
            )
        )
    return jit_out
