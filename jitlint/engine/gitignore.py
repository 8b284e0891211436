"""Which paths git ignores: ``.gitignore`` files, ``.git/info/exclude`` and the global excludes.

Matching is pathspec's (git's wildmatch rules, negation, directory-only patterns); this
module only finds the files that apply to a path, in git's order of precedence, and caches
them per directory.
"""

from __future__ import annotations

import os
import subprocess
from functools import cache
from pathlib import Path

import pathspec


def _spec(path: Path) -> pathspec.GitIgnoreSpec | None:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return pathspec.GitIgnoreSpec.from_lines(lines) if lines else None


@cache
def _global_excludes() -> Path | None:
    """Return git's global excludes file (``core.excludesFile``, else the XDG default)."""
    try:
        proc = subprocess.run(
            ["git", "config", "--get", "core.excludesFile"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
        configured = proc.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        configured = ""
    if configured:
        return Path(os.path.expanduser(configured))
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(xdg) / "git" / "ignore"


class GitIgnores:
    """Answer "does git ignore this path?" for paths inside git work trees."""

    def __init__(self) -> None:
        self._roots: dict[str, str | None] = {}
        self._specs: dict[str, pathspec.GitIgnoreSpec | None] = {}

    def _root(self, directory: str) -> str | None:
        if directory not in self._roots:
            parent = os.path.dirname(directory)
            if os.path.exists(os.path.join(directory, ".git")):
                self._roots[directory] = directory
            elif parent == directory:
                self._roots[directory] = None
            else:
                self._roots[directory] = self._root(parent)
        return self._roots[directory]

    def _load(self, key: str, path: Path) -> pathspec.GitIgnoreSpec | None:
        if key not in self._specs:
            self._specs[key] = _spec(path)
        return self._specs[key]

    def ignored(self, path: str, is_dir: bool) -> bool:
        """Tell whether git ignores ``path`` (a directory if ``is_dir``)."""
        full = os.path.abspath(path)
        root = self._root(os.path.dirname(full))
        if root is None or full == root:
            return False
        rel_parts = Path(os.path.relpath(full, root)).parts
        if rel_parts[0] == ".git":
            return True
        # Lowest precedence first: global excludes, info/exclude, then .gitignore files from
        # the root down; the last pattern that matches decides, as in git.
        sources: list[tuple[str, pathspec.GitIgnoreSpec | None]] = []
        excludes = _global_excludes()
        if excludes is not None:
            sources.append((root, self._load(f"global:{excludes}", excludes)))
        info = Path(root, ".git", "info", "exclude")
        sources.append((root, self._load(str(info), info)))
        base = root
        for part in ("", *rel_parts[:-1]):
            base = os.path.join(base, part) if part else base
            sources.append((base, self._load(base, Path(base, ".gitignore"))))
        decision = False
        for where, spec in sources:
            if spec is None:
                continue
            rel = Path(os.path.relpath(full, where)).as_posix() + ("/" if is_dir else "")
            include = spec.check_file(rel).include
            if include is not None:
                decision = include
        return decision
