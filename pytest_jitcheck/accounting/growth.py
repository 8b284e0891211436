"""Unbounded growth across tests: equal copies of one jitted function piling up.

A cache keyed by a fresh object per test (``CACHE[config] = jax.jit(partial(step,
config))`` with a ``config`` built in each test and hashed by identity) never hits: every
test compiles the same code with the same signature again, and the cache keeps every
copy, with its executables, alive. One test sees only a first compilation, so this is
visible across tests only.

What is counted is *live, equal-looking* function objects: the same code, closure or
``partial`` contents that read the same (object addresses aside), compiled with the same
abstract signature, each from another test, and all still alive after a collection. A
function-scoped fixture or a test that builds ``jax.jit(lambda ...)`` afresh compiles
again per test too, but its copies die with the test and never accumulate; copies that
differ (``partial(step, n)`` for another ``n``) are different computations.
"""

from __future__ import annotations

import functools
import gc
import reprlib
import types
import weakref
from dataclasses import dataclass, field
from typing import Any

from pytest_jitcheck._naming import aval_text, code_of, without_addresses
from pytest_jitcheck.accounting.events import CompileEvent

THRESHOLD = 3
"""Live copies, each compiled by another test, that make growth wasteful."""

_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 80


_PLAIN = (str, bytes, int, float, complex, bool, type(None), tuple, list, dict, set, frozenset)
_MAX_ATTRS = 16


def _value_text(value: Any, depth: int = 0) -> str:
    """Describe a captured value cheaply: arrays by type, objects by their attributes."""
    aval = getattr(value, "aval", None)  # a JAX array: its type, never its (device) data
    if aval is not None and hasattr(aval, "dtype"):
        return aval_text(aval.dtype, tuple(aval.shape), bool(getattr(aval, "weak_type", False)))
    shape, dtype = getattr(value, "shape", None), getattr(value, "dtype", None)
    if isinstance(shape, tuple) and dtype is not None:
        return f"{type(value).__name__}[{dtype}{list(shape)}]"
    if isinstance(value, types.FunctionType | types.MethodType | functools.partial):
        return fingerprint(value, depth + 1)
    if isinstance(value, (*_PLAIN, type, types.ModuleType)):
        try:
            return without_addresses(_REPR.repr(value))
        except Exception:
            return type(value).__name__
    # Another object: its class and attributes (a user's repr may be slow or say nothing).
    name = type(value).__qualname__
    attrs = getattr(value, "__dict__", None)
    if depth > 2 or not isinstance(attrs, dict) or len(attrs) > _MAX_ATTRS:
        return name
    inner = ", ".join(f"{k}={_value_text(v, depth + 1)}" for k, v in sorted(attrs.items()))
    return f"{name}({inner})"


def fingerprint(fun: Any, depth: int = 0) -> str:
    """Describe what a function object computes: code and captured values, no addresses."""
    if depth > 3:
        return type(fun).__name__
    if isinstance(fun, functools.partial):
        args = ", ".join(_value_text(a, depth) for a in fun.args)
        kwargs = ", ".join(f"{k}={_value_text(v, depth)}" for k, v in fun.keywords.items())
        return f"partial({fingerprint(fun.func, depth + 1)}, {args}; {kwargs})"
    if isinstance(fun, types.MethodType):
        return f"{fingerprint(fun.__func__, depth + 1)} of {type(fun.__self__).__qualname__}"
    code = getattr(fun, "__code__", None)
    if code is None:
        return type(fun).__qualname__
    cells = []
    for cell in getattr(fun, "__closure__", None) or ():
        try:
            cells.append(_value_text(cell.cell_contents, depth))
        except ValueError:  # an empty cell
            cells.append("<empty>")
    defaults = [_value_text(d, depth) for d in getattr(fun, "__defaults__", None) or ()]
    where = f"{code.co_filename}:{code.co_firstlineno}"
    return f"{code.co_qualname if hasattr(code, 'co_qualname') else code.co_name}@{where}" + (
        f"[{'; '.join(cells)}|{'; '.join(defaults)}]"
    )


def _users_own(event: CompileEvent) -> bool:
    """Tell whether the function JAX traced is the user's own (code at the named ``def``).

    Behind a library's wrapper (``equinox.filter_jit``'s ``fun_wrapped``) the traced
    function is the library's, and its copies live as long as the library's and JAX's
    caches decide (equinox's cache, keyed weakly on the user's function, and JAX's,
    holding that function among the static arguments, keep each other alive): no fault
    of the user's, and no cache of theirs to fix.
    """
    code = code_of(event.function)
    if isinstance(event.function, functools.partial):
        code = code_of(event.function.func)
    filename = getattr(code, "co_filename", None)
    return filename is not None and event.location.rpartition(":")[0] == filename


@dataclass
class _Copies:
    refs: list[tuple[weakref.ref[Any], str]] = field(default_factory=list)
    warned_at: int = 0

    def live(self) -> list[tuple[weakref.ref[Any], str]]:
        self.refs = [(r, t) for r, t in self.refs if r() is not None]
        return self.refs


class GrowthTracker:
    """Per session: the live equal copies of each jitted function, and who compiled them."""

    def __init__(self, threshold: int = THRESHOLD) -> None:
        self.threshold = threshold
        self._copies: dict[tuple[str, str, str], _Copies] = {}

    def observe(self, nodeid: str, events: list[CompileEvent]) -> None:
        """Record this test's compilations; mark the events that make a copy pile grow."""
        for event in events:
            fun = event.function
            if fun is None or event.eager or event.derived or not _users_own(event):
                continue
            try:
                ref = weakref.ref(fun)
                key = (event.key, without_addresses(str(event.signature)), fingerprint(fun))
            except Exception:  # not weakly referenceable, or an odd callable
                continue
            copies = self._copies.setdefault(key, _Copies())
            live = copies.live()
            if any(r() is fun for r, _ in live):
                continue
            live.append((ref, nodeid))
            if len({t for _, t in live}) < max(self.threshold, 2 * copies.warned_at):
                continue
            gc.collect()  # copies kept only by reference cycles are no growth
            live = copies.live()
            tests = list(dict.fromkeys(t for _, t in live))
            if len(tests) < max(self.threshold, 2 * copies.warned_at):
                continue
            copies.warned_at = len(tests)
            shown = ", ".join(tests[:3]) + (f" and {len(tests) - 3} more" if len(tests) > 3 else "")
            event.wasteful = (
                f"unbounded growth across tests: {len(tests)} equal copies of this jitted "
                f"function, compiled with the same signature by {shown}, are all still "
                "alive; something keeps a new one per test (a cache keyed by an object "
                "created in each test?)"
            )

        if len(self._copies) > _MAX_KEYS:  # forget functions whose copies all died
            self._copies = {k: c for k, c in self._copies.items() if c.live()}


_MAX_KEYS = 4096
_session: GrowthTracker | None = None


def new_session() -> GrowthTracker:
    """Start a fresh tracker (the plugin calls this once per test session)."""
    global _session
    _session = GrowthTracker()
    return _session


def current() -> GrowthTracker:
    """Return the session's tracker, creating one on first use."""
    return _session if _session is not None else new_session()
