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

import contextlib
import gc
import sys
import types
from collections.abc import Iterator
from typing import Any

from pytest_jitcheck import _jaxcompat
from pytest_jitcheck._errors import PREFIX

_MAX_REPORTED = 3
_MAX_DEPTH = 6
_GRAPH_DEPTH = 4
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
        self._before: set[int] = set()

    def start(self) -> None:
        """Mark the heap as it is now; later scans see only newer objects."""
        if gc.get_freeze_count() == 0:
            gc.freeze()
            self._froze = True
        else:
            # Nested in another scan, or someone else froze objects: we must not
            # unfreeze theirs, so remember which tracers were already alive instead.
            self._before = {id(t) for t in self._alive()}

    def stop(self) -> None:
        """Give frozen objects back to the collector."""
        if self._froze:
            gc.unfreeze()
            self._froze = False

    def _alive(self) -> list[Any]:
        tracer = _tracer_type()
        before = self._before
        return [o for o in gc.get_objects() if isinstance(o, tracer) and id(o) not in before]

    def finish(self) -> list[Any]:
        """Return tracers created since ``start()`` that are still reachable by user code.

        Tracers that only JAX's own caches hold (a trace cache keyed on a jaxpr that
        mentions them, say) are no leak: JAX's checker does not report them either.
        """
        try:
            found = self._alive()
            if found:
                del found
                gc.collect()  # tracers in cyclic garbage (e.g. old tracebacks) are no leak
                found = self._alive()
        finally:
            self.stop()
        if not found or held_only_by_jax(found, ignore=[found]):
            return []  # one walk for all: usually they are all in the same JAX cache
        return [t for t in found if not held_only_by_jax([t], ignore=[found])]


_JAX_MODULES = ("jax", "jaxlib")
_SEARCH_LIMIT = 20000
_SEARCH_LEVELS = 24


def _is_jax_owned(obj: Any) -> bool:
    """Tell whether ``obj`` belongs to JAX: its instances, functions and module globals."""
    if isinstance(obj, types.FunctionType | types.ModuleType):
        module = getattr(obj, "__module__", None) or getattr(obj, "__name__", "")
    else:
        module = getattr(type(obj), "__module__", "") or ""
    return isinstance(module, str) and (
        module in _JAX_MODULES or module.startswith(("jax.", "jaxlib."))
    )


def held_only_by_jax(objs: list[Any], ignore: list[Any]) -> bool:
    """Tell whether every chain of references that keeps ``objs`` alive runs through JAX.

    Walks referrers backwards from ``objs`` without passing through JAX's own objects
    (caches, traces, jaxprs, module globals of ``jax.*``); if the walk ends without
    reaching anything else that is alive for a reason of its own (a module global of
    user code, a class, a running frame), only JAX holds them.
    """
    ignored = {id(x) for x in ignore}
    ignored.add(id(sys._getframe()))
    modules = {id(getattr(m, "__dict__", None)): name for name, m in list(sys.modules.items())}
    tracer = _tracer_type()
    seen = {id(obj) for obj in objs}
    # CPython's collector does not see what a running frame's variables hold, so a test
    # that keeps `model` in a local while JAX's cache keys on it too would look JAX-held.
    in_frames = _held_by_running_frames()
    if seen & in_frames:
        return False
    frontier: list[Any] = list(objs)
    blocked = False
    # Level by level: one scan of the heap per level, not per object.
    for _ in range(_SEARCH_LEVELS):
        if not frontier:
            return blocked
        ignored.add(id(frontier))
        holders = gc.get_referrers(*frontier)
        ignored.add(id(holders))
        following: list[Any] = []
        for holder in holders:
            if id(holder) in ignored or id(holder) in seen or isinstance(holder, _ITERATORS):
                continue
            seen.add(id(holder))
            if len(seen) > _SEARCH_LIMIT:
                return False  # too much to walk: keep the report
            if isinstance(holder, types.FrameType) or id(holder) in in_frames:
                return False  # a running frame (the test, a fixture's generator) holds it
            if isinstance(holder, dict) and id(holder) in modules:
                if modules[id(holder)].split(".")[0] in _JAX_MODULES:
                    blocked = True
                    continue
                return False
            if isinstance(holder, type):
                return False
            if _is_jax_owned(holder) and not isinstance(holder, tracer):
                blocked = True
                continue
            following.append(holder)
        del holders
        frontier = following
    return False if frontier else blocked


