"""pytest-jitcheck: catch ``jax.jit`` bugs while your test suite runs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pytest_jitcheck._errors import JitcheckUsageError, JitcheckWarning, RecompileWarning
from pytest_jitcheck.accounting import CompileEvent, CompileRecorder
from pytest_jitcheck.assertions import (
    AssertCompiles,
    AssertCompilesFixture,
    CompileCount,
    CompileCountError,
    assert_compiles,
)
from pytest_jitcheck.leaks import TracerLeakError, no_tracer_leaks

if TYPE_CHECKING:
    from pytest_jitcheck.compare import assert_jit_matches_eager
    from pytest_jitcheck.devices import assert_same_on_devices

__version__ = "0.1.0.dev0"

# These two need NumPy at import; loading them on first use lets the package (and pytest's
# entry point) import in an environment with only the linter installed.
_NEEDS_NUMPY = {
    "assert_jit_matches_eager": "pytest_jitcheck.compare",
    "assert_same_on_devices": "pytest_jitcheck.devices",
}


def __getattr__(name: str) -> Any:
    if name in _NEEDS_NUMPY:
        import importlib

        return getattr(importlib.import_module(_NEEDS_NUMPY[name]), name)
    raise AttributeError(f"module 'pytest_jitcheck' has no attribute {name!r}")


__all__ = [
    "AssertCompiles",
    "AssertCompilesFixture",
    "CompileCount",
    "CompileCountError",
    "CompileEvent",
    "CompileRecorder",
    "JitcheckUsageError",
    "JitcheckWarning",
    "RecompileWarning",
    "TracerLeakError",
    "__version__",
    "assert_compiles",
    "assert_jit_matches_eager",
    "assert_same_on_devices",
    "no_tracer_leaks",
]
