"""The public library API: what the CLI, the pre-commit hook and the language server share.

Every function takes and returns plain data (``jitlint.model``); none of them prints.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from jitlint import docs, runner
from jitlint.config import build_settings, find_pyproject, load
from jitlint.engine import Settings
from jitlint.engine import lint_source as _lint_source
from jitlint.fixer import FixOutcome
from jitlint.fixer import fix_source as _fix_source
from jitlint.model import FileResult
from jitlint.rules import all_rules


@dataclass(frozen=True)
class RuleInfo:
    """Describe one rule for front ends: code, name, one-line summary and its doc page."""

    code: str
    name: str
    summary: str
    doc_markdown: str
    url: str | None
    fixable: bool


def _bytes(source: bytes | str) -> bytes:
    return source.encode("utf-8") if isinstance(source, str) else source


def settings_for(path: str) -> Settings:
    """Return the settings of the nearest ``[tool.jitlint]`` above ``path`` (defaults if none)."""
    return build_settings(load(find_pyproject([path])), None, [])


def lint_source(
    source: bytes | str, *, filename: str = "<stdin>", settings: Settings | None = None
) -> FileResult:
    """Lint one file's content; never raises for any input."""
    chosen = settings if settings is not None else Settings()
    return _lint_source(filename, _bytes(source), chosen)


def fix_source(
    source: bytes | str,
    *,
    filename: str = "<stdin>",
    settings: Settings | None = None,
    unsafe: bool = False,
) -> FixOutcome:
    """Apply every safe fix (and unsafe ones if ``unsafe``) to a fixed point, in memory."""
    chosen = settings if settings is not None else Settings()
    return _fix_source(filename, _bytes(source), chosen, unsafe=unsafe)


def lint_paths(paths: Sequence[str], *, settings: Settings | None = None) -> list[FileResult]:
    """Lint every Python file under ``paths`` (without the on-disk cache)."""
    chosen = settings if settings is not None else settings_for(paths[0] if paths else ".")
    return runner.lint_paths(paths, chosen, None)


def rules() -> list[RuleInfo]:
    """Return every rule, sorted by code."""
    return [
        RuleInfo(
            r.code,
            r.name,
            r.message,
            docs.render(r),
            r.url(),
            r.fix_applicability is not None,
        )
        for r in all_rules()
    ]


__all__ = [
    "FileResult",
    "FixOutcome",
    "RuleInfo",
    "Settings",
    "fix_source",
    "lint_paths",
    "lint_source",
    "rules",
    "settings_for",
]
