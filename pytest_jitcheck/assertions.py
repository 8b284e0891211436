"""``assert_compiles``: assert how many times jitted code compiles in a block."""

from __future__ import annotations

import sys
import warnings
from types import TracebackType
from typing import Any

from pytest_jitcheck._errors import PREFIX, JitcheckUsageError, JitcheckWarning
from pytest_jitcheck._naming import short_path
from pytest_jitcheck.accounting import CompileEvent, CompileRecorder


class CompileCountError(AssertionError):
    """A block compiled more (or less) often than ``assert_compiles`` allowed."""


def _plural(n: int) -> str:
    return f"{n} compilation" + ("" if n == 1 else "s")


def format_events(events: list[CompileEvent], indent: str = "  ") -> list[str]:
    """Format compile events as numbered lines with reasons and hints."""
    lines = []
    for i, e in enumerate(events, 1):
        cached = " [persistent cache hit]" if e.cache_hit else ""
        lines.append(
            f"{indent}{i}. {e.name} ({short_path(e.location)}) called at {short_path(e.call_site)}"
            f" with ({e.signature}){cached}"
        )
        if e.first:
            lines.append(f"{indent}   first compilation")
        else:
            lines.extend(f"{indent}   recompiled: {c}" for c in e.changes)
            if e.hint:
                lines.append(f"{indent}   hint: {e.hint}")
    return lines


class CompileCount:
    """What ``assert_compiles`` observed; yielded by the context manager.

    ``count`` and ``events`` are live while the block runs and final afterwards.
    """

    def __init__(self, recorder: CompileRecorder, fn: Any = None) -> None:
        self._recorder = recorder
        self._fn = fn

    @property
    def events(self) -> list[CompileEvent]:
        """Return the counted compilations, oldest first."""
        if self._fn is None:
            return list(self._recorder.events)
        return self._recorder.events_for(self._fn)

    @property
    def count(self) -> int:
        """Return the number of counted compilations."""
        return len(self.events)

    def __repr__(self) -> str:
        return f"CompileCount(count={self.count})"


def _check_count(name: str, value: Any) -> int | None:
    __tracebackhide__ = True
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise JitcheckUsageError(
            f"assert_compiles({name}=...) takes an int, got {type(value).__name__} {value!r}"
        )
    if value < 0:
        raise JitcheckUsageError(f"assert_compiles({name}=...) must be >= 0, got {value}")
    return value


_never_entered: list[str] = []


def take_never_entered() -> list[str]:
    """Return (and forget) the ``assert_compiles`` objects dropped without ``with``."""
    found = list(_never_entered)
    _never_entered.clear()
    return found


class AssertCompiles:
    """Context manager behind ``assert_compiles``; checks the count on exit.

    Created but never entered (``assert_compiles(1)`` on a line of its own), it checks
    nothing; the pytest plugin fails the test that did this, and outside pytest a
    ``JitcheckWarning`` says so.
    """

    _entered = True  # until __init__ succeeds there is nothing to complain about

    def __init__(
        self,
        count: int | None = None,
        *,
        fn: Any = None,
        max: int | None = None,
        include_eager: bool = False,
        _depth: int = 1,
    ) -> None:
        __tracebackhide__ = True
        self.expected = _check_count("count", count)
        self.maximum = _check_count("max", max)
        if self.expected is None and self.maximum is None:
            raise JitcheckUsageError(
                "assert_compiles needs an expected count or max=, "
                "e.g. assert_compiles(1) or assert_compiles(max=2)"
            )
        if self.expected is not None and self.maximum is not None:
            raise JitcheckUsageError("assert_compiles takes a count or max=, not both")
        if fn is not None and not callable(fn):
            raise JitcheckUsageError(
                f"assert_compiles(fn=...) takes a jitted function, got {type(fn).__name__}"
            )
        self.fn = fn
        frame = sys._getframe(_depth)
        self.where = f"{frame.f_code.co_filename}:{frame.f_lineno}"
        self._recorder = CompileRecorder(include_eager=include_eager)
        self._result = CompileCount(self._recorder, fn)
        self._entered = False

    def __enter__(self) -> CompileCount:
        self._entered = True
        self._recorder.start()
        return self._result

    def __del__(self) -> None:
        if self._entered:
            return
        message = (
            f"{PREFIX} assert_compiles(...) at {short_path(self.where)} was never entered, so "
            "it checked nothing: write `with assert_compiles(...):` around the calls"
        )
        _never_entered.append(message)
        if "pytest_jitcheck.plugin" not in sys.modules:
            warnings.warn(message, JitcheckWarning, stacklevel=2)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        __tracebackhide__ = True
        self._recorder.__exit__(exc_type, exc, tb)  # stop recording, as the recorder's own
        if exc_type is not None:
            return
        got = self._result.count
        if self.expected is not None and got != self.expected:
            self._fail(f"expected exactly {_plural(self.expected)}", got)
        if self.maximum is not None and got > self.maximum:
            self._fail(f"expected at most {_plural(self.maximum)}", got)

    def _fail(self, expectation: str, got: int) -> None:
        __tracebackhide__ = True
        what = (
            "of any jitted function"
            if self.fn is None
            else f"of {getattr(self.fn, '__qualname__', None) or repr(self.fn)}"
        )
        where = short_path(self.where)
        lines = [f"{PREFIX} {expectation} {what} in the block at {where}, got {got}"]
        events = self._result.events
        lines[0] += ":" if events else "."
        lines.extend(format_events(events))
        raise CompileCountError("\n".join(lines))


def assert_compiles(
    count: int | None = None,
    *,
    fn: Any = None,
    max: int | None = None,
    include_eager: bool = False,
) -> AssertCompiles:
    """Assert that the ``with`` block compiles jitted code ``count`` (or at most ``max``) times.

    ``fn`` restricts the count to one jitted function. Eager op-by-op compilations are
    not counted unless ``include_eager=True``.
    """
    __tracebackhide__ = True
    return AssertCompiles(count, fn=fn, max=max, include_eager=include_eager, _depth=2)


class AssertCompilesFixture:
    """The ``assert_compiles`` fixture; annotate with it for type checking.

    ``def test_step(assert_compiles: AssertCompilesFixture) -> None: ...``
    """

    def __call__(
        self,
        count: int | None = None,
        *,
        fn: Any = None,
        max: int | None = None,
        include_eager: bool = False,
    ) -> AssertCompiles:
        """Assert that the ``with`` block compiles ``count`` (or at most ``max``) times."""
        __tracebackhide__ = True
        return AssertCompiles(count, fn=fn, max=max, include_eager=include_eager, _depth=2)
