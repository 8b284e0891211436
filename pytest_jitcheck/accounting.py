"""Compile accounting: record every compilation of a jitted callable during a block.

Usable without pytest::

    from pytest_jitcheck.accounting import CompileRecorder

    with CompileRecorder() as rec:
        step(params, batch)
    for event in rec.events:
        print(event.describe())

Sources: ``jax.monitoring`` duration events (trace, lowering, backend compile) and
cache-hit events; the traced callable and its arguments are read from JAX's stack when
the trace event fires (see ``_jaxcompat``). Nothing is patched.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections import deque
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

from pytest_jitcheck import _jaxcompat
from pytest_jitcheck.signature import Signature, diff, hint_for, make_signature

TRACE_EVENT = "/jax/core/compile/jaxpr_trace_duration"
LOWER_EVENT = "/jax/core/compile/jaxpr_to_mlir_module_duration"
COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"
CACHE_HIT_EVENT = "/jax/compilation_cache/cache_hits"
_HISTORY_LEN = 32


@dataclass
class CompileEvent:
    """One compilation of a jitted callable."""

    name: str
    location: str
    signature: Signature
    call_site: str = "<unknown>"
    trace_time: float = 0.0
    lower_time: float = 0.0
    compile_time: float = 0.0
    cache_hit: bool = False
    eager: bool = False
    changes: tuple[str, ...] = ()
    hint: str = ""
    first: bool = True
    derived: bool = False
    function: Any = field(default=None, repr=False, compare=False)

    @property
    def key(self) -> str:
        """Return ``name (file:line)``, the key the session summary groups by."""
        return f"{self.name} ({self.location})"

    @property
    def total_time(self) -> float:
        """Return trace + lowering + compile seconds."""
        return self.trace_time + self.lower_time + self.compile_time

    @property
    def reason(self) -> str:
        """Say why this compilation happened, in one line."""
        if self.first:
            return "first compilation"
        return "; ".join(self.changes)

    def describe(self) -> str:
        """Return a one-line description: function, signature, call site, reason."""
        cached = ", persistent cache hit" if self.cache_hit else ""
        return (
            f"{self.name} ({self.location}) called at {self.call_site} "
            f"with ({self.signature}){cached} -- {self.reason}"
        )

    def to_json(self) -> dict[str, Any]:
        """Return a JSON-serialisable form."""
        return {
            "function": self.name,
            "location": self.location,
            "call_site": self.call_site,
            "signature": self.signature.to_json(),
            "trace_time_s": self.trace_time,
            "lower_time_s": self.lower_time,
            "compile_time_s": self.compile_time,
            "persistent_cache_hit": self.cache_hit,
            "eager": self.eager,
            "derived": self.derived,
            "reason": self.reason,
            "changes": list(self.changes),
            "hint": self.hint,
        }


def short_path(path: str) -> str:
    """Shorten ``/abs/dir/file.py:12`` to a path relative to the working directory."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def describe_function(fun: Any) -> tuple[str, str, Any]:
    """Return ``(name, "file:line", code_key)`` for a traced callable."""
    label = ""
    target = fun
    if hasattr(fun, "func") and hasattr(fun, "keywords"):  # functools.partial
        target, label = fun.func, "partial"
    if hasattr(target, "__func__"):  # bound method
        target = target.__func__
    code = getattr(target, "__code__", None)
    if code is None and not hasattr(target, "__qualname__"):  # callable object
        code = getattr(type(target).__call__, "__code__", None)
        name = f"{type(target).__qualname__}.__call__"
    else:
        name = str(
            getattr(target, "__qualname__", None) or getattr(target, "__name__", repr(target))
        )
    if label:
        name = f"{label}({name})"
    location = f"{code.co_filename}:{code.co_firstlineno}" if code is not None else "<unknown>"
    return name, location, code if code is not None else name


def _identity(fun: Any) -> tuple[int, ...]:
    if hasattr(fun, "__func__") and hasattr(fun, "__self__"):
        return (id(fun.__func__), id(fun.__self__))
    return (id(fun),)


