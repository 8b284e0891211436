"""Run a snippet with real JAX and say where it failed: the check behind every model test."""

from __future__ import annotations

import contextlib
import io
import sys
import types
from types import TracebackType

FILENAME = "case.py"


def _last_line(tb: TracebackType | None, filename: str) -> int | None:
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def run(source: str, filename: str = FILENAME) -> tuple[BaseException | None, int | None]:
    """Execute ``source``; return the exception it raised and its innermost line in it."""
    module = types.ModuleType("jitlint_case")  # a real module: dataclasses look it up
    sys.modules[module.__name__] = module
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(source, filename, "exec"), module.__dict__)
    except Exception as exc:
        return exc, _last_line(exc.__traceback__, filename)
    finally:
        del sys.modules[module.__name__]
    return None, None
