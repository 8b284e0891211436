"""pytest-jitcheck: catch ``jax.jit`` bugs while your test suite runs."""

from __future__ import annotations

from pytest_jitcheck._errors import JitcheckUsageError, JitcheckWarning, RecompileWarning
from pytest_jitcheck.compare import assert_jit_matches_eager
from pytest_jitcheck.devices import assert_same_on_devices

__version__ = "0.1.0.dev0"

__all__ = [
    "JitcheckUsageError",
    "JitcheckWarning",
    "RecompileWarning",
    "__version__",
    "assert_jit_matches_eager",
    "assert_same_on_devices",
]
