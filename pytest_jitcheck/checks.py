"""Per-test checks of ``pytest --jitcheck``: leaks, compile limits, recompile warnings.

Recompilations are classified, not counted: a ``RecompileWarning`` is issued only for
the *wasteful* ones (see :func:`wasteful`). The warning goes through Python's warnings
machinery, with one rule about ``filterwarnings = error``: a blanket filter (``error``,
``error::Warning``) does not turn it into a failure, since the test did nothing wrong by
JAX's rules; a filter that names ``RecompileWarning`` or ``JitcheckWarning`` is obeyed
(``error::pytest_jitcheck.RecompileWarning`` fails the test, ``ignore::...`` hides it).
"""

from __future__ import annotations

import contextlib
import sysconfig
import warnings
from types import TracebackType
from typing import Any

from pytest_jitcheck._errors import PREFIX, JitcheckWarning, RecompileWarning
from pytest_jitcheck._marker import MarkerOptions
from pytest_jitcheck._naming import short_path
from pytest_jitcheck.accounting import ChangeKind, CompileEvent, CompileRecorder, growth
from pytest_jitcheck.assertions import CompileCountError, format_events
from pytest_jitcheck.leaks import LeakScan, TracerLeakError, describe_leaks
from pytest_jitcheck.options import Settings

_NOT_USER = ("jax", "_pytest", "pluggy", "pytest_jitcheck")
_STDLIB = sysconfig.get_paths()["stdlib"]


def plain(exc: BaseException) -> BaseException:
    """Mark ``exc`` to be reported as its message alone (the traceback is the plugin's)."""
    exc.jitcheck_plain = True  # type: ignore[attr-defined]
    return exc


def _user_frame(tb: TracebackType | None) -> str:
    """Return ``file:line`` of the innermost traceback entry outside JAX and pytest."""
    where = ""
    while tb is not None:
        module = tb.tb_frame.f_globals.get("__name__", "")
        filename = tb.tb_frame.f_code.co_filename
        if not module.startswith(_NOT_USER) and not filename.startswith(_STDLIB):
            where = f"{short_path(tb.tb_frame.f_code.co_filename)}:{tb.tb_lineno}"
        tb = tb.tb_next
    return where


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


class TestCheck:
    """Run one test under compile accounting and leak checking."""

    __test__ = False  # not a test class, despite the name

    def __init__(self, nodeid: str, settings: Settings, marker: MarkerOptions) -> None:
        self.nodeid = nodeid
        self.settings = settings
        self.max_compiles = marker.max_compiles
        if marker.leaks is not None:
            self.leaks = marker.leaks
        else:
            self.leaks = settings.leaks if settings.enabled else "off"
        # The fast leak check needs the recorder too: its events keep the functions
        # jitted during the test alive until the check, so tracers leaked into their
        # closures are still found.
        self.account = settings.enabled or marker.max_compiles is not None or self.leaks == "fast"
        self.recorder = CompileRecorder()
        self._scan: LeakScan | None = None
        self._stack = contextlib.ExitStack()

    def start(self) -> None:
        """Start accounting and leak checking (before fixtures are set up)."""
        if self.account:
            self.recorder.start()
        if self.leaks in ("fast", "strict"):
            # Strict mode adds JAX's own checker (tracers that die with the test) to the
            # scan (which also finds tracers leaked out of jax.grad, which JAX's misses).
            self._scan = LeakScan()
            self._scan.start()
        if self.leaks == "strict":
            import jax

            self._stack.enter_context(jax.checking_leaks())

    def stop(self) -> None:
        """Stop everything started; safe to call twice (teardown calls it again)."""
        self.recorder.stop()
        if self._scan is not None:
            self._scan.stop()
            self._scan = None
        self._stack.close()

    @property
    def events(self) -> list[CompileEvent]:
        """Return the compilations recorded for this test."""
        return self.recorder.events

    def translate(self, exc: BaseException) -> BaseException | None:
        """Return a ``[jitcheck]`` error for a tracer-leak exception raised by JAX."""
        import jax

        text = str(exc)
        if isinstance(exc, jax.errors.UnexpectedTracerError) or (
            type(exc) is Exception and text.startswith("Leaked ")
        ):
            head = f"{PREFIX} tracer leak in {self.nodeid}: a tracer escaped its jitted function"
            where = _user_frame(exc.__traceback__)
            if where and text.startswith("Leaked "):
                head += f" (found by JAX's leak checker in a trace started at {where})"
            elif where:
                head += f" and was used at {where}"
            body = "\n".join("  " + line for line in text.strip().splitlines())
            return plain(TracerLeakError(f"{head}\n{body}"))
        return None

    def check_after_call(self) -> None:
        """Fail the test for a leak or a compile limit; warn about recompilations."""
        __tracebackhide__ = True
        scan, self._scan = self._scan, None
        self.stop()
        if scan is not None:
            leaked = scan.finish()
            if leaked:
                message = describe_leaks(leaked, self.nodeid)
                del leaked
                raise plain(TracerLeakError(message))
        events = self.events
        if self.max_compiles is not None and len(events) > self.max_compiles:
            lines = [
                f"{PREFIX} {self.nodeid} compiled {_plural(len(events), 'time')}, more than "
                f"@pytest.mark.jitcheck(max_compiles={self.max_compiles}) allows:"
            ]
            lines.extend(format_events(events))
            raise plain(CompileCountError("\n".join(lines)))
        if self.settings.enabled:
            self._warn_recompiles(events)

    def _warn_recompiles(self, events: list[CompileEvent]) -> None:
        __tracebackhide__ = True
        wasteful(events)
        growth.current().observe(self.nodeid, events)
        by_key: dict[str, list[CompileEvent]] = {}
        for e in events:
            if not e.derived:  # a backward pass is another computation, not a cache miss
                by_key.setdefault(e.key, []).append(e)
        limit = self.settings.max_recompiles
        for same in by_key.values():
            first = same[0]
            flagged = [e for e in same if e.wasteful]
            if flagged:
                head = (
                    f"{PREFIX} wasteful recompilation of {first.name} in {self.nodeid}: "
                    f"{'; '.join(dict.fromkeys(e.wasteful for e in flagged))}:"
                )
            elif limit is not None and len(same) > limit:
                head = (
                    f"{PREFIX} {first.name} compiled {len(same)} times in {self.nodeid} "
                    f"(limit {limit}, set by --jitcheck-max-recompiles):"
                )
            else:
                continue
            message = "\n".join([head, *format_events(same)])
            try:
                warn(RecompileWarning(message), first.location)
            except RecompileWarning as exc:  # a filter naming it made it an error
                raise plain(exc) from None


