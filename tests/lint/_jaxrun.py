"""Run a snippet with real JAX and say where it failed: the check behind every model test."""

from __future__ import annotations

import contextlib
import io
import sys
import types
from types import TracebackType

FILENAME = "case.py"
MAIN_GUARD = 'if __name__ == "__main__":'


def _last_line(tb: TracebackType | None, filename: str) -> int | None:
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def run(source: str, filename: str = FILENAME) -> tuple[BaseException | None, int | None]:
    """Execute ``source``; return the exception it raised and its innermost line in it.

    A source with an ``if __name__ == "__main__":`` block runs as ``__main__`` (as runpy
    does it: the module stands in for ``sys.modules["__main__"]`` while it runs).
    """
    name = "__main__" if MAIN_GUARD in source else "jitlint_case"
    module = types.ModuleType(name)  # a real module: dataclasses look it up
    saved = sys.modules.get(name)
    sys.modules[name] = module
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(source, filename, "exec"), module.__dict__)
    except Exception as exc:
        return exc, _last_line(exc.__traceback__, filename)
    finally:
        if saved is None:
            del sys.modules[name]
        else:
            sys.modules[name] = saved
    return None, None