def _roots(tracers: list[Any]) -> list[Any]:
    """Drop tracers reachable from another leaked tracer (its inputs, via JAX's graph)."""
    leaked = {id(t) for t in tracers}
    behind: set[int] = set()
    for t in tracers:
        frontier, seen = [t], {id(t)}
        for _ in range(_GRAPH_DEPTH):
            nxt = []
            for obj in frontier:
                for ref in gc.get_referents(obj):
                    if id(ref) in seen or isinstance(ref, type | types.ModuleType):
                        continue
                    seen.add(id(ref))
                    if id(ref) in leaked:
                        behind.add(id(ref))
                    nxt.append(ref)
            frontier = nxt
    roots = [t for t in tracers if id(t) not in behind]
    return roots or tracers[:1]


def describe_leaks(tracers: list[Any], test_name: str) -> str:
    """Return the ``[jitcheck]`` failure message for leaked tracers."""
    roots = _roots(tracers)
    hidden = len(tracers) - len(roots)
    extra = f" (and {hidden} reachable only through them)" if hidden else ""
    lines = [
        f"{PREFIX} tracer leak in {test_name}: {len(roots)} tracer(s) outlived the "
        f"jitted function that created them{extra}"
    ]
    shown = roots[:_MAX_REPORTED]
    for t in shown:
        try:
            aval = str(t.aval)
        except Exception:
            aval = "?"
        where = escape_path(t, ignore=[tracers, roots, shown])
        lines.append(
            f"  - tracer {aval} from {_jaxcompat.tracer_origin(t)}, still reachable {where}"
        )
    if len(roots) > _MAX_REPORTED:
        lines.append(f"  ... and {len(roots) - _MAX_REPORTED} more")
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
    return _slot_of(holder, obj)


def _slot_of(holder: Any, obj: Any) -> str | None:
    """Name the ``__slots__`` attribute of ``holder`` (any class in its MRO) holding ``obj``.

    Read through the slot's descriptor, so that a class's own ``__getattr__`` (flax's
    ``Variable`` maps attribute access to its metadata) is not consulted.
    """
    for cls in type(holder).__mro__:
        slots = cls.__dict__.get("__slots__", ())
        for attr in (slots,) if isinstance(slots, str) else slots:
            descriptor = cls.__dict__.get(attr)
            if not isinstance(descriptor, types.MemberDescriptorType):
                continue
            try:
                if descriptor.__get__(holder, cls) is obj:
                    return f".{attr}"
            except AttributeError:  # an unset slot
                continue
    return None


def _fixture_of(d: dict[Any, Any], key: Any) -> str | None:
    """Name the fixture when ``d`` is a pytest item's ``funcargs`` (fixture values by name)."""
    if not isinstance(key, str):
        return None
    for attrs in gc.get_referrers(d):  # the item's __dict__, whose referrer is the item
        if isinstance(attrs, dict) and attrs.get("funcargs") is d:
            for owner in gc.get_referrers(attrs):
                module = getattr(type(owner), "__module__", "") or ""
                if module.startswith("_pytest") and getattr(owner, "__dict__", None) is attrs:
                    return key
    return None


def _rank(holder: Any) -> int:
    """Prefer paths through globals and user objects over JAX's cache entries."""
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


def _closure_owner(cell: types.CellType) -> tuple[str, str] | None:
    """Return ``(variable, function)`` for the closure that holds ``cell``."""
    for closure in gc.get_referrers(cell):
        if not isinstance(closure, tuple):
            continue
        for fn in gc.get_referrers(closure):
            if isinstance(fn, types.FunctionType) and fn.__closure__ is closure:
                index = next(i for i, c in enumerate(closure) if c is cell)
                return fn.__code__.co_freevars[index], fn.__qualname__
    return None


