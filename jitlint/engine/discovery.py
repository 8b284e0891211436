"""Find the Python files under the given paths, skipping virtualenvs, caches and excludes."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path

from jitlint.engine.settings import Settings, matches, relative

_SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        "build",
        "dist",
        "__pycache__",
        "node_modules",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        ".eggs",
        ".jitlint_cache",
    }
)


def discover(paths: Sequence[str], settings: Settings) -> Iterator[tuple[str, str | None]]:
    """Yield (file path, None) for each Python file, or (path, error) for a bad path."""
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            yield raw, f"{raw}: No such file or directory"
        elif path.is_dir():
            yield from _walk(path, settings)
        elif not _excluded(raw, settings):
            yield raw, None


def _walk(top: Path, settings: Settings) -> Iterator[tuple[str, str | None]]:
    def on_error(err: OSError) -> None:
        errors.append(f"{err.filename}: {err.strerror}")

    errors: list[str] = []
    for dirpath, dirnames, filenames in os.walk(top, onerror=on_error):
        dirnames[:] = sorted(
            d
            for d in dirnames
            if d not in _SKIP_DIRS
            and not d.endswith(".egg-info")
            and not os.path.exists(os.path.join(dirpath, d, "pyvenv.cfg"))
            and not _excluded(os.path.join(dirpath, d), settings)
        )
        for name in sorted(filenames):
            if name.endswith((".py", ".pyi")):
                full = os.path.join(dirpath, name)
                if not _excluded(full, settings):
                    yield full, None
        while errors:
            yield "", errors.pop()


def _excluded(path: str, settings: Settings) -> bool:
    rel = relative(path, settings.root)
    return any(matches(rel, pattern) for pattern in settings.exclude)
