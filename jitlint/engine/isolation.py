"""Check files in worker processes that may die: one file's crash or hang never stops the run.

A native parser can crash the process on some inputs, and a pathological file can run for
minutes. Each worker takes one file at a time over a pipe; a worker that dies (a signal, the
out-of-memory killer) or passes a file's time limit is replaced, and that file gets a
failure the caller turns into a JIT901/JIT902 finding. The other files are unaffected.
"""

from __future__ import annotations

import contextlib
import faulthandler
import multiprocessing
import signal
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any, Generic, TypeVar

T = TypeVar("T")
Job = Callable[[dict[str, Any], str, bytes], T]


@dataclass(frozen=True)
class Failure:
    """Why a file produced no result: ``crash`` or ``timeout``, and a short detail."""

    kind: str
    detail: str


def _serve(conn: Connection, fn: Job[Any], state: dict[str, Any]) -> None:
    # A crash is reported as one line by the parent; a fault dump here would be noise.
    faulthandler.disable()
    while True:
        try:
            job = conn.recv()
        except (EOFError, KeyboardInterrupt):
            return
        if job is None:
            return
        index, name, source = job
        conn.send((index, fn(state, name, source)))


class _Worker(Generic[T]):
    def __init__(self, ctx: Any, fn: Job[T], state: dict[str, Any]) -> None:
        self.conn, child = multiprocessing.Pipe()
        self.process = ctx.Process(target=_serve, args=(child, fn, state), daemon=True)
        self.process.start()
        child.close()
        self.index: int | None = None
        self.deadline = 0.0

    def give(self, index: int, name: str, source: bytes, timeout: float) -> None:
        self.index = index
        self.deadline = time.monotonic() + timeout if timeout > 0 else float("inf")
        self.conn.send((index, name, source))

    def stop(self, kill: bool = False) -> None:
        if kill:
            self.process.kill()
        else:
            with contextlib.suppress(OSError):
                self.conn.send(None)
        self.process.join(5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.conn.close()


def _death(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            return f"killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    return f"exited with status {exitcode}"


def map_isolated(
    fn: Job[T],
    items: Sequence[tuple[str, bytes]],
    state: dict[str, Any],
    workers: int,
    timeouts: Sequence[float],
) -> list[T | Failure]:
    """Return ``fn(state, name, source)`` for each item, or a ``Failure``, in input order.

    ``fn`` must be a module-level function; ``timeouts[i]`` bounds item ``i`` (0: none).
    """
    if not items:
        return []
    # fork starts workers with jitlint already imported; elsewhere the default is safe.
    ctx = multiprocessing.get_context("fork" if sys.platform == "linux" else None)
    todo = sorted(range(len(items)), key=lambda i: -len(items[i][1]))  # largest first
    out: dict[int, T | Failure] = {}
    pool: list[_Worker[T]] = [_Worker(ctx, fn, state) for _ in range(min(workers, len(todo)))]

    def feed(worker: _Worker[T]) -> None:
        if todo:
            i = todo.pop(0)
            worker.give(i, items[i][0], items[i][1], timeouts[i])
        else:
            worker.index = None

    def replace(worker: _Worker[T], failure: Failure, kill: bool) -> None:
        assert worker.index is not None
        out[worker.index] = failure
        worker.stop(kill=kill)
        pool.remove(worker)
        if todo:
            fresh = _Worker(ctx, fn, state)
            pool.append(fresh)
            feed(fresh)

    try:
        for worker in pool:
            feed(worker)
        while any(w.index is not None for w in pool):
            busy = [w for w in pool if w.index is not None]
            wait_for = max(0.0, min(w.deadline for w in busy) - time.monotonic())
            ready = wait(
                [w.conn for w in busy] + [w.process.sentinel for w in busy],
                timeout=min(wait_for, 3600.0),
            )
            for worker in busy:
                if worker.conn in ready or worker.process.sentinel in ready:
                    try:
                        if worker.conn.poll():
                            index, result = worker.conn.recv()
                            out[index] = result
                            feed(worker)
                            continue
                    except (EOFError, OSError):
                        pass
                    worker.process.join(5)
                    replace(worker, Failure("crash", _death(worker.process.exitcode)), False)
                elif time.monotonic() >= worker.deadline:
                    seconds = timeouts[worker.index] if worker.index is not None else 0
                    replace(worker, Failure("timeout", f"{seconds:g} s"), True)
    finally:
        for worker in pool:
            worker.stop(kill=worker.index is not None)
    return [out[i] for i in range(len(items))]
