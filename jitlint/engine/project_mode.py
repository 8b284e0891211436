"""Lint files as parts of their projects: calls followed across modules, findings per path.

The files asked for are grouped by project root. Each group is analysed together with the
project modules that (transitively) import one of them, because a jitted step in `train.py`
is what makes `model.py`'s helper traced; the modules its calls reach are read on demand.
Findings are reported only for the files asked for.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import libcst as cst

from jitlint.analysis.analyzer import MAX_ANALYSES, Analysis, RawFinding, TraceRef
from jitlint.analysis.project import Project
from jitlint.analysis.project_index import (
    ProjectIndex,
    find_root,
    imported_modules,
    is_package_file,
)
from jitlint.analysis.scopes import forget_scopes
from jitlint.engine.lint import (
    _RECURSION_LIMIT,
    _locate,
    default_rules,
    lint_source,
    mentions_jax,
)
from jitlint.engine.noqa import FILE_NOQA, filter_noqa
from jitlint.engine.positions import locate
from jitlint.engine.settings import Settings
from jitlint.model import FileResult, Finding, Location, TraceStep
from jitlint.rules import file_rules as filerules
from jitlint.rules.base import Rule

_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py")
MAX_HOPS = 2  # import steps from a linted file to the modules read for its entry points
MAX_IMPORTERS = 16


def _has_marker(root: Path) -> bool:
    return any((root / m).is_file() for m in _MARKERS)


def make_project(root: Path, targets: Sequence[str], settings: Settings) -> Project:
    """Return the project at ``root`` set up to lint ``targets`` with ``settings``."""
    index = ProjectIndex(root)
    packages = None
    if not _has_marker(root):
        # A directory of installed packages: only the packages being linted are the project.
        packages = frozenset(index.module_name(t).split(".", 1)[0] for t in targets)
    rules = default_rules()

    def rules_for(path: str) -> list[Rule]:
        codes = settings.codes_for(path)
        return [r for r in rules if r.code in codes]

    return Project(index, rules_for, settings.extend_jit_wrappers, packages)


def group_by_root(paths: Sequence[str]) -> dict[Path, list[str]]:
    """Group file paths by the root of the project each belongs to."""
    groups: dict[Path, list[str]] = {}
    roots: dict[str, Path] = {}
    for path in paths:
        directory = os.path.dirname(os.path.abspath(path))
        if directory not in roots:
            roots[directory] = find_root(path)
        groups.setdefault(roots[directory], []).append(path)
    return groups


def importers(project: Project, targets: Sequence[str], settings: Settings) -> list[str]:
    """Return the project files that import a target, directly or through other modules.

    Only files that can start a trace (they mention JAX or a configured wrapper) are read
    for their imports; the others cannot make a target traced.
    """
    index = project.index
    wanted = {os.path.abspath(t) for t in targets}
    edges: dict[str, set[str]] = {}  # imported file -> files importing it
    for path in index.files(project.packages):
        full = str(path)
        if full in wanted:
            continue
        if project.packages is not None:
            top = index.module_name(full).split(".", 1)[0]
            if top not in project.packages:
                continue
        data = project.sources.get(full)  # an editor's unsaved text, if it has one
        if data is None:
            try:
                data = project.sources[full] = path.read_bytes()
            except OSError:
                continue
        if not mentions_jax(data, settings):
            continue
        name = index.module_name(full)
        for module in imported_modules(data, name, is_package_file(full)):
            if project.packages is not None and module.split(".", 1)[0] not in project.packages:
                continue
            found = index.find_module(module, full)
            if found is not None and found.is_file():
                edges.setdefault(str(found), set()).add(full)
    if index.truncated:
        project.warn(f"{index.root}: project larger than the file bound; importers not all read")
    # Nearest importers first, a bounded number of them: in a library every module is
    # imported by many, and entry points sit close to the code they trace.
    seen: set[str] = set()
    layer = sorted(wanted)
    for _ in range(MAX_HOPS):
        nxt = sorted(
            {i for m in layer for i in edges.get(m, ()) if i not in seen and i not in wanted}
        )
        if len(seen) + len(nxt) > MAX_IMPORTERS:
            project.warn(
                f"more than {MAX_IMPORTERS} modules import the files linted; only the nearest "
                "are read for entry points (lint the whole project to see every path)"
            )
            nxt = nxt[: MAX_IMPORTERS - len(seen)]
        seen.update(nxt)
        layer = nxt
        if not layer:
            break
    return sorted(seen)


def lint_project(
    project: Project,
    targets: Sequence[tuple[str, bytes]],
    settings: Settings,
    extra_units: Sequence[str] = (),
    workers: int = 1,
) -> list[FileResult]:
    """Lint ``targets`` (name, bytes) of one project; results in the order given.

    With several ``workers`` the modules to walk are shared out; each process follows calls
    into whatever modules it needs, and the findings for each target are merged.
    """
    units = [os.path.abspath(n) for n, _ in targets] + [os.path.abspath(p) for p in extra_units]
    if workers > 1 and len(units) >= 2 * workers:
        return _lint_in_pool(project, targets, settings, extra_units, units, workers)
    return _lint_share(project, targets, settings, extra_units, None)


def _lint_share(
    project: Project,
    targets: Sequence[tuple[str, bytes]],
    settings: Settings,
    extra_units: Sequence[str],
    mine: frozenset[str] | None,
) -> list[FileResult]:
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, _RECURSION_LIMIT))
    try:
        with _long_lived(project):
            return _lint_project(project, targets, settings, extra_units, mine)
    finally:
        sys.setrecursionlimit(limit)
        forget_scopes()


@contextlib.contextmanager
def _long_lived(project: Project) -> Iterator[None]:
    """Keep the garbage collector off the project's parsed modules while it is walked.

    Every module's tree lives until the walk ends, and a full collection scans them all
    without freeing any: about a sixth of a large project's run. Each parsed module is
    moved out of the collector's sight (``gc.freeze``) and given back at the end; unused
    objects are still freed by reference counting. Skipped when the host froze objects of
    its own, whose state this must not change.
    """
    if gc.get_freeze_count() or not gc.isenabled() or project.after_load is not None:
        yield
        return
    project.after_load = gc.freeze
    try:
        yield
    finally:
        project.after_load = None
        gc.unfreeze()


_Deps = dict[str, set[str]]
_Share = tuple[list[FileResult], list[str], _Deps, _Deps, _Deps]


def _project_job(state: dict[str, Any], name: str, _: bytes) -> _Share:
    """Walk one share of a project's modules in a worker process."""
    project = make_project(Path(state["root"]), [n for n, _ in state["targets"]], state["settings"])
    mine = frozenset(state["shares"][int(name)])
    results = _lint_share(project, state["targets"], state["settings"], state["extra"], mine)
    return results, project.warnings, project.touched, project.walked, project.needles


