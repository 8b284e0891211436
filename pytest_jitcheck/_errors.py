"""Warning and error types shared by every part of pytest-jitcheck."""

from __future__ import annotations

import pytest

PREFIX = "[jitcheck]"
"""Every failure and usage message starts with this, so they are easy to grep."""


class JitcheckWarning(pytest.PytestWarning):
    """Base class of the warnings pytest-jitcheck issues."""


class RecompileWarning(JitcheckWarning):
    """A jitted function compiled more often in one test than the configured threshold."""


class JitcheckUsageError(ValueError):
    """Bad arguments to a pytest-jitcheck helper, marker, fixture or option."""

    def __init__(self, message: str) -> None:
        if not message.startswith(PREFIX):
            message = f"{PREFIX} {message}"
        super().__init__(message)
