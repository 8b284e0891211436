"""What each jitted function compiled before: the memory that explains a recompilation.

Explanatory state only (nothing here is counted). It is keyed weakly by function
identity, as JAX's own cache is, so two functions that share a code object (two closures
from one ``def``) each have their own history, and a dead function's history goes with
it. A :class:`History` belongs to a session: the pytest plugin starts a fresh one per run
(:func:`new_session`); used outside pytest, one is created on first use.
"""

from __future__ import annotations

import weakref
from collections import deque
from typing import Any

from pytest_jitcheck.accounting.events import Change, ChangeKind
from pytest_jitcheck.accounting.signature import Signature, diff

_HISTORY_LEN = 32


class _WeakTable:
    """A weak-keyed table that falls back to (bounded) identity keys for odd objects."""

    def __init__(self) -> None:
        self._weak: weakref.WeakKeyDictionary[Any, deque[Signature]] = weakref.WeakKeyDictionary()
        self._strong: dict[int, deque[Signature]] = {}

    def get(self, key: Any) -> deque[Signature]:
        try:
            found = self._weak.get(key)
            if found is None:
                found = self._weak[key] = deque(maxlen=_HISTORY_LEN)
            return found
        except TypeError:  # not weakly referenceable, or unhashable
            if len(self._strong) > 4096:
                self._strong.clear()
            return self._strong.setdefault(id(key), deque(maxlen=_HISTORY_LEN))


class History:
    """Recent signatures per function identity, and per code object."""

    def __init__(self) -> None:
        self._by_function = _WeakTable()
        self._by_code = _WeakTable()
        self.names: dict[str, str] = {}
        """Qualified names by definition site, for events known only from a jaxpr."""

    def explain(self, fun: Any, code: Any, sig: Signature) -> tuple[bool, tuple[Change, ...]]:
        """Return ``(first, changes)`` for compiling ``fun`` with ``sig``, and remember it.

        ``first`` is true for the first compilation of a function whose code was never
        compiled before. A function object new to JAX whose code was compiled through
        another function object (a fresh lambda or closure each call) is a recompilation
        of kind ``NEW_FUNCTION``.
        """
        own = self._by_function.get(fun)
        same_code = self._by_code.get(code)
        try:
            if own:
                changes = _closest(own, sig)
                if not changes:
                    changes = [Change(ChangeKind.SAME_SIGNATURE)]
                return False, tuple(changes)
            if same_code:
                return False, (Change(ChangeKind.NEW_FUNCTION), *_closest(same_code, sig))
            return True, ()
        finally:
            own.append(sig)
            same_code.append(sig)


def _closest(past: deque[Signature], sig: Signature) -> list[Change]:
    best = min(reversed(past), key=lambda old: len(diff(old, sig)))
    return diff(best, sig)


_session: History | None = None


def new_session() -> History:
    """Start a fresh history (the plugin calls this once per test session)."""
    global _session
    _session = History()
    return _session


def current() -> History:
    """Return the session's history, creating one on first use."""
    return _session if _session is not None else new_session()
