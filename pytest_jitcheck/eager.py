"""``--jitcheck-eager``: cross-check every jitted function a test calls against eager.

``jax.jit`` is replaced by a function that wraps each jitted callable in an
:class:`EagerChecked` proxy. Outside a checked test the proxy only forwards the call.
Inside one, the first call per argument signature also runs the function under
``jax.disable_jit()`` (before the jitted call, so donated buffers are still alive) and
compares the two results; a difference is recorded and fails the test at its end.

The replacement happens when ``jax`` is imported (or at once if it already is), so
``@jax.jit``, ``@partial(jax.jit, ...)`` and ``from jax import jit`` in the code under
test all get it. Whoever replaced ``jax.jit`` before (e.g. for compile accounting) keeps
working: the proxy wraps what that replacement returns.
"""

from __future__ import annotations

import copy
import functools
import importlib.abc
import importlib.machinery
import importlib.util
import inspect
import os
import sys
import types
from collections.abc import Callable, Sequence
from typing import Any

from pytest_jitcheck import _eager_state
from pytest_jitcheck._eager_state import CheckState, begin_test, end_test, paused
from pytest_jitcheck._errors import JitcheckUsageError
from pytest_jitcheck._jaxcompat import has_tracer
from pytest_jitcheck._naming import describe_function, short_path
from pytest_jitcheck.accounting.signature import make_signature
from pytest_jitcheck.accounting.wrappers import user_call
from pytest_jitcheck.compare import (
    compare_trees,
    describe_fn,
    format_failure,
    host_tree,
    static_positions,
)

__all__ = ["CheckState", "EagerChecked", "begin_test", "end_test", "install", "paused", "uninstall"]


class EagerChecked:
    """A jitted callable that, during a checked test, also runs eagerly and compares."""

    def __init__(
        self,
        jitted: Callable[..., Any],
        fun: Callable[..., Any],
        static_argnums: Any = None,
        static_argnames: Any = None,
    ) -> None:
        # __name__, __doc__, __wrapped__ = fun, ... as jax.jit's own object has them.
        functools.update_wrapper(self, fun)
        self._jitcheck_jitted = jitted
        self._jitcheck_fun = fun
        self._jitcheck_static = (static_argnums, static_argnames)
        self._jitcheck_positions: tuple[set[int], set[str]] | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        state = _eager_state.current()
        if state is None or state.busy:
            return self._jitcheck_jitted(*args, **kwargs)
        return _checked_call(self, state, args, kwargs)

    def __getattr__(self, name: str) -> Any:
        # lower, trace, eval_shape, clear_cache and the rest come from the jitted object.
        if name.startswith("_jitcheck_"):
            raise AttributeError(name)
        return getattr(self._jitcheck_jitted, name)

    def __get__(self, obj: object, objtype: type | None = None) -> Any:
        # jax.jit objects bind as methods; so must the proxy.
        return self if obj is None else types.MethodType(self, obj)

    def __repr__(self) -> str:
        return repr(self._jitcheck_jitted)

    # isinstance(proxy, type(jax.jit(f))) holds, as it does for what jax.jit returns:
    # isinstance() consults __class__ when the real type does not match.
    @property
    def __class__(self) -> type:
        return type(self._jitcheck_jitted)

    @__class__.setter
    def __class__(self, value: type) -> None:
        raise TypeError("cannot change the class of a jitted function")

    def static_positions(self) -> tuple[set[int], set[str]]:
        """Return the positions and names of the static arguments, resolved once."""
        if self._jitcheck_positions is None:
            nums, names = self._jitcheck_static
            self._jitcheck_positions = static_positions(
                self._jitcheck_fun, () if nums is None else nums, () if names is None else names
            )
        return self._jitcheck_positions