class _History:
    """Recent signatures per code object, to explain recompilations.

    Explanatory state only (nothing here is counted): a recompilation in this test is
    explained against a signature compiled in an earlier one, as JAX's cache would.
    """

    def __init__(self) -> None:
        self._by_code: dict[Any, deque[tuple[Signature, tuple[int, ...], Any]]] = {}

    def explain(self, code: Any, fun: Any, sig: Signature) -> tuple[bool, list[str], str]:
        past = self._by_code.setdefault(code, deque(maxlen=_HISTORY_LEN))
        ident = _identity(fun)
        try:
            ref: Any = weakref.ref(fun)
        except TypeError:
            ref = None
        result: tuple[bool, list[str], str]
        if not past:
            result = (True, [], "")
        else:
            best = min(reversed(past), key=lambda entry: len(diff(entry[0], sig)))
            changes = diff(best[0], sig)
            same_fun = best[1] == ident and (best[2] is None or best[2]() is fun)
            if not same_fun:
                changes.insert(
                    0,
                    "a new function object for the same code "
                    "(jax.jit applied to a fresh lambda, closure, partial or bound method)",
                )
                hint = "create the jitted function once, outside the loop or call, and reuse it"
            elif not changes:
                changes = ["same abstract signature as an earlier compilation"]
                hint = (
                    "the cache was cleared, or something outside the arguments changed "
                    "(jax config, device, closed-over constant)"
                )
            else:
                hint = hint_for(changes)
            result = (False, changes, hint)
        past.append((sig, ident, ref))
        return result


_HISTORY = _History()


# Qualified names by definition site, so that an event known only from its jaxpr's
# debug info (which has the plain __name__) groups with the function's other events.
_NAMES: dict[str, str] = {}
_DERIVED = (
    "compiled from a jaxpr JAX derived or traced earlier "
    "(e.g. the backward pass of a jitted function under jax.grad)"
)


def _has_tracer(tree: Any) -> bool:
    import jax

    return any(isinstance(leaf, jax.core.Tracer) for leaf in jax.tree_util.tree_leaves(tree))


def _from_jaxpr(event: CompileEvent, origin: tuple[str, str, bool] | None) -> None:
    """Name an event from the debug info of the jaxpr being compiled, if visible."""
    if origin is None:
        return
    name, location, inside_jax = origin
    event.name, event.location = _NAMES.get(location, name), location
    event.eager = event.eager or inside_jax
    if not event.eager:
        event.first, event.changes, event.derived = False, (_DERIVED,), True


def _event_from(
    ctx: _jaxcompat.TraceContext | None, fun_name: str, explain: bool = True
) -> CompileEvent:
    """Build the event for the callable JAX is tracing or compiling now."""
    if ctx is None or ctx.fun is None:
        event = CompileEvent(fun_name or "<unknown>", "<unknown>", Signature())
        event.eager = _jaxcompat.dispatching_primitive()
        return event
    name, location, code = describe_function(ctx.fun)
    _NAMES[location] = name
    try:
        sig = make_signature(ctx.fun, ctx.args, ctx.kwargs, ctx.static_argnums, ctx.static_argnames)
    except Exception:  # a signature is a diagnostic; never break the user's call
        sig = Signature()
    caller = ctx.caller
    call_site = (
        f"{caller.f_code.co_filename}:{caller.f_lineno}" if caller is not None else "<unknown>"
    )
    event = CompileEvent(name, location, sig, call_site, eager=ctx.eager, function=ctx.fun)
    if explain and not ctx.eager:
        first, changes, hint = _HISTORY.explain(code, ctx.fun, sig)
        event.first, event.changes, event.hint = first, tuple(changes), hint
    return event


@dataclass
class _Pending:
    event: CompileEvent
    module_name: str