def _lint_in_pool(
    project: Project,
    targets: Sequence[tuple[str, bytes]],
    settings: Settings,
    extra_units: Sequence[str],
    units: list[str],
    workers: int,
) -> list[FileResult]:
    from jitlint.engine import parallel
    from jitlint.engine.isolation import Failure

    sizes = {os.path.abspath(n): len(src) for n, src in targets}
    ordered = sorted(units)
    shares = split_shares(ordered, [sizes.get(u, 10_000) for u in ordered], workers)
    state = {
        "root": str(project.index.root),
        "targets": list(targets),
        "settings": settings,
        "extra": list(extra_units),
        "shares": shares,
    }
    done = parallel.map_files(_project_job, [(str(i), b"") for i in range(workers)], state, workers)
    parts = [p for p in done if not isinstance(p, Failure)]
    for share, outcome in zip(shares, done, strict=True):
        if isinstance(outcome, Failure):
            project.failed.update(share)  # the caller lints these files alone
    merged: list[FileResult] = []
    for k, (name, _) in enumerate(targets):
        result = FileResult(name, skipped=True)
        seen: set[tuple[str, int, int]] = set()
        for results, *_ in parts:
            part = results[k]
            result.skipped = result.skipped and part.skipped
            result.errors.extend(e for e in part.errors if e not in result.errors)
            for f in part.findings:
                key = (f.code, f.location.row, f.location.column)
                if key not in seen:  # the first share's path wins, as in one process
                    seen.add(key)
                    result.findings.append(f)
        result.findings.sort(key=lambda f: (f.location, f.code))
        merged.append(result)
    for _, warnings, *deps in parts:
        for message in warnings:
            project.warn(message)
        for mine, theirs in zip(
            (project.touched, project.walked, project.needles), deps, strict=True
        ):
            for unit, paths in theirs.items():
                mine.setdefault(unit, set()).update(paths)
    return merged


# How far from an equal share a cut may move to fall between packages, as a fraction of all.
_CUT_SLACK = 0.15


def split_shares(units: Sequence[str], sizes: Sequence[int], workers: int) -> list[list[str]]:
    """Cut the sorted ``units`` into ``workers`` contiguous runs of about equal size.

    A package's modules call each other, and each process parses every module its walks
    reach, so a run that ends inside a package makes both processes parse that package's
    shared modules. Each cut moves, within ``_CUT_SLACK`` of the total, to the point between
    two units whose paths share the fewest folders (between top-level packages where it can,
    else between subpackages), the nearest to the equal share among those.
    """
    total = max(sum(sizes), 1)
    ends = [0]  # ends[k]: the size of units[:k]
    for size in sizes:
        ends.append(ends[-1] + size)
    cuts = [0]
    for i in range(1, workers):
        target = total * i / workers
        best: tuple[int, float, int] | None = None
        for k in range(cuts[-1] + 1, len(units)):
            off = abs(ends[k] - target)
            if off > _CUT_SLACK * total and ends[k] > target:
                break
            if off > _CUT_SLACK * total:
                continue
            depth = len(os.path.commonpath([units[k - 1], units[k]]).split(os.sep))
            if best is None or (depth, off) < best[:2]:
                best = (depth, off, k)
        if best is None:  # units larger than the slack: the cut nearest the equal share
            near = range(cuts[-1] + 1, len(units))
            cuts.append(min(near, key=lambda k: abs(ends[k] - target), default=len(units)))
        else:
            cuts.append(best[2])
    cuts.append(len(units))
    return [list(units[a:b]) for a, b in itertools.pairwise(cuts)]


