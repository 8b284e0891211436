"""Apply fixes to one file until nothing fixable is left, never producing code that won't parse."""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass

from jitlint.analysis.cst_util import source_encoding
from jitlint.engine.lint import lint_source
from jitlint.engine.settings import Settings
from jitlint.fixes.apply import applicable, apply_checked
from jitlint.model import FileResult

MAX_ROUNDS = 10  # fixes that keep producing new fixable findings stop here


@dataclass
class FixOutcome:
    """What fixing one file produced: the new bytes, how many fixes, and what is left."""

    original: bytes
    source: bytes
    fixed: int
    result: FileResult

    @property
    def changed(self) -> bool:
        """Tell whether fixing changed the file."""
        return self.source != self.original


def fix_source(filename: str, source: bytes, settings: Settings, *, unsafe: bool) -> FixOutcome:
    """Lint and fix ``source`` to a fixed point (at most ``MAX_ROUNDS`` rounds)."""
    result = lint_source(filename, source, settings)
    try:
        encoding = source_encoding(source)
        text = source.decode(encoding)
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return FixOutcome(source, source, 0, result)
    current, fixed = source, 0
    for _ in range(MAX_ROUNDS):
        todo = [f.fix for f in result.findings if f.fix is not None and applicable(f, unsafe)]
        if not todo or result.errors:
            break
        new_text, count = apply_checked(text, todo)
        if count == 0 or new_text == text:
            break
        try:
            new_source = new_text.encode(encoding)
        except UnicodeEncodeError:
            break  # the fix needs characters the file's declared encoding cannot hold
        text, current, fixed = new_text, new_source, fixed + count
        result = lint_source(filename, current, settings)
    return FixOutcome(source, current, fixed, result)


def unified_diff(filename: str, outcome: FixOutcome) -> str:
    """Return the unified diff between the original and the fixed source."""
    encoding = source_encoding(outcome.original)
    before = outcome.original.decode(encoding).splitlines(keepends=True)
    after = outcome.source.decode(encoding).splitlines(keepends=True)
    # a/ and b/ prefixes let `git apply` and `patch -p1` take the diff of a relative path.
    old, new = (
        (filename, filename) if os.path.isabs(filename) else (f"a/{filename}", f"b/{filename}")
    )
    lines = difflib.unified_diff(before, after, old, new)
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)
