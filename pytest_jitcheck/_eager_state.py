"""Which test ``--jitcheck-eager`` is cross-checking now: shared by ``eager`` and ``compare``.

A leaf module, so that the comparison helpers can pause the cross-check without
importing the instrumentation that uses them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass
class CheckState:
    """What one checked test has seen: signatures done, failures, skipped functions."""

    seen: set[tuple[int, Any]] = field(default_factory=set)
    failures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    busy: bool = False


# The test being checked, or None. A module global because the proxies are created at
# import time of the code under test, long before any test runs.
_current: CheckState | None = None


def current() -> CheckState | None:
    """Return the state of the test being cross-checked, if any."""
    return _current


def begin_test() -> CheckState:
    """Start cross-checking the calls of the running test."""
    global _current
    _current = CheckState()
    return _current


def end_test() -> CheckState | None:
    """Stop cross-checking; return what the test recorded."""
    global _current
    state, _current = _current, None
    return state


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """Forward jitted calls unchecked: for helpers that do their own comparison."""
    state = _current
    if state is None or state.busy:
        yield
        return
    state.busy = True
    try:
        yield
    finally:
        state.busy = False
