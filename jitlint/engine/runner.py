"""Lint or fix many files: read them, consult the cache, and fan the rest out to a pool."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jitlint.engine import parallel
from jitlint.engine.cache import Cache
from jitlint.engine.discovery import discover
from jitlint.engine.fixing import FixOutcome, fix_source
from jitlint.engine.lint import lint_source, mentions_jax
from jitlint.engine.settings import Settings
from jitlint.model import FileResult


@dataclass
class Loaded:
    """The files of a run: their bytes in discovery order, and the results known already."""

    items: list[tuple[str, bytes]]
    ready: dict[int, FileResult]  # index into the run's order -> result (errors, skips)
    order: list[str]


def load(paths: Sequence[str], settings: Settings) -> Loaded:
    """Discover and read the files under ``paths``; bad paths become error results."""
    items: list[tuple[str, bytes]] = []
    ready: dict[int, FileResult] = {}
    order: list[str] = []
    for path, error in discover(paths, settings):
        index = len(order)
        order.append(path)
        if error is not None:
            ready[index] = FileResult(path, errors=[error])
            items.append((path, b""))
            continue
        try:
            items.append((path, Path(path).read_bytes()))
        except OSError as err:
            ready[index] = FileResult(path, errors=[f"{path}: {err.strerror or err}"])
            items.append((path, b""))
    return Loaded(items, ready, order)


def _lint_job(state: dict[str, Any], name: str, source: bytes) -> FileResult:
    result: FileResult = lint_source(name, source, state["settings"])
    return result


def _fix_job(state: dict[str, Any], name: str, source: bytes) -> FixOutcome:
    return fix_source(name, source, state["settings"], unsafe=state["unsafe"])


def lint_paths(
    paths: Sequence[str], settings: Settings, cache: Cache | None, jobs: int | None = None
) -> list[FileResult]:
    """Lint every file under ``paths``; results come in discovery order."""
    loaded = load(paths, settings)
    results: list[FileResult | None] = [None] * len(loaded.order)
    todo: list[tuple[int, str, bytes, str | None]] = []
    for index, (name, source) in enumerate(loaded.items):
        if index in loaded.ready:
            results[index] = loaded.ready[index]
        elif not mentions_jax(source, settings):
            results[index] = FileResult(name, skipped=True)
        else:
            key = cache.key(name, source) if cache is not None else None
            hit = cache.get(key, name) if cache is not None and key is not None else None
            if hit is not None:
                results[index] = hit
            else:
                todo.append((index, name, source, key))
    workers = parallel.workers_for([len(t[2]) for t in todo], jobs)
    fresh = parallel.map_files(
        _lint_job, [(t[1], t[2]) for t in todo], {"settings": settings}, workers
    )
    for (index, _, _, key), result in zip(todo, fresh, strict=True):
        results[index] = result
        if cache is not None and key is not None:
            cache.put(key, result)
    return [r for r in results if r is not None]


def fix_paths(
    paths: Sequence[str], settings: Settings, *, unsafe: bool, jobs: int | None = None
) -> tuple[list[FileResult], list[FixOutcome]]:
    """Fix every file under ``paths`` in memory; return error results and the outcomes."""
    loaded = load(paths, settings)
    errors = [loaded.ready[i] for i in sorted(loaded.ready)]
    todo = [item for i, item in enumerate(loaded.items) if i not in loaded.ready]
    workers = parallel.workers_for([len(src) for _, src in todo], jobs)
    state = {"settings": settings, "unsafe": unsafe}
    return errors, parallel.map_files(_fix_job, todo, state, workers)