class _Dispatcher:
    """Route ``jax.monitoring`` events to the active recorders.

    The listeners are registered while at least one recorder is active, and removed
    afterwards, so JAX runs unobserved outside recorded blocks.
    """

    def __init__(self) -> None:
        self.recorders: list[CompileRecorder] = []
        self.registered = False
        self.lock = threading.RLock()
        self.local = threading.local()

    def add(self, recorder: CompileRecorder) -> None:
        from jax import monitoring

        with self.lock:
            if not self.registered:
                monitoring.register_event_duration_secs_listener(self.on_duration)
                monitoring.register_event_listener(self.on_event)
                self.registered = True
            self.recorders.append(recorder)

    def remove(self, recorder: CompileRecorder) -> None:
        from jax import monitoring

        with self.lock:
            if recorder in self.recorders:
                self.recorders.remove(recorder)
            if not self.recorders:
                self.local.__dict__.clear()
                # The unregister functions are missing from some older JAX releases;
                # there the listeners stay, and return at once with no recorder active.
                off_duration = getattr(monitoring, "unregister_event_duration_listener", None)
                off_event = getattr(monitoring, "unregister_event_listener", None)
                if self.registered and off_duration is not None and off_event is not None:
                    off_duration(self.on_duration)
                    off_event(self.on_event)
                    self.registered = False

    def _pending(self) -> list[_Pending]:
        pending: list[_Pending] | None = getattr(self.local, "pending", None)
        if pending is None:
            pending = self.local.pending = []
        return pending

    def on_duration(self, event: str, duration_secs: float, **kwargs: str | int) -> None:
        if not self.recorders:
            return
        duration = duration_secs
        if event == TRACE_EVENT:
            self._on_trace(duration, str(kwargs.get("fun_name", "")))
        elif event == LOWER_EVENT:
            match = self._match(str(kwargs.get("fun_name", "")))
            if match is not None:
                match.event.lower_time += duration
        elif event == COMPILE_EVENT:
            self._finish(str(kwargs.get("fun_name", "")), duration)

    def on_event(self, event: str, **kwargs: str | int) -> None:
        if event == CACHE_HIT_EVENT and self.recorders:
            # Newer JAX still reports a backend-compile duration after a persistent-cache
            # hit; older releases may not, so a marked entry is also finished by the next
            # trace or when recording stops.
            pending = self._pending()
            if pending:
                pending[-1].event.cache_hit = True

    def flush_hits(self) -> None:
        """Finish persistent-cache hits that no compile event followed."""
        for item in [p for p in self._pending() if p.event.cache_hit]:
            self._pending().remove(item)
            self._emit(item.event)

    def _on_trace(self, duration: float, fun_name: str) -> None:
        self.flush_hits()
        event = _event_from(_jaxcompat.find_trace_context(), fun_name)
        event.trace_time = duration
        pending = self._pending()
        pending.append(_Pending(event, fun_name))
        del pending[:-8]  # traces without compile (.trace(), eval_shape) are dropped

    def _match(self, module_name: str) -> _Pending | None:
        pending = self._pending()
        bare = module_name
        for prefix, suffix in (("jit(", ")"), ("jit_", "")):
            if bare.startswith(prefix) and bare.endswith(suffix):
                bare = bare[len(prefix) : len(bare) - len(suffix)]
                break
        for item in reversed(pending):
            if item.module_name in (bare, module_name):
                return item
        return pending[-1] if pending and not module_name else None

    def _finish(self, module_name: str, duration: float) -> None:
        match = self._match(module_name)
        if match is None:
            # JAX's trace cache served the jaxpr (traced before: inlined into another jit,
            # by make_jaxpr, or before recording started), so no trace event came first.
            ctx = _jaxcompat.find_call_context()
            origin = _jaxcompat.compiled_jaxpr_origin()
            # The call frame found may be an enclosing one: trust it only if its
            # function defined the jaxpr compiled.
            if (
                ctx is not None
                and origin is not None
                and (describe_function(ctx.fun)[1] not in (origin[1], "<unknown>"))
            ):
                ctx = None
            # Called under jax.vmap/jax.grad, the jaxpr compiled is a transformed one.
            transformed = ctx is not None and _has_tracer((ctx.args, ctx.kwargs))
            event = _event_from(ctx, module_name, explain=not transformed)
            if event.location == "<unknown>":
                _from_jaxpr(event, origin)
            elif transformed and not event.eager:
                event.first, event.changes, event.derived = False, (_DERIVED,), True
        else:
            self._pending().remove(match)
            event = match.event
        event.compile_time += duration
        self._emit(event)

    def _emit(self, event: CompileEvent) -> None:
        with self.lock:
            recorders = list(self.recorders)
        for recorder in recorders:
            recorder._record(event)


_DISPATCHER = _Dispatcher()


class CompileRecorder:
    """Record compilations of jitted callables while active (a context manager).

    ``include_eager=True`` also records JAX's own op-by-op compilations (``jnp.ones(3)``
    outside ``jit``), which are skipped by default.
    """

    def __init__(self, include_eager: bool = False) -> None:
        self.include_eager = include_eager
        self.events: list[CompileEvent] = []
        self._lock = threading.Lock()
        self._active = False

    def start(self) -> CompileRecorder:
        """Start recording (idempotent)."""
        if not self._active:
            _DISPATCHER.add(self)
            self._active = True
        return self

    def stop(self) -> None:
        """Stop recording (idempotent)."""
        if self._active:
            _DISPATCHER.flush_hits()
            _DISPATCHER.remove(self)
            self._active = False

    def __enter__(self) -> CompileRecorder:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def _record(self, event: CompileEvent) -> None:
        if event.eager and not self.include_eager:
            return
        with self._lock:
            self.events.append(event)

    @property
    def count(self) -> int:
        """Return the number of recorded compilations."""
        return len(self.events)

    def events_for(self, fn: Any) -> list[CompileEvent]:
        """Return the events of ``fn`` (a jitted function, or the function it wraps)."""
        chain = unwrap_chain(fn)
        return [e for e in self.events if any(_same(e.function, c) for c in chain)]


def unwrap_chain(fn: Any) -> list[Any]:
    """Return ``fn`` and every object reachable through ``__wrapped__``."""
    chain = [fn]
    while hasattr(chain[-1], "__wrapped__") and len(chain) < 16:
        chain.append(chain[-1].__wrapped__)
    return chain


def _same(a: Any, b: Any) -> bool:
    if a is None:
        return False
    if a is b:
        return True
    try:
        return bool(a == b) and type(a) is type(b)
    except Exception:
        return False
