"""jitlint: a static linter for ``jax.jit`` bugs.

The library API (``lint_source``, ``fix_source``, ``lint_paths``, ``settings_for``, ``list_rules``)
is what the command line uses; everything else inside the package may change.
"""

from __future__ import annotations

from jitlint._version import __version__
from jitlint.api import (
    FixOutcome,
    RuleInfo,
    Session,
    Settings,
    fix_source,
    lint_paths,
    lint_source,
    list_rules,
    settings_for,
)
from jitlint.model import Edit, FileResult, Finding, Fix, Location

__all__ = [
    "Edit",
    "FileResult",
    "Finding",
    "Fix",
    "FixOutcome",
    "Location",
    "RuleInfo",
    "Session",
    "Settings",
    "__version__",
    "fix_source",
    "lint_paths",
    "lint_source",
    "list_rules",
    "settings_for",
]
