"""The JIT9xx rules: a file that could not be checked, and why.

They are not code patterns, so they have no examples to run; they are selectable like any
rule, are on unless ignored (a file jitlint could not check must never pass silently), and
an unignored JIT901..JIT903 makes the run exit 2.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

# Set for each file a limit applies to; both are documented in docs/jitlint.md.
DEFAULT_MAX_FILE_BYTES = 10_000_000
DEFAULT_TIMEOUT_SECONDS = 60.0


@dataclass(frozen=True)
class FileRule:
    """A code, a name, a one-line message and a docstring, like a rule class has."""

    code: str
    name: str
    message: str
    doc_text: str
    error: bool  # a finding means the run could not do its job: exit 2

    def doc(self) -> str:
        """Return the rule's documentation (ruff's sections)."""
        return inspect.cleandoc(self.doc_text)


SYNTAX_ERROR = FileRule(
    "JIT900",
    "syntax-error",
    "the file cannot be parsed, so it was not checked",
    """
    ## What it does
    Reports a file that is not valid Python for this interpreter, cannot be decoded, or is a
    notebook that is not valid JSON. Nothing else in the file was checked.

    ## Why is this bad?
    Python would refuse to run it too; the message and place are Python's own (nesting
    deeper than the parser's limit, e.g. 200 parentheses, is such a syntax error).

    ## Example
    ```python
    def f(x:
        return x
    ```

    ## Use instead
    Fix the syntax error; the other rules then check the file.

    ## Fix safety
    No fix.
    """,
    error=False,
)
PARSER_CRASH = FileRule(
    "JIT901",
    "parser-crash",
    "could not be analysed: parser crashed",
    """
    ## What it does
    Reports a file whose parsing or analysis killed the process that handled it (a crash of
    the native parser, or running out of memory). jitlint checks each file in a worker
    process, replaces a worker that dies and goes on with the other files.

    ## Why is this bad?
    The file was not checked. The rest of the run is complete, and the run exits 2.

    ## Example
    199 nested parentheses are valid Python, but under a 1 MB stack (`ulimit -s 1024`, small
    thread stacks in some containers) libcst's native parser overflows it and the process
    dies with SIGSEGV.

    ## Use instead
    Exclude generated files (`exclude`, `.gitignore`), or split the expression.

    ## Fix safety
    No fix.
    """,
    error=True,
)
TIMEOUT = FileRule(
    "JIT902",
    "timeout",
    "could not be analysed: timed out",
    """
    ## What it does
    Reports a file whose check took longer than the per-file time limit
    (`timeout-seconds`, default 60 s, `0` for none); the worker is stopped and the run goes on.

    ## Why is this bad?
    The file was not checked, and the run exits 2.

    ## Example
    One function with a 2,900-term arithmetic expression.

    ## Use instead
    Exclude generated files, or raise `timeout-seconds` in the config.

    ## Fix safety
    No fix.
    """,
    error=True,
)
LIMIT_REACHED = FileRule(
    "JIT903",
    "limit-reached",
    "could not be analysed: limit reached",
    """
    ## What it does
    Reports a file that jitlint checked only in part, or not at all, because of a limit: a
    file larger than `max-file-size` (default 10 MB), expressions nested deeper than this
    Python's compiler accepts (Python itself raises `RecursionError` compiling it), more than
    2,500 `and`/`or` operators (Python keeps such a chain flat, but the parser jitlint uses
    overflows its stack on one), or the bound on how many function analyses one file may
    cause.

    ## Why is this bad?
    Findings may be missing for this file; the message says which limit cut the work short,
    and the run exits 2.

    ## Example
    A 5 MB generated module.

    ## Use instead
    Exclude generated files, or raise the limit in the config.

    ## Fix safety
    No fix.
    """,
    error=True,
)

FILE_RULES: tuple[FileRule, ...] = (SYNTAX_ERROR, PARSER_CRASH, TIMEOUT, LIMIT_REACHED)
FILE_CODES = frozenset(r.code for r in FILE_RULES)
ERROR_CODES = frozenset(r.code for r in FILE_RULES if r.error)