def _signature(proxy: EagerChecked, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    import jax

    nums, names = proxy.static_positions()
    static = tuple(
        [(i, a) for i, a in enumerate(args) if i in nums]
        + [(k, v) for k, v in sorted(kwargs.items()) if k in names]
    )
    dynamic = (
        [a for i, a in enumerate(args) if i not in nums],
        {k: v for k, v in kwargs.items() if k not in names},
    )
    leaves, treedef = jax.tree_util.tree_flatten(dynamic)
    avals = tuple(
        (tuple(leaf.shape), str(leaf.dtype), bool(getattr(leaf, "weak_type", False)))
        if hasattr(leaf, "shape") and hasattr(leaf, "dtype")
        else type(leaf)
        for leaf in leaves
    )
    key = (treedef, avals, static)
    hash(key)  # unhashable static values: jit will complain, we just don't check
    return key


def _describe_signature(key: Any) -> str:
    _, avals, static = key
    parts = []
    for aval in avals:
        if isinstance(aval, tuple):
            shape, dtype, _ = aval
            parts.append(f"{dtype}[{','.join(str(d) for d in shape)}]")
        else:
            parts.append(aval.__name__)
    parts += [f"{name}={value!r}" for name, value in static]
    return ", ".join(parts)


def _caller(library: str = "") -> str:
    frame = inspect.currentframe()
    # Skip this module's frames (and a jit wrapper library's) to reach the user's call site.
    while frame is not None and (
        frame.f_code.co_filename == __file__
        or (library and frame.f_code.co_filename.startswith(library + os.sep))
    ):
        frame = frame.f_back
    if frame is None:
        return "unknown location"
    return f"{short_path(frame.f_code.co_filename)}:{frame.f_lineno}"


def _checked_call(
    proxy: EagerChecked, state: CheckState, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    import jax

    jitted = proxy._jitcheck_jitted
    disabled: bool = jax.config.jax_disable_jit  # type: ignore[attr-defined]
    if disabled or has_tracer((args, kwargs)):
        # Inside another transform or an eager run: nothing of its own to compare.
        return jitted(*args, **kwargs)
    try:
        key = _signature(proxy, args, kwargs)
    except TypeError:
        return jitted(*args, **kwargs)
    if (id(proxy), key) in state.seen:
        return jitted(*args, **kwargs)
    state.seen.add((id(proxy), key))
    reason = _why_not_eager(jitted, args, kwargs)
    eager_out: Any = _MISSING
    if reason is None:
        state.busy = True
        try:
            eager_args, eager_kwargs = _eager_arguments(proxy, args, kwargs)
            with jax.disable_jit():
                # On the host before the jitted call: a donating call deletes its inputs,
                # which the eager result may share (an argument returned as it is).
                eager_out = host_tree(jitted(*eager_args, **eager_kwargs))
        except Exception as err:  # the jitted call below reports real errors itself
            reason = f"its eager run raised {type(err).__name__}: {str(err).splitlines()[0]}"
        finally:
            state.busy = False
    if reason:
        state.notes.append(f"{describe_fn(proxy)}: not cross-checked, {reason}")
    out = jitted(*args, **kwargs)
    if eager_out is _MISSING or has_tracer(out):
        return out
    try:
        problems = compare_trees(out, eager_out)
    except JitcheckUsageError as err:  # e.g. the eager run returned a string
        detail = str(err).removeprefix("[jitcheck] ")
        state.notes.append(f"{describe_fn(proxy)}: not cross-checked, {detail}")
        return out
    if problems:
        name, where, signature = _describe_call(proxy, args, kwargs, key)
        state.failures.append(
            format_failure(
                f"eager cross-check: jitted {name} and its eager run differ, "
                f"called at {where} with ({signature}):",
                problems,
            )
        )
    return out


def _describe_call(
    proxy: EagerChecked, args: tuple[Any, ...], kwargs: dict[str, Any], key: Any
) -> tuple[str, str, str]:
    """Name the function, call site and signature, through a library's jit wrapper.

    Behind ``equinox.filter_jit`` the jitted function is equinox's own, called from
    equinox's frames with its split of the arguments: name the user's function, the
    user's line and the user's arguments instead.
    """
    wrapped = getattr(proxy._jitcheck_jitted, "__wrapped__", None)
    view = user_call(wrapped, args, kwargs) if wrapped is not None else None
    if view is None:
        return describe_fn(proxy), _caller(), _describe_signature(key)
    try:
        signature = str(
            make_signature(
                view.fun, view.args, view.kwargs, traced=view.traced, closure=view.closure
            )
        )
    except Exception:
        signature = _describe_signature(key)
    library = os.path.dirname(getattr(wrapped, "__globals__", {}).get("__file__", "") or "")
    return describe_function(view.fun).quoted(), _caller(library), signature


_MISSING = object()


def _why_not_eager(jitted: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    """Return why an eager re-run would be unsafe (side effects would happen twice).

    Returns "" when the function cannot even be traced: the jitted call then raises the
    error itself, where the user expects it, and there is nothing to compare.
    """
    # .trace() fills jit's own trace cache, so the jitted call below does not trace
    # again: no extra trace for compile accounting to see.
    try:
        effects = jitted.trace(*args, **kwargs).jaxpr.effects
    except Exception:
        return ""
    if effects:
        kinds = sorted({type(e).__name__ for e in effects})
        return f"it has side effects ({', '.join(kinds)}) that an eager re-run would repeat"
    return None


def _eager_arguments(
    proxy: EagerChecked, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Return arguments for the eager run that it cannot use to overwrite trace-time state.

    Under jit, pytree arguments reach the function rebuilt, never as the caller's
    containers; static ones (``self`` of a jitted method) as they are. Rebuilding the
    former and shallow-copying the latter keeps the eager run's writes (``self.h = x``)
    away from the caller's objects, so what jit's trace stored there (a leaked tracer,
    say) is still there for the leak check.
    """
    import jax

    nums, names = proxy.static_positions()

    def fresh(value: Any, static: bool) -> Any:
        if not static:
            return jax.tree_util.tree_map(lambda leaf: leaf, value)
        try:
            return copy.copy(value)
        except Exception:
            return value

    new_args = tuple(fresh(a, i in nums) for i, a in enumerate(args))
    new_kwargs = {k: fresh(v, k in names) for k, v in kwargs.items()}
    return new_args, new_kwargs


def _make_patched_jit(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def jit(fun: Any = _MISSING, /, **options: Any) -> Any:
        if fun is _MISSING:  # jax.jit(static_argnames=...) used as a decorator factory
            # JAX releases without that form (0.6) raise here, as they do unwrapped.
            original(**options)
            return functools.partial(jit, **options)
        jitted = original(fun, **options)
        if not _patch.enabled:
            return jitted
        return EagerChecked(
            jitted, fun, options.get("static_argnums"), options.get("static_argnames")
        )

    return jit


class _Patch:
    """Replaces ``jax.jit`` once JAX is imported; undoes it without disturbing others."""

    def __init__(self) -> None:
        self.enabled = False
        self.original: Callable[..., Any] | None = None
        self.patched: Callable[..., Any] | None = None
        self.hook: _JaxImportHook | None = None

    def install(self) -> None:
        self.enabled = True
        if "jax" in sys.modules:
            self.apply(sys.modules["jax"])
        elif self.hook is None:
            self.hook = _JaxImportHook(self)
            sys.meta_path.insert(0, self.hook)

    def apply(self, jax_module: types.ModuleType) -> None:
        if self.patched is not None:
            return
        self.original = jax_module.jit
        self.patched = _make_patched_jit(self.original)
        jax_module.jit = self.patched  # type: ignore[attr-defined]

    def uninstall(self) -> None:
        # Proxies created so far stay, and only forward calls while no test is checked.
        self.enabled = False
        if self.hook is not None and self.hook in sys.meta_path:
            sys.meta_path.remove(self.hook)
        self.hook = None
        jax_module = sys.modules.get("jax")
        if jax_module is not None and self.patched is not None:
            if jax_module.jit is self.patched:
                jax_module.jit = self.original  # type: ignore[attr-defined]
            self.patched = None
            self.original = None


_patch = _Patch()


class _JaxImportHook(importlib.abc.MetaPathFinder):
    """Patches ``jax.jit`` right after ``jax/__init__.py`` has run."""

    def __init__(self, patch: _Patch) -> None:
        self.patch = patch

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != "jax":
            return None
        sys.meta_path.remove(self)
        self.patch.hook = None
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        patch = self.patch

        class Loader(importlib.abc.Loader):
            def create_module(self, spec: importlib.machinery.ModuleSpec) -> Any:
                return loader.create_module(spec)

            def exec_module(self, module: types.ModuleType) -> None:
                loader.exec_module(module)
                if patch.enabled:
                    patch.apply(module)

            def __getattr__(self, name: str) -> Any:
                return getattr(loader, name)

        spec.loader = Loader()
        return spec


def install() -> None:
    """Wrap ``jax.jit`` from now on (at once, or as soon as JAX is imported)."""
    _patch.install()


def uninstall() -> None:
    """Restore ``jax.jit`` if nobody replaced it after us; stop wrapping new functions."""
    _patch.uninstall()
