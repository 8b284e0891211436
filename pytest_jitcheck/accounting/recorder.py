"""Record every compilation of a jitted callable during a block.

Sources: ``jax.monitoring`` duration events (trace, lowering, backend compile) and
cache-hit events; the traced callable and its arguments are read from JAX's stack when
the trace event fires (see ``_jaxcompat``). Nothing is patched.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from pytest_jitcheck import _jaxcompat
from pytest_jitcheck._naming import describe_function
from pytest_jitcheck.accounting.attribution import event_from, mark_derived, name_from_jaxpr
from pytest_jitcheck.accounting.events import CompileEvent

TRACE_EVENT = "/jax/core/compile/jaxpr_trace_duration"
LOWER_EVENT = "/jax/core/compile/jaxpr_to_mlir_module_duration"
COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"
CACHE_HIT_EVENT = "/jax/compilation_cache/cache_hits"


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
        event = event_from(_jaxcompat.find_trace_context(), fun_name)
        event.trace_time = duration
        event.start = time.perf_counter() - duration
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
                and describe_function(ctx.fun).location not in (origin[1], "<unknown>")
            ):
                ctx = None
            # Called under jax.vmap/jax.grad, the jaxpr compiled is a transformed one.
            transformed = ctx is not None and _jaxcompat.has_tracer((ctx.args, ctx.kwargs))
            event = event_from(ctx, module_name, explain=not transformed)
            if event.location == "<unknown>":
                name_from_jaxpr(event, origin)
                transformed = origin is not None
            if transformed and not event.eager:
                mark_derived(event)
            event.start = time.perf_counter() - duration
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
