"""A content-hash cache of per-file results, safe to share between concurrent runs.

An entry's key hashes jitlint's version and code, the rules selected for the file, the extra
jit wrappers, and the file's bytes, so any change to one of them is a miss. Entries are
written to a temporary file and renamed into place, so a reader never sees half an entry; an
entry that cannot be read or decoded is treated as a miss.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from jitlint._version import __version__
from jitlint.engine.settings import Settings
from jitlint.model import Applicability, Edit, FileResult, Finding, Fix, Location, TraceStep

DEFAULT_DIR = ".jitlint_cache"
_FORMAT = "2"


def _code_fingerprint() -> str:
    # A development install changes code without changing the version: hash the sources' stats.
    package = Path(__file__).resolve().parents[1]  # the whole jitlint package
    h = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        st = path.stat()
        h.update(f"{path.relative_to(package)}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


class Cache:
    """Store and look up ``FileResult``s by a hash of everything they depend on."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.root = Path(directory)
        self.directory = self.root / f"v{_FORMAT}"
        self._salt = "\0".join((__version__, _FORMAT, _code_fingerprint()))
        self._ready = False

    def key(self, filename: str, source: bytes, settings: Settings) -> str:
        """Return the cache key of ``source`` linted as ``filename`` with ``settings``."""
        codes = ",".join(sorted(settings.codes_for(filename)))
        wrappers = ",".join(sorted(settings.extend_jit_wrappers))
        h = hashlib.sha256(f"{self._salt}\0{codes}\0{wrappers}\0".encode())
        h.update(source)
        return h.hexdigest()

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str, filename: str) -> FileResult | None:
        """Return the cached result for ``key`` reported under ``filename``, or None."""
        try:
            data = json.loads(self._path(key).read_bytes())
            return _result(data, filename)
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            return None

    def put(self, key: str, result: FileResult) -> None:
        """Store ``result`` under ``key``; a cache that cannot be written is skipped quietly."""
        if result.errors:
            return  # internal errors are worth retrying on the next run
        path = self._path(key)
        try:
            self._prepare()
            write_json_atomically(path, _data(result))
        except OSError:
            pass

    def _prepare(self) -> None:
        if self._ready:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        # Keep the cache out of version control and backups, as ruff and pytest do.
        for name, text in (
            (".gitignore", "# Created by jitlint\n*\n"),
            ("CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n"),
        ):
            marker = self.root / name
            if not marker.exists():
                marker.write_text(text, encoding="utf-8")
        self._ready = True


def _loc(loc: Location) -> list[int]:
    return [loc.row, loc.column]


def _data(result: FileResult) -> dict[str, Any]:
    findings = []
    for f in result.findings:
        fix = None
        if f.fix is not None:
            edits = [[_loc(e.start), _loc(e.end), e.content] for e in f.fix.edits]
            fix = [f.fix.title, f.fix.applicability.value, edits]
        trace = [[s.filename, s.row, s.name, s.transform] for s in f.trace]
        findings.append(
            [
                f.code,
                f.name,
                f.message,
                _loc(f.location),
                _loc(f.end_location),
                fix,
                f.url,
                f.cell,
                trace,
            ]
        )
    return {"skipped": result.skipped, "findings": findings}


def _result(data: dict[str, Any], filename: str) -> FileResult:
    findings = []
    for code, name, message, start, end, fix_data, url, cell, trace in data["findings"]:
        fix = None
        if fix_data is not None:
            title, applicability, edits = fix_data
            fix = Fix(
                title,
                Applicability(applicability),
                tuple(Edit(Location(*a), Location(*b), str(c)) for a, b, c in edits),
            )
        steps = tuple(TraceStep(str(a), int(b), str(c), d) for a, b, c, d in trace)
        findings.append(
            Finding(
                code,
                name,
                message,
                filename,
                Location(*start),
                Location(*end),
                fix,
                url,
                cell,
                steps,
            )
        )
    return FileResult(filename, findings, skipped=bool(data["skipped"]))


def write_json_atomically(path: Path, data: object) -> None:
    """Write ``data`` as JSON to ``path`` through a temporary file in the same folder, so
    that a reader (another process) never sees half a file. Raises OSError."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(data, out, separators=(",", ":"))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