_NOT_USER_FRAMES = ("contextlib", "_pytest", "pluggy", "pytest_jitcheck")


def _held_by_running_frames() -> set[int]:
    """Return the ids of the values that local variables of running user frames hold."""
    held: set[int] = set()
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if frame.f_code.co_filename != __file__ and not (
            isinstance(name, str) and name.startswith((*_NOT_USER_FRAMES, *_JAX_MODULES))
        ):
            held.update(id(value) for value in frame.f_locals.values())
        frame = frame.f_back  # type: ignore[assignment]
    return held


def _stack_local(obj: Any) -> str | None:
    """Name a local variable of a running caller that holds ``obj`` (``with`` blocks)."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename != __file__ and not frame.f_globals.get(
            "__name__", ""
        ).startswith(_NOT_USER_FRAMES):
            for name, value in frame.f_locals.items():
                if value is obj:
                    return f"local variable {name!r} of {frame.f_code.co_name}()"
        frame = frame.f_back  # type: ignore[assignment]
    return None


def escape_path(obj: Any, ignore: list[Any]) -> str:
    """Return e.g. ``as test_mod.LEAKED[0]``: a path from a module or object to ``obj``."""
    # No nested scopes here: a closure cell holding ``current`` would be a referrer.
    ignored = {id(x) for x in ignore}
    suffix = ""
    current = obj
    for _ in range(_MAX_DEPTH):
        local = _stack_local(current)
        if local:
            return f"as {local}{suffix}"
        holders = [
            h
            for h in gc.get_referrers(current)
            if id(h) not in ignored and not isinstance(h, (types.FrameType, *_ITERATORS))
        ]
        ignored.add(id(holders))
        # Name the user's holder, not a JAX cache that also refers to the tracer.
        users = [h for h in holders if not held_only_by_jax([h], ignore=[holders, *ignore])]
        ignored.add(id(users))  # a list of holders is a referrer too
        holders = users or holders
        if not holders:
            break
        holder = min(holders, key=_rank)
        if isinstance(holder, dict):
            key = _key_of(holder, current)
            module = _module_of(holder)
            if module is not None and isinstance(key, str):
                return f"as {module}.{key}{suffix}"
            fixture = _fixture_of(holder, key)
            if fixture is not None:
                return f"as {fixture}{suffix} (the value of fixture {fixture!r})"
            if isinstance(key, str) and (owner := _dict_owner(holder, key)) is not None:
                suffix = f".{key}{suffix}"
                if isinstance(owner, type):
                    return f"as class attribute {owner.__qualname__}{suffix}"
                current = owner
                continue
        if isinstance(holder, types.CellType):
            captured = _closure_owner(holder)
            if captured is not None:
                var, fn = captured
                return f"as {var}{suffix} (a variable captured by {fn})"
        # A reference no step can name (a C-level field) still leads on to the holder.
        step = _step(holder, current) or f".<{type(current).__name__}>"
        suffix = step + suffix
        current = holder
    via = f" via {suffix}" if suffix else ""
    return f"from a {type(current).__name__} object{via}"


@contextlib.contextmanager
def no_tracer_leaks() -> Iterator[None]:
    """Fail with ``TracerLeakError`` if a tracer created in the block outlives it.

    The same fast detector as ``pytest --jitcheck``, for one block::

        with no_tracer_leaks():
            model.forward(x)
    """
    __tracebackhide__ = True
    scan = LeakScan()
    scan.start()
    try:
        yield
    except BaseException:
        scan.stop()
        raise
    leaked = scan.finish()
    if leaked:
        frame = sys._getframe(2)
        where = f"block at {frame.f_code.co_filename}:{frame.f_lineno}"
        message = describe_leaks(leaked, where)
        del leaked
        raise TracerLeakError(message)
