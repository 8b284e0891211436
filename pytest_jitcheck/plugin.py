"""pytest hooks of pytest-jitcheck (entry point ``jitcheck``).

JAX is imported lazily: pytest loads this module on every run, and JAX's device and
flag set-up must be able to happen before its backend initialises.
"""

from __future__ import annotations

# Each half of the plugin keeps its hooks in its own module; pytest registers them
# together with this one.
pytest_plugins = ["pytest_jitcheck.compare_plugin"]
