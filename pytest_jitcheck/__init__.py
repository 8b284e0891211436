"""pytest-jitcheck: catch ``jax.jit`` bugs while your test suite runs."""

from __future__ import annotations

__version__ = "0.1.0.dev0"

__all__ = ["__version__"]
