"""Fast tracer-leak detection: find tracers still alive after a test.

JAX's own checker (``jax.checking_leaks()``) disables trace caching, so every jitted
call retraces and recompiles. This detector instead freezes the heap when the test
starts (``gc.freeze()``, which moves every existing object out of the collector's
generations), so after the test ``gc.get_objects()`` lists only objects created during
the test; any ``Tracer`` among them that survives a collection escaped its trace. The
cost is proportional to what the test allocated, not to the whole heap.

It finds tracers that outlive the test (stored in a global, a class or instance
attribute, a fixture, a module-level container). A tracer leaked into an object that
dies with the test, and never used again, is only found by ``--jitcheck-leaks=strict``.
"""

from __future__ import annotations

import gc
import sys
import types
from typing import Any

from pytest_jitcheck import _jaxcompat
from pytest_jitcheck._errors import PREFIX

_MAX_REPORTED = 3
_MAX_DEPTH = 6
_ITERATORS: tuple[type, ...] = (type(iter([])), type(iter(())), type(iter({})))


class TracerLeakError(AssertionError):
    """A tracer escaped the jitted function that created it."""


def _tracer_type() -> type:
    import jax

    tracer: type = jax.core.Tracer
    return tracer


class LeakScan:
    """Freeze the heap at start; on ``finish()`` list the tracers created and still alive."""

    def __init__(self) -> None:
        self._froze = False

    def start(self) -> None:
        """Mark the heap as it is now; later scans see only newer objects."""
        # If someone else froze objects we cannot tell theirs from ours on unfreeze;
        # then scan the whole heap (slower, still correct).
        if gc.get_freeze_count() == 0:
            gc.freeze()
            self._froze = True

    def stop(self) -> None:
        """Give frozen objects back to the collector."""
        if self._froze:
            gc.unfreeze()
            self._froze = False

    def _alive(self) -> list[Any]:
        tracer = _tracer_type()
        return [o for o in gc.get_objects() if isinstance(o, tracer)]

    def finish(self) -> list[Any]:
        """Return tracers created since ``start()`` that are still reachable."""
        try:
            found = self._alive()
            if found:
                del found
                gc.collect()  # tracers in cyclic garbage (e.g. old tracebacks) are no leak
                found = self._alive()
            return found
        finally:
            self.stop()


def describe_leaks(tracers: list[Any], test_name: str) -> str:
    """Return the ``[jitcheck]`` failure message for leaked tracers."""
    lines = [
        f"{PREFIX} tracer leak in {test_name}: {len(tracers)} tracer(s) outlived the "
        "jitted function that created them"
    ]
    shown = tracers[:_MAX_REPORTED]
    for t in shown:
        try:
            aval = str(t.aval)
        except Exception:
            aval = "?"
        where = escape_path(t, ignore=[tracers, shown])
        lines.append(
            f"  - tracer {aval} from {_jaxcompat.tracer_origin(t)}, still reachable {where}"
        )
    if len(tracers) > _MAX_REPORTED:
        lines.append(f"  ... and {len(tracers) - _MAX_REPORTED} more")
    lines.append(
        "  hint: return values out of the jitted function instead of storing them in "
        "globals, attributes or outer containers"
    )
    return "\n".join(lines)


def _module_of(d: dict[str, Any]) -> str | None:
    for name, mod in list(sys.modules.items()):
        if getattr(mod, "__dict__", None) is d:
            return name
    return None


def _step(holder: Any, obj: Any) -> str | None:
    """Describe how ``holder`` refers to ``obj`` as an access suffix or a name."""
    if isinstance(holder, list | tuple):
        for i, item in enumerate(holder):
            if item is obj:
                return f"[{i}]"
    if isinstance(holder, dict):
        for key, value in holder.items():
            if value is obj:
                return f"[{key!r}]"
    if isinstance(holder, set | frozenset):
        return ".<item>"
    if isinstance(holder, types.CellType):
        return ".<closure cell>"
    attrs = getattr(holder, "__dict__", None)
    if isinstance(attrs, dict):
        key = _key_of(attrs, obj)
        if isinstance(key, str):
            return f".{key}"
    for attr in getattr(type(holder), "__slots__", ()):
        if getattr(holder, attr, None) is obj:
            return f".{attr}"
    return None


def _rank(holder: Any) -> int:
    """Prefer paths through module globals and user objects over JAX's cache entries."""
    if isinstance(holder, dict):
        return 0 if _module_of(holder) is not None else 1
    module = getattr(type(holder), "__module__", "") or ""
    return 3 if module.startswith(("jax", "jaxlib")) else 2


def _key_of(d: dict[Any, Any], value: Any) -> Any:
    for key, item in d.items():
        if item is value:
            return key
    return None


def _dict_owner(d: dict[str, Any], key: str) -> Any:
    for o in gc.get_referrers(d):
        if isinstance(o, type):
            # A class's namespace is seen through a mappingproxy, never ``is`` the dict.
            if key in o.__dict__ and o.__dict__[key] is d[key]:
                return o
        elif not isinstance(o, dict) and getattr(o, "__dict__", None) is d:
            return o
    return None


def _closure_owner(cell: types.CellType) -> str | None:
    """Name the function whose closure holds ``cell``: ``variable 'seen' of f``."""
    for closure in gc.get_referrers(cell):
        if not isinstance(closure, tuple):
            continue
        for fn in gc.get_referrers(closure):
            if isinstance(fn, types.FunctionType) and fn.__closure__ is closure:
                index = next(i for i, c in enumerate(closure) if c is cell)
                var = fn.__code__.co_freevars[index]
                return f"variable {var!r} captured by {fn.__qualname__}"
    return None


def escape_path(obj: Any, ignore: list[Any]) -> str:
    """Return e.g. ``as test_mod.LEAKED[0]``: a path from a module or object to ``obj``."""
    # No nested scopes here: a closure cell holding ``current`` would be a referrer.
    ignored = {id(x) for x in ignore}
    suffix = ""
    current = obj
    frame = sys._getframe()
    for _ in range(_MAX_DEPTH):
        holders = [
            h
            for h in gc.get_referrers(current)
            if id(h) not in ignored
            and h is not frame
            and not isinstance(h, (types.FrameType, *_ITERATORS))
        ]
        ignored.add(id(holders))
        if not holders:
            break
        holder = min(holders, key=_rank)
        if isinstance(holder, dict):
            key = _key_of(holder, current)
            module = _module_of(holder)
            if module is not None and isinstance(key, str):
                return f"as {module}.{key}{suffix}"
            if isinstance(key, str) and (owner := _dict_owner(holder, key)) is not None:
                suffix = f".{key}{suffix}"
                if isinstance(owner, type):
                    return f"as class attribute {owner.__qualname__}{suffix}"
                current = owner
                continue
        if isinstance(holder, types.CellType):
            captured = _closure_owner(holder)
            if captured is not None:
                return f"as {captured}{suffix}"
        step = _step(holder, current)
        if step is None:
            break
        suffix = step + suffix
        current = holder
    via = f" via {suffix}" if suffix else ""
    return f"from a {type(current).__name__} object{via}"
