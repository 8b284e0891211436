"""Turn what JAX's stack shows at a compile event into a :class:`CompileEvent`.

Which function (through decorators, to the user's definition line), called where, with
which signature, and why it missed the cache (from the session's :class:`History`).
"""

from __future__ import annotations

import time

from pytest_jitcheck import _jaxcompat
from pytest_jitcheck._naming import describe_function
from pytest_jitcheck.accounting.history import current as current_history
from pytest_jitcheck.accounting.events import CompileEvent
from pytest_jitcheck.accounting.signature import Signature, make_signature


def event_from(
    ctx: _jaxcompat.TraceContext | None, fun_name: str, explain: bool = True
) -> CompileEvent:
    """Build the event for the callable JAX is tracing or compiling now."""
    start = time.perf_counter()
    if ctx is None or ctx.fun is None:
        event = CompileEvent(fun_name or "<unknown>", "<unknown>", Signature(), start=start)
        event.eager = _jaxcompat.dispatching_primitive()
        return event
    info = describe_function(ctx.fun)
    past = current_history()
    past.names[info.location] = info.name
    try:
        sig = make_signature(ctx.fun, ctx.args, ctx.kwargs, ctx.static_argnums, ctx.static_argnames)
    except Exception:  # a signature is a diagnostic; never break the user's call
        sig = Signature()
    caller = ctx.caller
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
