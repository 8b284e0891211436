"""The layers of the package hold: import-linter's contracts in pyproject.toml pass."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_import_contracts_are_kept():
    script = Path(sys.executable).with_name("lint-imports")
    proc = subprocess.run(
        [str(script), "--no-cache"], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 broken" in proc.stdout