def wasteful(events: list[CompileEvent]) -> list[str]:
    """Mark (and return the reasons of) the recompilations of a test that were avoidable.

    Avoidable: the same abstract signature compiled again (a cleared cache, a config
    flip-flop), a fresh function object for the same code, with equal captured values,
    compiled with a signature an earlier copy compiled in the same test
    (``jax.jit(lambda ...)`` in a loop), a static value that hashes by identity, and a
    second weak-type-only recompilation of the same argument (Python scalars and arrays
    alternating). Each needs an earlier compilation of the same function in the same
    test: what a test builds afresh (a function, a static object, a cleared cache in a
    fixture) is no waste against another test's compilation, whose objects died with it;
    copies that pile up across tests are :mod:`~pytest_jitcheck.accounting.growth`'s.
    """
    reasons: list[str] = []
    weak_seen: set[tuple[str, str]] = set()
    copies: dict[tuple[str, str, str], int] = {}
    compiled: set[str] = set()
    for e in events:
        if e.eager or e.derived:
            continue
        earlier = id(e.function)
        if e.function is not None:
            try:
                copy = (e.key, str(e.signature), growth.fingerprint(e.function))
                earlier = copies.setdefault(copy, id(e.function))
            except Exception:
                pass
        here_before = e.key in compiled
        compiled.add(e.key)
        if e.first or not here_before:
            continue
        kinds = {c.kind for c in e.changes}
        reason = ""
        if kinds == {ChangeKind.SAME_SIGNATURE}:
            reason = "compiled again with an abstract signature it had already compiled"
        elif kinds == {ChangeKind.NEW_FUNCTION}:
            if earlier != id(e.function):
                reason = (
                    "a fresh function object for the same code, with a signature already compiled"
                )
        elif ChangeKind.STATIC_IDENTITY in kinds:
            reason = "a static argument that hashes by identity (a new object each call)"
        elif kinds == {ChangeKind.WEAK_TYPE}:
            paths = {(e.key, c.path) for c in e.changes}
            if paths & weak_seen:
                reason = "weak-type flip-flop (Python scalars and typed arrays alternating)"
            weak_seen |= paths
        if reason:
            e.wasteful = reason
            reasons.append(reason)
    return reasons


def warn(warning: JitcheckWarning, location: str) -> None:
    """Issue ``warning`` at ``location`` (``file:line``) under the rule in the module doc."""
    filename, _, line = location.rpartition(":")
    category = type(warning)
    explicit = any(
        isinstance(cls, type) and issubclass(cls, JitcheckWarning) and issubclass(category, cls)
        for _, _, cls, _, _ in warnings.filters
    )
    with warnings.catch_warnings():
        if not explicit:
            warnings.simplefilter("always", JitcheckWarning)
        warnings.warn_explicit(
            warning, category, filename or "<unknown>", int(line) if line.isdigit() else 0
        )


def event_json(events: list[CompileEvent]) -> list[dict[str, Any]]:
    """Return the JSON form of a test's events."""
    return [e.to_json() for e in events]
