"""Spread per-file work over a process pool when there is enough of it to pay for the pool."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

# Below this many files a pool costs more (start-up, pickling) than it saves.
MIN_FILES = 16
_MIN_BYTES = 200_000

_STATE: dict[str, Any] = {}


def cpu_count() -> int:
    """Return the CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def workers_for(sizes: Sequence[int], jobs: int | None = None) -> int:
    """Return how many processes to use for files of these sizes (1 = stay in-process)."""
    if jobs is not None:
        return max(1, jobs)
    if len(sizes) < MIN_FILES or sum(sizes) < _MIN_BYTES:
        return 1
    return max(1, min(cpu_count(), len(sizes) // MIN_FILES + 1))


def _init(state: dict[str, Any]) -> None:
    _STATE.update(state)


def _call(fn: Callable[[dict[str, Any], str, bytes], T], name: str, source: bytes) -> T:
    return fn(_STATE, name, source)


def map_files(
    fn: Callable[[dict[str, Any], str, bytes], T],
    items: Sequence[tuple[str, bytes]],
    state: dict[str, Any],
    workers: int,
) -> list[T]:
    """Return ``[fn(state, name, source) for name, source in items]``, in input order.

    ``fn`` must be a module-level function; ``state`` is sent to each worker once.
    """
    if workers <= 1 or len(items) < 2:
        return [fn(state, name, source) for name, source in items]
    # Imported here: a warm run (everything cached) never needs a pool, and these imports
    # are a noticeable part of its start-up.
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # Largest files first, so no worker is left with one big file at the end.
    order = sorted(range(len(items)), key=lambda i: -len(items[i][1]))
    # fork starts workers with jitlint already imported; elsewhere the default is safe.
    method = "fork" if sys.platform == "linux" else None
    with ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context(method),
        initializer=_init,
        initargs=(state,),
    ) as pool:
        done = pool.map(
            _call,
            [fn] * len(order),
            [items[i][0] for i in order],
            [items[i][1] for i in order],
            chunksize=4,
        )
        results = dict(zip(order, done, strict=True))
    return [results[i] for i in range(len(items))]
