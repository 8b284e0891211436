"""The linter needs neither JAX nor pytest: its install and its runs stay light."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib.metadata import requires
from pathlib import Path

HEAVY = ("jax", "jaxlib", "numpy", "scipy", "pytest")

BUGGY = """import jax


@jax.jit
def f(x):
    if x > 0:
        return x
    return -x
"""


def test_core_requirements_leave_out_jax_and_pytest() -> None:
    core = [r for r in requires("pytest-jitcheck") or [] if "extra ==" not in r]
    names = {re.split(r"[\s<>=!~\[;]", r, maxsplit=1)[0].lower() for r in core}
    assert "libcst" in names
    assert not names & set(HEAVY), core


def test_plugin_extra_brings_jax_and_pytest() -> None:
    plugin = [r for r in requires("pytest-jitcheck") or [] if 'extra == "plugin"' in r]
    names = {re.split(r"[\s<>=!~\[;]", r, maxsplit=1)[0].lower() for r in plugin}
    assert {"jax", "jaxlib", "pytest"} <= names


def test_linting_imports_no_jax(tmp_path: Path) -> None:
    target = tmp_path / "bug.py"
    target.write_text(BUGGY)
    # Installed here, but a lint run must not import them, even behind a try/except.
    code = (
        "import sys\n"
        "import jitlint, jitlint.cli\n"
        "code = jitlint.cli.main(['--no-cache', sys.argv[1]])\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in "
        f"{HEAVY!r})\n"
        "print('loaded:', loaded)\n"
        "raise SystemExit(code)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(target)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 1, proc.stderr
    assert "JIT101" in proc.stdout
    assert "loaded: []" in proc.stdout
