"""pytest-jitcheck: catch ``jax.jit`` bugs while your test suite runs."""

from __future__ import annotations

from pytest_jitcheck._errors import JitcheckUsageError, JitcheckWarning, RecompileWarning
from pytest_jitcheck.accounting import CompileEvent, CompileRecorder
from pytest_jitcheck.assertions import (
    AssertCompiles,
    AssertCompilesFixture,
    CompileCount,
    CompileCountError,
    assert_compiles,
)
from pytest_jitcheck.compare import assert_jit_matches_eager
from pytest_jitcheck.devices import assert_same_on_devices
from pytest_jitcheck.leaks import TracerLeakError, no_tracer_leaks

__version__ = "0.1.0.dev0"

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
