"""Re-analyse only what an edit can change in a whole-project run.

A project run records, for each module it walks: every module file the walk looked up
(``Project.touched``), the other modules it put findings in, directly or through a memoised
analysis (``Project.walked``), and the texts it searched the whole project for
(``Project.needles``). Modules whose walks put findings in a common module form one group:
a module's findings come only from the walks of its group. The manifest stored in the cache
holds the hash of every project file, each module's group, each walk's reads and texts, and
each file's result. On the next run only the groups of a changed, added or removed file, or
of a walk that read one (or searched for a `.NAME` a changed line may assign), are analysed
again; if their walks now reach
another group, that group is added and the walk repeated, so a new import that makes a path
traced is always followed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jitlint.analysis.project import Project
from jitlint.engine.cache import Cache, _data, _result, write_json_atomically
from jitlint.engine.settings import Settings
from jitlint.model import FileResult

_ROUNDS = 4  # groups added to a run before every target is analysed again

# Lint ``targets`` (path, bytes) with the project's extra units; results in target order.
LintFn = Callable[[Project, list[tuple[str, bytes]], list[str]], list[FileResult]]


@dataclass
class Manifest:
    """What the last run of one project saw: file hashes, module groups, reads, results."""

    files: dict[str, str] = field(default_factory=dict)
    group: dict[str, str] = field(default_factory=dict)  # module path -> group id
    reads: dict[str, list[str]] = field(default_factory=dict)  # walked module -> modules read
    needles: dict[str, list[str]] = field(default_factory=dict)  # walked module -> texts
    results: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)


def hashes(project: Project) -> dict[str, str]:
    """Return the content hash of every project file, keeping the bytes in the project."""
    out: dict[str, str] = {}
    for path in project.index.files(project.packages):
        full = str(path)
        try:
            data = path.read_bytes()
        except OSError:
            continue
        project.sources.setdefault(full, data)
        out[full] = hashlib.sha256(data).hexdigest()
    return out


def _manifest_path(
    cache: Cache, project: Project, names: Sequence[str], settings: Settings
) -> Path:
    h = hashlib.sha256(cache.key(str(project.index.root), b"project", settings).encode())
    for name in sorted(names):
        h.update(f"\0{name}".encode())
    return cache.directory / "projects" / f"{h.hexdigest()}.json"


def _load(path: Path) -> Manifest | None:
    try:
        data = json.loads(path.read_bytes())
        paths = list(data["paths"])  # every path once; the other fields index into it
        return Manifest(
            {paths[int(k)]: str(v) for k, v in data["files"].items()},
            {paths[int(k)]: paths[int(v)] for k, v in data["group"].items()},
            {paths[int(k)]: [paths[i] for i in v] for k, v in data["reads"].items()},
            {paths[int(k)]: list(v) for k, v in data["needles"].items()},
            {paths[int(k)]: (str(v[0]), dict(v[1])) for k, v in data["results"].items()},
        )
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None


def _store(path: Path, manifest: Manifest) -> None:
    index: dict[str, int] = {}

    def at(p: str) -> int:
        return index.setdefault(p, len(index))

    data = {
        "files": {at(k): v for k, v in manifest.files.items()},
        "group": {at(k): at(v) for k, v in manifest.group.items()},
        "reads": {at(k): sorted(at(p) for p in v) for k, v in manifest.reads.items()},
        "needles": {at(k): v for k, v in manifest.needles.items()},
        "results": {at(k): [v[0], v[1]] for k, v in manifest.results.items()},
    }
    data["paths"] = list(index)
    with contextlib.suppress(OSError):  # a cache that cannot be written is only slower
        write_json_atomically(path, data)


def _writes(needle: str) -> re.Pattern[bytes]:
    """Match a line that may assign ``needle`` (``.NAME``): an ``=`` follows it on the line."""
    return re.compile(re.escape(needle.encode()) + rb"\b[^\n]*=")


class _Groups:
    """Union-find over module paths."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        root = self.parent.setdefault(x, x)
        while root != self.parent[root]:
            root = self.parent[root]
        while x != root:
            self.parent[x], x = root, self.parent[x]
        return root

    def join(self, members: Iterable[str]) -> None:
        first: str | None = None
        for m in members:
            if first is None:
                first = self.find(m)
            else:
                other = self.find(m)
                if other != first:
                    self.parent[other] = first


