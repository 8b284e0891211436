"""``jitlint --watch``: lint, then lint again whenever a Python file or pyproject.toml changes."""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from watchfiles import Change, DefaultFilter
from watchfiles import watch as watch_changes

DEBOUNCE_MS = 200  # editors write a file in several steps; wait for them to settle


class SourceFilter(DefaultFilter):
    """Pass changes to Python sources and pyproject.toml, outside caches and environments."""

    def __call__(self, change: Change, path: str) -> bool:
        name = Path(path).name
        if not (name.endswith((".py", ".pyi")) or name == "pyproject.toml"):
            return False
        return ".jitlint_cache" not in Path(path).parts and super().__call__(change, path)


def watch(
    paths: Sequence[str],
    run_once: Callable[[], int],
    stop: threading.Event | None = None,
) -> int:
    """Call ``run_once`` now and after every batch of changes under ``paths``; 0 on Ctrl-C."""
    missing = [p for p in paths if not Path(p).exists()]
    if missing:
        print(f"jitlint: error: {missing[0]}: No such file or directory", file=sys.stderr)
        return 2
    # Ctrl-C while linting stops as quietly as Ctrl-C while waiting.
    with contextlib.suppress(KeyboardInterrupt):
        _loop(paths, run_once, stop)
    return 0


def _loop(paths: Sequence[str], run_once: Callable[[], int], stop: threading.Event | None) -> None:
    run_once()
    _waiting()
    for changes in watch_changes(
        *paths,
        watch_filter=SourceFilter(),
        debounce=DEBOUNCE_MS,
        stop_event=stop,
        raise_interrupt=False,
    ):
        names = sorted({Path(p).name for _, p in changes})
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        print(f"[{time.strftime('%H:%M:%S')}] {shown} changed; checking again", file=sys.stderr)
        run_once()
        _waiting()


def _waiting() -> None:
    print("Watching for file changes (Ctrl-C to stop).", file=sys.stderr, flush=True)
    sys.stdout.flush()
