"""pytest-jitcheck: catch ``jax.jit`` bugs while your test suite runs."""

from __future__ import annotations

from pytest_jitcheck._errors import JitcheckUsageError, JitcheckWarning, RecompileWarning

__version__ = "0.1.0.dev0"

__all__ = [
    "JitcheckUsageError",
    "JitcheckWarning",
    "RecompileWarning",
    "__version__",
]