def lint_incremental(
    project: Project,
    names: Sequence[str],
    settings: Settings,
    cache: Cache,
    lint: LintFn,
    codes_key: Callable[[str], str],
) -> dict[str, FileResult]:
    """Return the result of every file of ``names``, analysing only what changed."""
    path = _manifest_path(cache, project, names, settings)
    old = _load(path) or Manifest()
    now = hashes(project)
    targets = {os.path.abspath(n): n for n in names}
    dirty = {p for p in now.keys() | old.files.keys() if now.get(p) != old.files.get(p)}
    for key, name in targets.items():
        stored = old.results.get(key)
        if stored is None or stored[0] != codes_key(name):
            dirty.add(key)
    members: dict[str, set[str]] = {}
    for p, g in old.group.items():
        members.setdefault(g, set()).add(p)
    # Walks that read a changed file, or searched for a text a changed file holds.
    texts = [project.sources.get(p, b"") for p in dirty]
    seeds = {p for p in dirty if p in targets or p in old.group}
    seeds |= {u for u, read in old.reads.items() if not dirty.isdisjoint(read)}
    for unit, needles in old.needles.items():
        if any(_writes(n).search(t) for n in needles for t in texts):
            seeds.add(unit)
    todo = set(seeds) | {p for s in seeds if s in old.group for p in members[old.group[s]]}
    fresh: dict[str, FileResult] = {}
    for _ in range(_ROUNDS):
        run = [k for k in targets if k in todo]
        extra = sorted(p for p in todo if p not in targets and p in now)
        if not run and not extra:
            break
        items = [(targets[k], project.sources.get(k) or b"") for k in run]
        for key, result in zip(run, lint(project, items, extra), strict=True):
            fresh[key] = result
        reached = {m for mods in project.walked.values() for m in mods} - todo
        more = {p for m in reached if m in old.group for p in members[old.group[m]]}
        more |= reached & targets.keys()
        if not more - todo:
            break
        todo |= more
    else:
        project.warn("project cache: changes reach too many groups; every file analysed again")
        run = list(targets)
        items = [(targets[k], project.sources.get(k) or b"") for k in run]
        fresh = dict(zip(run, lint(project, items, []), strict=True))
    return _save(path, project, old, now, todo, targets, fresh, codes_key)


def _save(
    path: Path,
    project: Project,
    old: Manifest,
    now: dict[str, str],
    todo: set[str],
    targets: dict[str, str],
    fresh: dict[str, FileResult],
    codes_key: Callable[[str], str],
) -> dict[str, FileResult]:
    """Store the manifest of this run; return every target's result."""
    manifest = Manifest(files=now)
    groups = _Groups()
    members: dict[str, set[str]] = {}
    for p, g in old.group.items():
        members.setdefault(g, set()).add(p)
    for paths in members.values():
        groups.join(p for p in paths if p not in todo and p in now)
    walked = project.touched.keys()  # the modules walked in this run
    for unit in walked:
        groups.join(project.walked.get(unit, {unit}) | {unit})
    out: dict[str, FileResult] = {}
    for key, name in targets.items():
        groups.find(key)
        result = fresh[key] if key in fresh else _result(old.results[key][1], name)
        out[key] = result
        if not result.errors and key not in project.failed:  # a crashed worker's: retried
            manifest.results[key] = (codes_key(name), _data(result))
    for p in list(groups.parent):
        manifest.group[p] = groups.find(p)
    for unit, read in old.reads.items():
        if unit not in walked and unit in now:
            manifest.reads[unit] = read
    for unit, found in project.touched.items():
        manifest.reads[unit] = sorted(found)
    for unit, texts in old.needles.items():
        if unit not in walked and unit in now:
            manifest.needles[unit] = texts
    for unit, needles in project.needles.items():
        manifest.needles[unit] = sorted(needles)
    _store(path, manifest)
    return out
