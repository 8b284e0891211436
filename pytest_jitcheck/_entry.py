"""pytest's entry point: the plugin when JAX is installed, otherwise a stand-in that says so.

The linter installs without JAX, and pytest loads every installed plugin on every run, so the
plugin must not break a JAX-free environment; using one of its features there is one clear
error naming the install command.
"""

from __future__ import annotations

from importlib.util import find_spec

_HAS_JAX = find_spec("jax") is not None and find_spec("numpy") is not None

pytest_plugins = ["pytest_jitcheck.plugin" if _HAS_JAX else "pytest_jitcheck._nojax"]
