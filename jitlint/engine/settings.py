"""What to check: the selected rule codes, per-file ignores, extra jit wrappers, excludes."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path

from jitlint.rules import all_rules
from jitlint.rules import file_rules as filerules


@dataclass(frozen=True)
class Settings:
    """Say what to check: selected rule codes, per-file ignores, extra jit wrappers."""

    select: frozenset[str] = field(
        default_factory=lambda: frozenset(r.code for r in all_rules()) | filerules.FILE_CODES
    )
    per_file_ignores: tuple[tuple[str, frozenset[str]], ...] = ()
    extend_jit_wrappers: frozenset[str] = frozenset()
    exclude: tuple[str, ...] = ()
    root: str = "."
    max_file_bytes: int = filerules.DEFAULT_MAX_FILE_BYTES  # 0: no limit
    timeout_seconds: float = filerules.DEFAULT_TIMEOUT_SECONDS  # 0: no limit
    respect_gitignore: bool = True  # skip what .gitignore, info/exclude and global excludes skip
    force_exclude: bool = False  # apply excludes to paths given explicitly too (pre-commit)

    def codes_for(self, filename: str) -> frozenset[str]:
        """Return the codes selected for one file after per-file ignores."""
        rel = relative(filename, self.root)
        codes = self.select
        for pattern, ignored in self.per_file_ignores:
            if matches(rel, pattern):
                codes = frozenset(c for c in codes if not any(c.startswith(i) for i in ignored))
        return codes


def relative(filename: str, root: str) -> str:
    """Return ``filename`` relative to ``root`` in POSIX form (as given if outside it)."""
    try:
        return Path(os.path.abspath(filename)).relative_to(os.path.abspath(root)).as_posix()
    except ValueError:
        return Path(filename).as_posix()


def matches(rel: str, pattern: str) -> bool:
    """Tell whether a relative path matches a glob, as a whole, as a folder or by a part."""
    pattern = pattern.rstrip("/")
    if fnmatch(rel, pattern) or fnmatch(rel, pattern + "/*"):
        return True
    parts = rel.split("/")
    return any(fnmatch(p, pattern) for p in parts) or fnmatch(parts[-1], pattern)


SettingsFor = Callable[[str], Settings]
"""Give the settings of one file: each file may have its own config."""


def settings_getter(settings: Settings | SettingsFor) -> SettingsFor:
    """Return a per-file settings function for one fixed ``Settings`` or such a function."""
    if isinstance(settings, Settings):
        return lambda _path: settings
    return settings
