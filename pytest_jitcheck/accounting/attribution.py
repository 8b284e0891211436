"""Turn what JAX's stack shows at a compile event into a :class:`CompileEvent`.

Which function (through decorators, to the user's definition line), called where, with
which signature, and why it missed the cache (from the session's :class:`History`).
"""

from __future__ import annotations

import os
import time
from types import FrameType
from typing import Any

from pytest_jitcheck import _jaxcompat
from pytest_jitcheck._naming import code_of, describe_function
from pytest_jitcheck.accounting.events import CompileEvent
from pytest_jitcheck.accounting.history import current as current_history
from pytest_jitcheck.accounting.signature import Signature, make_signature
from pytest_jitcheck.accounting.wrappers import user_call


def event_from(
    ctx: _jaxcompat.TraceContext | None, fun_name: str, explain: bool = True
) -> CompileEvent:
    """Build the event for the callable JAX is tracing or compiling now."""
    start = time.perf_counter()
    if ctx is None or ctx.fun is None:
        event = CompileEvent(fun_name or "<unknown>", "<unknown>", Signature(), start=start)
        event.eager = _jaxcompat.dispatching_primitive()
        return event
    info = describe_function(_user_function(ctx))
    past = current_history()
    past.names[info.location] = info.name
    try:
        view = user_call(ctx.fun, ctx.args, ctx.kwargs)
        if view is not None:  # a library wrapper: the user's arguments, by their names
            sig = make_signature(
                view.fun, view.args, view.kwargs, traced=view.traced, closure=view.closure
            )
        else:
            sig = make_signature(
                ctx.fun, ctx.args, ctx.kwargs, ctx.static_argnums, ctx.static_argnames
            )
    except Exception:  # a signature is a diagnostic; never break the user's call
        sig = Signature()
    caller = _outside_wrappers(ctx.caller, ctx.fun, info.target)
    call_site = (
        f"{caller.f_code.co_filename}:{caller.f_lineno}" if caller is not None else "<unknown>"
    )
    name = f"{ctx.wrapper}({info.name})" if ctx.wrapper else info.name
    event = CompileEvent(
        name, info.location, sig, call_site, eager=ctx.eager, function=ctx.fun, start=start
    )
    if explain and not ctx.eager:
        event.first, event.changes = past.explain(ctx.fun, info.code, sig)
    return event


def _top_package(obj: Any) -> str:
    module = getattr(obj, "__module__", None) or ""
    return module.split(".")[0] if isinstance(module, str) else ""


def _user_function(ctx: _jaxcompat.TraceContext) -> Any:
    """Return the user's function when the traced one is a library's jit wrapper.

    Wrappers such as ``equinox.filter_jit`` trace a function of their own that takes the
    name of the user's function and carries it among the static arguments, where
    ``__wrapped__`` does not lead. Any such callable of the same name is the user's.
    """
    fun = ctx.fun
    name = getattr(fun, "__name__", None)
    if not name or _top_package(fun) in ("", "__main__"):
        return fun
    statics = [a for i, a in enumerate(ctx.args) if i in set(ctx.static_argnums)]
    statics += [v for k, v in ctx.kwargs.items() if k in set(ctx.static_argnames)]
    stack, seen = list(statics), 0
    while stack and seen < 256:
        item = stack.pop()
        seen += 1
        same_name = callable(item) and getattr(item, "__name__", None) == name
        if same_name and item is not fun and _top_package(item) != _top_package(fun):
            return item
        if isinstance(item, tuple | list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    return fun


def _package_root(obj: Any) -> str:
    """Return the directory of the top-level package that defines ``obj``'s code."""
    code = code_of(obj)
    if code is None:
        return ""
    folder = os.path.dirname(os.path.abspath(str(code.co_filename)))
    if not os.path.exists(os.path.join(folder, "__init__.py")):
        return ""
    while os.path.exists(os.path.join(os.path.dirname(folder), "__init__.py")):
        folder = os.path.dirname(folder)
    return folder + os.sep


def _outside_wrappers(frame: FrameType | None, fun: Any, target: Any) -> FrameType | None:
    """Skip the frames of the library whose wrapper jitted ``target`` (the user's call line)."""
    roots: set[str] = set()
    layer = fun
    for _ in range(16):
        if layer is None or layer is target:
            break
        roots.add(_package_root(layer))
        layer = getattr(layer, "__wrapped__", None)
    roots -= {"", _package_root(target)}
    while frame is not None and frame.f_code.co_filename.startswith(tuple(roots)):
        frame = frame.f_back
    return frame


def name_from_jaxpr(event: CompileEvent, origin: tuple[str, str, bool] | None) -> None:
    """Name an event from the debug info of the jaxpr being compiled, if visible."""
    if origin is None:
        return
    name, location, inside_jax = origin
    event.name, event.location = current_history().names.get(location, name), location
    event.eager = event.eager or inside_jax


def mark_derived(event: CompileEvent) -> None:
    """Record that a transformation derived this computation (not a cache miss)."""
    event.first, event.changes = False, ()
    event.transform = _jaxcompat.enclosing_transform() or "a JAX transformation"
