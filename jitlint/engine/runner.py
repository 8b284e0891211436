"""Lint or fix many files: read them, consult the cache, and fan the rest out to a pool."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jitlint.analysis.project import Project, stderr_warning
from jitlint.engine import parallel, project_cache, project_mode
from jitlint.engine.cache import Cache
from jitlint.engine.discovery import discover
from jitlint.engine.fixing import FixOutcome
from jitlint.engine.isolation import Failure
from jitlint.engine.lint import mentions_jax
from jitlint.engine.notebook import fix_any, lint_any
from jitlint.engine.settings import Settings, SettingsFor, settings_getter
from jitlint.model import FileResult, Finding, Location
from jitlint.rules import file_rules as filerules

Overlay = Mapping[str, bytes]


@dataclass
class Loaded:
    """The files of a run: their bytes in discovery order, and the results known already."""

    items: list[tuple[str, bytes]]
    ready: dict[int, FileResult]  # index into the run's order -> result (errors, skips)
    order: list[str]


def load(
    paths: Sequence[str], settings: Settings | SettingsFor, overlay: Overlay | None = None
) -> Loaded:
    """Discover and read the files under ``paths``; bad paths become error results.

    A file in ``overlay`` (absolute path -> bytes) is read from there, not from disk.
    """
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
        held = overlay.get(os.path.abspath(path)) if overlay else None
        if held is not None:
            items.append((path, held))
            continue
        try:
            items.append((path, Path(path).read_bytes()))
        except OSError as err:
            ready[index] = FileResult(path, errors=[f"{path}: {err.strerror or err}"])
            items.append((path, b""))
    return Loaded(items, ready, order)


def _lint_job(state: dict[str, Any], name: str, source: bytes) -> FileResult:
    result: FileResult = lint_any(name, source, state["settings"][name])
    return result


def _fix_job(state: dict[str, Any], name: str, source: bytes) -> FixOutcome:
    return fix_any(name, source, state["settings"][name], unsafe=state["unsafe"])


def lint_paths(
    paths: Sequence[str],
    settings: Settings | SettingsFor,
    cache: Cache | None,
    jobs: int | None = None,
    *,
    project: bool = False,
    overlay: Overlay | None = None,
) -> list[FileResult]:
    """Lint every file under ``paths``; results come in discovery order.

    ``overlay`` maps absolute paths to unsaved contents (an editor's open documents): the
    files linted, and in project mode the modules the analysis reads, are read from it first.

    With ``project`` each file is analysed as part of its project: calls into
    the project's other modules are followed, and modules importing the files asked for are
    read for the entry points that reach them. Findings are reported for ``paths`` only.
    """
    settings_for = settings_getter(settings)
    if project:
        return _lint_projects(paths, settings_for, cache, jobs, overlay)
    return _lint_files(paths, settings_for, cache, jobs, overlay)


def _lint_files(
    paths: Sequence[str],
    settings_for: SettingsFor,
    cache: Cache | None,
    jobs: int | None,
    overlay: Overlay | None = None,
) -> list[FileResult]:
    loaded = load(paths, settings_for, overlay)
    results: list[FileResult | None] = [None] * len(loaded.order)
    todo: list[tuple[int, str, bytes, str | None]] = []
    for index, (name, source) in enumerate(loaded.items):
        if index in loaded.ready:
            results[index] = loaded.ready[index]
        elif not mentions_jax(source, settings_for(name)):
            results[index] = FileResult(name, skipped=True)
        else:
            key = cache.key(name, source, settings_for(name)) if cache is not None else None
            hit = cache.get(key, name) if cache is not None and key is not None else None
            if hit is not None:
                results[index] = hit
            else:
                todo.append((index, name, source, key))
    workers = parallel.workers_for([len(t[2]) for t in todo], jobs)
    fresh = parallel.map_files(
        _lint_job,
        [(t[1], t[2]) for t in todo],
        {"settings": {t[1]: settings_for(t[1]) for t in todo}},
        workers,
        [settings_for(t[1]).timeout_seconds for t in todo],
    )
    for (index, name, _, key), result in zip(todo, fresh, strict=True):
        if isinstance(result, Failure):
            results[index] = failed(name, result, settings_for(name))
            continue  # not cached: the next run tries again
        results[index] = result
        if cache is not None and key is not None:
            cache.put(key, result)
    return [r for r in results if r is not None]


def fix_paths(
    paths: Sequence[str],
    settings: Settings | SettingsFor,
    *,
    unsafe: bool,
    jobs: int | None = None,
) -> tuple[list[FileResult], list[FixOutcome]]:
    """Fix every file under ``paths`` in memory; return error results and the outcomes."""
    settings_for = settings_getter(settings)
    loaded = load(paths, settings_for)
    errors = [loaded.ready[i] for i in sorted(loaded.ready)]
    todo = [item for i, item in enumerate(loaded.items) if i not in loaded.ready]
    workers = parallel.workers_for([len(src) for _, src in todo], jobs)
    state = {"settings": {name: settings_for(name) for name, _ in todo}, "unsafe": unsafe}
    timeouts = [settings_for(name).timeout_seconds for name, _ in todo]
    outcomes = []
    for (name, source), out in zip(
        todo, parallel.map_files(_fix_job, todo, state, workers, timeouts), strict=True
    ):
        if isinstance(out, Failure):
            out = FixOutcome(source, source, 0, failed(name, out, settings_for(name)))
        outcomes.append(out)
    return errors, outcomes


def lint_isolated(name: str, source: bytes, settings: Settings) -> FileResult:
    """Lint one file's bytes (stdin) in a worker process, like every file of a run."""
    state = {"settings": {name: settings}}
    [out] = parallel.map_files(_lint_job, [(name, source)], state, 1, [settings.timeout_seconds])
    return failed(name, out, settings) if isinstance(out, Failure) else out


def failed(name: str, failure: Failure, settings: Settings) -> FileResult:
    """Return the result of a file whose worker crashed or ran out of time."""
    if failure.kind == "timeout":
        rule, message = (
            filerules.TIMEOUT,
            f"could not be analysed: timed out after {failure.detail}",
        )
    else:
        rule = filerules.PARSER_CRASH
        message = f"could not be analysed: parser crashed ({failure.detail})"
    if rule.code not in settings.codes_for(name):
        return FileResult(name)
    loc = Location(1, 1)
    return FileResult(name, [Finding(rule.code, rule.name, message, name, loc, loc)])


def _lint_projects(
    paths: Sequence[str],
    settings_for: SettingsFor,
    cache: Cache | None,
    jobs: int | None,
    overlay: Overlay | None = None,
) -> list[FileResult]:
    """Lint the Python files as parts of their projects (calls followed across modules, trace
    paths); notebooks, files over the size limit and files whose project walk failed are
    linted alone, each in a worker process."""
    loaded = load(paths, settings_for, overlay)
    results: list[FileResult | None] = [None] * len(loaded.order)
    alone: list[str] = []
    pending: dict[str, int] = {}
    for index, (name, source) in enumerate(loaded.items):
        limit = settings_for(name).max_file_bytes
        if index in loaded.ready:
            results[index] = loaded.ready[index]
        elif name.endswith(".py") and not (limit and len(source) > limit):
            pending[name] = index
        else:
            alone.append(name)
    for root, names in project_mode.group_by_root(list(pending)).items():
        settings = settings_for(names[0])  # one project, one analysis: its first file's config
        proj = project_mode.make_project(root, names, settings)
        # The analysis reads the project's files from the overlay before the disk.
        top = os.path.join(os.path.abspath(root), "")
        proj.sources.update({k: v for k, v in (overlay or {}).items() if k.startswith(top)})
        if cache is not None and not overlay:
            found_by = _lint_project_cached(proj, names, settings, settings_for, cache, jobs)
        else:
            sources = [(n, loaded.items[pending[n]][1]) for n in names]
            extra = project_mode.importers(proj, names, settings)
            workers = parallel.workers_for([len(src) for _, src in sources], jobs)
            fresh = project_mode.lint_project(proj, sources, settings, extra, workers)
            found_by = {os.path.abspath(n): r for n, r in zip(names, fresh, strict=True)}
        for name in names:
            if os.path.abspath(name) in proj.failed:
                alone.append(name)  # its worker crashed: lint it alone, isolated
            else:
                results[pending[name]] = found_by[os.path.abspath(name)]
        for message in proj.warnings:
            stderr_warning(message)
    if alone:
        where = {name: i for i, name in enumerate(loaded.order)}
        for result in _lint_files(alone, settings_for, cache, jobs, overlay):
            if result.filename in where:
                results[where[result.filename]] = result
    return [r for r in results if r is not None]


def _lint_project_cached(
    proj: Project,
    names: list[str],
    settings: Settings,
    settings_for: SettingsFor,
    cache: Cache,
    jobs: int | None,
) -> dict[str, FileResult]:
    """Lint one project's files, analysing again only the groups of modules an edit reaches."""
    readers: list[str] = []

    def lint(
        project: Project, items: list[tuple[str, bytes]], extra: list[str]
    ) -> list[FileResult]:
        if not readers:  # the modules importing the files asked for, read once per run
            readers.extend(project_mode.importers(project, names, settings) or [""])
        units = sorted({*extra, *(r for r in readers if r)})
        workers = parallel.workers_for([len(src) for _, src in items], jobs)
        return project_mode.lint_project(project, items, settings, units, workers)

    def codes_key(name: str) -> str:
        return cache.key(name, b"", settings_for(name))

    return project_cache.lint_incremental(proj, names, settings, cache, lint, codes_key)
