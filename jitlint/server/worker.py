"""Run analyses in a separate process, so the server's event loop never waits on one.

One worker process does the linting: a crash of the parser takes down the worker, not the
server, and a run that exceeds its time limit is interrupted inside the worker. The process is
started with ``spawn`` (no fork of a threaded server) and restarted after a crash.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from jitlint import (
    FileResult,
    FixOutcome,
    Session,
    Settings,
    fix_source,
    lint_paths,
    lint_source,
)

log = logging.getLogger("jitlint.server")
T = TypeVar("T")
DEFAULT_TIME_LIMIT = 60.0


class AnalysisTimeout(BaseException):
    """Raised inside the worker when one analysis runs past its limit.

    A ``BaseException`` so that the engine's per-file ``except Exception`` does not swallow it.
    """


class WorkerCrashed(Exception):
    """The worker process died while analysing (e.g. the parser crashed)."""


def _on_alarm(signum: int, frame: object) -> None:
    raise AnalysisTimeout


def _limited(limit: float, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Call ``fn`` with a wall-clock limit where the platform has interval timers."""
    if not hasattr(signal, "setitimer"):
        return fn(*args, **kwargs)
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        return fn(*args, **kwargs)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


# Per open document (by URI), in the worker process: what the engine keeps between versions,
# so that an edit re-parses only the statements it changed.
_SESSIONS: OrderedDict[str, Session] = OrderedDict()
MAX_SESSIONS = 64


def _session(key: str) -> Session:
    session = _SESSIONS.pop(key, None) or Session()
    _SESSIONS[key] = session
    while len(_SESSIONS) > MAX_SESSIONS:
        _SESSIONS.popitem(last=False)
    return session


def _lint_job(
    limit: float, text: str, filename: str, settings: Settings, key: str | None = None
) -> FileResult:
    session = _session(key) if key is not None else None
    try:
        return _limited(
            limit, lint_source, text, filename=filename, settings=settings, session=session
        )
    except AnalysisTimeout:
        if key is not None:
            _SESSIONS.pop(key, None)  # interrupted: the next version starts afresh
        return FileResult(filename, errors=[f"{filename}: analysis stopped after {limit:g} s"])


def _forget_job(limit: float, key: str) -> None:
    _SESSIONS.pop(key, None)


def _fix_job(limit: float, text: str, filename: str, settings: Settings) -> FixOutcome | None:
    try:
        return _limited(limit, fix_source, text, filename=filename, settings=settings)
    except AnalysisTimeout:
        return None


def _paths_job(
    limit: float,
    paths: Sequence[str],
    settings: Settings,
    project: bool = False,
    overlay: Mapping[str, str] | None = None,
) -> list[FileResult]:
    try:
        return _limited(
            limit, lint_paths, paths, settings=settings, project=project, overlay=overlay
        )
    except AnalysisTimeout:
        return [FileResult(paths[0], errors=[f"{paths[0]}: analysis stopped after {limit:g} s"])]


def _ready() -> bool:
    return True


def _follow_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(0)  # the server is gone (killed, not shut down): nothing is left to do


def _init_worker() -> None:
    """End the worker with the server, even when the server could not say goodbye."""
    threading.Thread(target=_follow_parent, args=(os.getppid(),), daemon=True).start()


class Worker:
    """Own the analysis process: submit jobs, restart it when it dies."""

    def __init__(self, time_limit: float = DEFAULT_TIME_LIMIT) -> None:
        self.time_limit = time_limit
        self._pool: ProcessPoolExecutor | None = None

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_init_worker,
            )
        return self._pool

    def start(self) -> None:
        """Start the process now, so that the first analysis does not pay its start-up."""
        self._executor().submit(_ready)

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        try:
            future: Future[T] = self._executor().submit(fn, self.time_limit, *args)
            return await asyncio.wrap_future(future)
        except BrokenProcessPool as err:
            self._discard()
            raise WorkerCrashed(str(err) or "the analysis process died") from None

    def _discard(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    async def lint(
        self, text: str, filename: str, settings: Settings, key: str | None = None
    ) -> FileResult:
        """Lint one document's text; ``key`` names the document whose earlier versions the
        worker may reuse parses from."""
        return await self._run(_lint_job, text, filename, settings, key)

    def forget(self, key: str) -> None:
        """Drop what the worker keeps for a closed document (if the worker is running)."""
        if self._pool is not None:
            # A dead worker keeps nothing; the next lint starts a new one.
            with contextlib.suppress(BrokenProcessPool, RuntimeError):
                self._pool.submit(_forget_job, self.time_limit, key)

    async def fix(self, text: str, filename: str, settings: Settings) -> FixOutcome | None:
        """Apply every safe fix to one document's text; None if it took too long."""
        return await self._run(_fix_job, text, filename, settings)

    async def lint_paths(
        self,
        paths: Sequence[str],
        settings: Settings,
        project: bool = False,
        overlay: Mapping[str, str] | None = None,
    ) -> list[FileResult]:
        """Lint every Python file under ``paths`` (as parts of their projects if asked),
        reading the files ``overlay`` names (path -> unsaved text) from it."""
        return await self._run(_paths_job, list(paths), settings, project, dict(overlay or {}))

    def close(self) -> None:
        """Stop the process without waiting for a running analysis."""
        self._discard()
