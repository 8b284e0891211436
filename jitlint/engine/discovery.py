"""Find the Python files under the given paths, skipping virtualenvs, caches and excludes."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path

from jitlint.analysis.project_index import SKIP_DIRS
from jitlint.engine.gitignore import GitIgnores
from jitlint.engine.settings import Settings, SettingsFor, matches, relative, settings_getter

SOURCE_SUFFIXES = (".py", ".pyi", ".ipynb")  # what a directory walk picks up

_SKIP_DIRS = SKIP_DIRS | {".ipynb_checkpoints"}


def discover(
    paths: Sequence[str], settings: Settings | SettingsFor
) -> Iterator[tuple[str, str | None]]:
    """Yield (file path, None) for each Python file, or (path, error) for a bad path."""
    settings = settings_getter(settings)
    git = GitIgnores()
    for raw in paths:
        path = Path(raw)
        problem = _unusable(path)
        if problem is not None:
            yield raw, f"{raw}: {problem}"
        elif settings(raw).force_exclude and _skipped(raw, path.is_dir(), settings, git):
            continue  # excluded even when named: what pre-commit's file lists need
        elif path.is_dir():
            yield from _walk(path, settings, git)
        else:
            yield raw, None


def _unusable(path: Path) -> str | None:
    """Say why a path given on the command line cannot be linted, or None."""
    try:
        os.stat(path)
    except OSError as err:
        return err.strerror or str(err)  # no such file, a symlink loop, permission denied
    if path.is_dir() and not os.access(path, os.R_OK | os.X_OK):
        return "Permission denied"
    return None


def _skipped(path: str, is_dir: bool, settings: SettingsFor, git: GitIgnores) -> bool:
    if _excluded(path, settings):
        return True
    if not settings(path).respect_gitignore:
        return False
    full = os.path.abspath(path)
    # A path inside an ignored directory is ignored too: git never looks inside one.
    parents = [str(p) for p in reversed(Path(full).parents)]
    return git.ignored(full, is_dir) or any(git.ignored(p, True) for p in parents)


def _walk(top: Path, settings: SettingsFor, git: GitIgnores) -> Iterator[tuple[str, str | None]]:
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
            # A directory is excluded by the config of the directory that holds it.
            and not _excluded(os.path.join(dirpath, d), settings, dirpath)
            and not (
                settings(dirpath).respect_gitignore
                and git.ignored(os.path.join(dirpath, d), is_dir=True)
            )
        )
        for name in sorted(filenames):
            if name.endswith(SOURCE_SUFFIXES):
                full = os.path.join(dirpath, name)
                full = full[2:] if full.startswith("./") else full  # `jitlint .`: src/a.py
                if not _excluded(full, settings) and not (
                    settings(full).respect_gitignore and git.ignored(full, is_dir=False)
                ):
                    yield full, None
        while errors:
            yield "", errors.pop()


def _excluded(path: str, settings: SettingsFor, owner: str | None = None) -> bool:
    own = settings(path if owner is None else owner)
    rel = relative(path, own.root)
    return any(matches(rel, pattern) for pattern in own.exclude)