def _lint_project(
    project: Project,
    targets: Sequence[tuple[str, bytes]],
    settings: Settings,
    extra_units: Sequence[str],
    mine: frozenset[str] | None,
) -> list[FileResult]:
    results: dict[str, FileResult] = {}
    units: list[str] = []
    for name, source in targets:
        key = os.path.abspath(name)
        project.sources.setdefault(key, source)
        if mine is not None and key not in mine:
            results[key] = FileResult(name, skipped=True)  # another process walks it
            continue
        if not mentions_jax(source, settings):
            results[key] = FileResult(name, skipped=True)  # reached from elsewhere, maybe
            continue
        if project.analysis_for(key, source) is None:
            results[key] = lint_source(name, source, settings)  # says why it cannot be read
            continue
        results[key] = FileResult(name)
        units.append(key)
    for path in extra_units:
        if mine is not None and os.path.abspath(path) not in mine:
            continue
        unit = project.analysis_for(path, project.sources.get(path))
        if unit is not None:
            units.append(os.path.abspath(path))
    for key in units:
        analysis = project.analyses.get(key)
        if analysis is None or FILE_NOQA.search(_text(project, key)):
            continue
        project.unit = key
        project.touched.setdefault(key, {key})
        try:
            analysis.run()
        except RecursionError:
            _error(results, key, project, "internal error: expression nesting too deep")
        except Exception as err:  # one module's bug must not stop the run
            _error(results, key, project, f"internal error: {type(err).__name__}: {err}")
        finally:
            project.unit = None
    out = []
    for name, _ in targets:
        key = os.path.abspath(name)
        result = results[key]
        analysis = project.analyses.get(key)
        if analysis is not None and analysis.findings and not result.findings:
            result.skipped = False
            text = _text(project, key)
            if not FILE_NOQA.search(text):
                found = _findings(analysis, name)
                result.findings.extend(filter_noqa(found, text))
                result.findings.sort(key=lambda f: (f.location, f.code))
        rule = filerules.LIMIT_REACHED
        if (
            analysis is not None
            and analysis.limit_reached
            and rule.code in settings.codes_for(name)
        ):
            message = (
                f"analysis limit reached ({MAX_ANALYSES} function analyses): "
                "findings may be missing"
            )
            loc = Location(1, 1)
            result.skipped = False
            result.findings.append(Finding(rule.code, rule.name, message, name, loc, loc))
        out.append(result)
    return out


def _text(project: Project, key: str) -> str:
    """Return a module's source text (regenerating it from the tree costs a parse)."""
    data = project.sources.get(key)
    if data is None:
        analysis = project.analyses.get(key)
        return analysis.module.code if analysis is not None else ""
    return data.decode("utf-8", "replace")


def _error(results: dict[str, FileResult], key: str, project: Project, message: str) -> None:
    if key in results:
        results[key].errors.append(f"{results[key].filename}: {message}")
    else:
        project.warn(f"{key}: {message}")


def _findings(analysis: Analysis, filename: str) -> list[Finding]:
    raw: list[RawFinding] = list(analysis.findings.values())
    located = _locate(analysis.module, raw, filename)
    steps = _trace_steps([r.trace for r in raw], filename, analysis)
    return [
        replace(f, trace=trace) if trace else f for f, trace in zip(located, steps, strict=True)
    ]


def _trace_steps(
    traces: list[tuple[TraceRef, ...]], filename: str, here: Analysis
) -> list[tuple[TraceStep, ...]]:
    """Turn the analysis' trace references into file positions, one `locate` per module."""
    by_owner: dict[int, tuple[Analysis, list[cst.CSTNode]]] = {}
    for trace in traces:
        for owner, node, _, _ in trace:
            by_owner.setdefault(id(owner), (owner, []))[1].append(node)
    rows: dict[tuple[int, int], int] = {}
    for owner, nodes in by_owner.values():
        ranges = locate(owner.module, nodes)
        for node in nodes:
            rows[(id(owner), id(node))] = ranges[id(node)].start.line
    out = []
    for trace in traces:
        steps = []
        for owner, node, name, via in trace:
            shown = filename if owner is here else _shown(owner.filename, filename)
            steps.append(TraceStep(shown, rows[(id(owner), id(node))], name, via))
        out.append(tuple(steps))
    return out


def _shown(path: str, like: str) -> str:
    """Spell another module's path the way the finding's own path is spelled."""
    if os.path.isabs(like):
        return path
    try:
        return os.path.relpath(path)
    except ValueError:
        return path
