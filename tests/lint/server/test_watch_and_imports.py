"""`jitlint --watch` re-lints on change; neither it nor the server imports JAX."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.lint.server.lsp import TIMEOUT

CLEAN = "import jax\n\n\n@jax.jit\ndef f(x):\n    return -x\n"
BUG = "import jax\n\n\n@jax.jit\ndef f(x):\n    if x > 0:\n        x = -x\n    return x\n"


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow
def test_watch_relints_when_a_file_changes(tmp_path: Path):
    source = tmp_path / "m.py"
    source.write_text(CLEAN, encoding="utf-8")
    output = tmp_path / "output.txt"
    with output.open("wb") as sink:
        proc = subprocess.Popen(
            [sys.executable, "-m", "jitlint", "--watch", "--no-cache", "m.py"],
            cwd=tmp_path,
            stdout=sink,
            stderr=subprocess.STDOUT,
            # A shell's background job ignores SIGINT, and a child inherits that: restore
            # the default so that Python turns Ctrl-C into KeyboardInterrupt, as in a terminal.
            preexec_fn=_default_sigint,
        )

    def wait_for(text: str, count: int, rewrite: str | None = None) -> str:
        deadline = time.monotonic() + TIMEOUT
        last_write = 0.0
        while time.monotonic() < deadline:
            seen = output.read_text(encoding="utf-8")
            if seen.count(text) >= count:
                return seen
            # The watcher may start watching a moment after it says so: write again until
            # a change is seen, as a user saving twice would.
            if rewrite is not None and time.monotonic() - last_write > 2.0:
                source.write_text(rewrite, encoding="utf-8")
                last_write = time.monotonic()
            time.sleep(0.1)
        raise AssertionError(f"never saw {text!r} {count} times in {seen!r}")

    try:
        assert "All checks passed" in wait_for("Watching for file changes", 1)
        assert "m.py:6:8: JIT101" in wait_for("Watching for file changes", 2, rewrite=BUG)
    finally:
        proc.send_signal(signal.SIGINT)
        code = proc.wait(TIMEOUT)
    assert code == 0


def test_watch_refuses_stdin():
    proc = subprocess.run(
        [sys.executable, "-m", "jitlint", "--watch", "-"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "jitlint: error: --watch cannot be combined with '-', --fix or --diff"
    ]


def test_server_and_watch_do_not_import_jax():
    code = (
        "import sys, jitlint.cli, jitlint.server, jitlint.server.features, "
        "jitlint.server.worker, jitlint.server.watch\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('jax', 'jaxlib')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_server_usage_error_is_one_line():
    proc = subprocess.run(
        [sys.executable, "-m", "jitlint", "server", "--bogus"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == ["jitlint server: error: unrecognized arguments: --bogus"]
