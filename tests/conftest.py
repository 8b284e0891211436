"""Test-wide settings.

Property tests explore new random examples on every local run. CI (``.ci/run``) sets
``HYPOTHESIS_PROFILE=ci``: the examples are then derived from each test's own source, so a
landing is never decided by a draw; a failure found locally is pinned with ``@example``.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
