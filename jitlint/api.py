"""The public library API: what the CLI, the pre-commit hook and an editor server share.

Every function here takes bytes or text and returns plain data from ``jitlint.model``; none of
them prints, exits or writes a file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from jitlint import config
from jitlint.analysis.cst_util import source_encoding
from jitlint.engine import notebook, runner
from jitlint.engine.fixing import FixOutcome
from jitlint.engine.incremental import Session
from jitlint.engine.settings import Settings
from jitlint.model import FileResult
from jitlint.rules import all_rules
from jitlint.rules.base import Rule

__all__ = [
    "FixOutcome",
    "RuleInfo",
    "Session",
    "Settings",
    "fix_source",
    "lint_paths",
    "lint_source",
    "list_rules",
    "settings_for",
]


@dataclass(frozen=True)
class RuleInfo:
    """Describe one rule for front ends: code, name, one-line summary, docs and fixability."""

    code: str
    name: str
    summary: str
    doc_markdown: str
    url: str | None
    fixable: bool


def _as_bytes(source: bytes | str) -> bytes:
    if isinstance(source, bytes):
        return source
    # Text keeps its meaning only in the encoding its coding cookie declares (utf-8 if none).
    encoded = source.encode("utf-8", errors="surrogatepass")
    try:
        return source.encode(source_encoding(encoded))
    except (SyntaxError, LookupError, UnicodeError):
        return encoded


def lint_source(
    source: bytes | str,
    *,
    filename: str = "<stdin>",
    settings: Settings | None = None,
    session: Session | None = None,
) -> FileResult:
    """Lint one file's source; never raises for any input.

    A ``filename`` ending in ``.ipynb`` is read as a Jupyter notebook: its findings carry the
    code cell (``Finding.cell``, 1-based) and rows and columns within that cell.

    An editor linting successive versions of one document passes the same ``Session`` each
    time: only the top-level statements that changed are parsed again, with the same result.
    """
    return notebook.lint_any(filename, _as_bytes(source), settings or Settings(), session)


def fix_source(
    source: bytes | str,
    *,
    filename: str = "<stdin>",
    settings: Settings | None = None,
    unsafe: bool = False,
) -> FixOutcome:
    """Apply the safe fixes (and unsafe ones if asked) to one file's source, in memory.

    For a notebook (``.ipynb``) only the changed cells' sources change in its JSON.
    """
    return notebook.fix_any(filename, _as_bytes(source), settings or Settings(), unsafe=unsafe)


def settings_for(path: str) -> Settings:
    """Return the settings of the config file nearest to ``path`` (see ``jitlint.config``).

    Defaults when no config file above ``path`` applies; raises
    ``jitlint.config.ConfigError`` when the table is invalid.
    """
    return config.Resolver().settings_for(path)


def lint_paths(
    paths: Sequence[str],
    *,
    settings: Settings | None = None,
    project: bool = False,
    overlay: Mapping[str, bytes | str] | None = None,
) -> list[FileResult]:
    """Lint every Python file under ``paths`` (no cache); results come in discovery order.

    Without ``settings``, each file gets the config file nearest to it, as on the command line.
    Notebooks (``.ipynb``) are linted too. With ``project``, calls are followed across the
    project's modules (``jitlint --project``). ``overlay`` maps paths to unsaved contents (an
    editor's open documents): every file, linted or read by the project analysis, that it
    names is read from there instead of from disk.
    """
    held = {os.path.abspath(p): _as_bytes(s) for p, s in (overlay or {}).items()}
    return runner.lint_paths(
        paths, settings or config.Resolver(), None, project=project, overlay=held
    )


# A full stop that ends a sentence: not part of an ellipsis (`for ... in`), before a capital.
_SENTENCE_END = re.compile(r"(?<!\.)\.(?!\.)\s+(?=[A-Z`])")


def _summary(rule: type[Rule]) -> str:
    lines = rule.doc().splitlines()
    try:
        start = lines.index("## What it does") + 1
    except ValueError:
        return rule.name
    words: list[str] = []
    for line in lines[start:]:
        if not line.strip():
            if words:
                break
            continue
        if line.startswith("#"):
            break
        words.extend(line.split())
    text = " ".join(words)
    end = _SENTENCE_END.search(text)
    return text if end is None else text[: end.start() + 1]


def list_rules() -> list[RuleInfo]:
    """Return every implemented rule, sorted by code."""
    return [
        RuleInfo(
            code=r.code,
            name=r.name,
            summary=_summary(r),
            doc_markdown=r.doc(),
            url=r.url(),
            fixable=r.fix_applicability is not None,
        )
        for r in all_rules()
    ]
