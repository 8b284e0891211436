"""Spread per-file work over worker processes: several when there is enough work to pay."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from jitlint.engine.isolation import Failure, map_isolated

T = TypeVar("T")

# Below this many files a pool costs more (start-up, pickling) than it saves.
MIN_FILES = 16
_MIN_BYTES = 200_000


def cpu_count() -> int:
    """Return the CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def workers_for(sizes: Sequence[int], jobs: int | None = None) -> int:
    """Return how many worker processes to use for files of these sizes (0: this process)."""
    if jobs is not None:
        return max(0, jobs)
    if len(sizes) < MIN_FILES or sum(sizes) < _MIN_BYTES:
        return 1
    return max(1, min(cpu_count(), len(sizes) // MIN_FILES + 1))


def map_files(
    fn: Callable[[dict[str, Any], str, bytes], T],
    items: Sequence[tuple[str, bytes]],
    state: dict[str, Any],
    workers: int,
    timeouts: Sequence[float] | None = None,
) -> list[T | Failure]:
    """Return ``[fn(state, name, source) for name, source in items]``, in input order.

    With ``workers >= 1`` each file is checked in a worker process (see ``jitlint.isolation``),
    so a crash or a hang becomes that file's ``Failure``; ``workers == 0`` runs in this process
    (for hosts that cannot start processes). ``fn`` must be a module-level function.
    """
    if workers <= 0:
        return [fn(state, name, source) for name, source in items]
    return map_isolated(fn, items, state, workers, timeouts or [0.0] * len(items))
