"""The content-hash cache and the process pool: same answers, faster, and never corrupt."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jitlint.cli import main
from jitlint.engine import cache, parallel, runner
from jitlint.engine.cache import Cache
from jitlint.engine.lint import lint_source
from jitlint.engine.settings import Settings
from jitlint.rules import jit101_traced_if

BAD = "import jax\nimport numpy as np\n\n@jax.jit\ndef f(x):\n    print(x)\n    return np.sqrt(x)\n"


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.py").write_text(BAD)
    return tmp_path


def _entries(directory: Path) -> list[Path]:
    return sorted(directory.glob("v*/*/*.json"))


def test_warm_run_gives_the_cold_answer_from_the_cache(project, capsys):
    cold = run(capsys, "--output-format", "json", "bad.py")
    entries = _entries(project / ".jitlint_cache")
    assert len(entries) == 1
    assert (project / ".jitlint_cache" / "CACHEDIR.TAG").is_file()
    assert run(capsys, "--output-format", "json", "bad.py") == cold
    # The same file under another spelling of its path reports that spelling.
    code, out, _ = run(capsys, "./bad.py")
    assert code == 1 and out.startswith("./bad.py:6:5: JIT203")
    assert len(_entries(project / ".jitlint_cache")) == 1


def test_changed_bytes_or_selection_miss_the_cache(project, capsys):
    run(capsys, "bad.py")
    (project / "bad.py").write_text(BAD.replace("print(x)", "pass"))
    _, out, _ = run(capsys, "bad.py")
    assert "JIT203" not in out
    run(capsys, "--select", "JIT402", "bad.py")
    assert len(_entries(project / ".jitlint_cache")) == 3


def test_corrupt_entries_are_ignored(project, capsys):
    cold = run(capsys, "bad.py")
    for entry in _entries(project / ".jitlint_cache"):
        entry.write_bytes(b'{"findings": [["JIT1"')
    assert run(capsys, "bad.py") == cold
    for entry in _entries(project / ".jitlint_cache"):
        entry.write_text('{"skipped": false, "findings": [[1, 2]]}')
    assert run(capsys, "bad.py") == cold


def test_no_cache_and_cache_dir_options(project, capsys):
    run(capsys, "--no-cache", "bad.py")
    assert not (project / ".jitlint_cache").exists()
    run(capsys, "--cache-dir", "elsewhere", "bad.py")
    assert len(_entries(project / "elsewhere")) == 1
    (project / "pyproject.toml").write_text('[tool.jitlint]\ncache-dir = "build/jl"\n')
    run(capsys, "bad.py")
    assert len(_entries(project / "build" / "jl")) == 1
    assert not (project / ".jitlint_cache").exists()


def test_bad_cache_dir_in_config_is_a_clear_error(project, capsys):
    (project / "pyproject.toml").write_text("[tool.jitlint]\ncache-dir = 3\n")
    code, _, err = run(capsys, "bad.py")
    assert code == 2 and "`cache-dir` must be a string" in err


def test_entries_round_trip_fixes_and_leave_no_temporary_files(tmp_path):
    settings = Settings()
    result = lint_source("a.py", BAD.encode(), settings)
    assert any(f.fix is not None for f in result.findings)
    cache = Cache(tmp_path)
    key = cache.key("a.py", BAD.encode(), settings)
    cache.put(key, result)
    cache.put(key, result)  # a second writer of the same entry replaces it whole
    assert cache.get(key, "a.py") == result
    assert [p.name for p in tmp_path.rglob(".tmp-*")] == []
    assert cache.key("a.py", BAD.encode() + b"\n", settings) != key


def test_unwritable_cache_is_skipped(project, capsys):
    (project / "ro").write_text("a file where the cache directory should be")
    code, out, err = run(capsys, "--cache-dir", "ro", "bad.py")
    assert code == 1 and "JIT203" in out and "error" not in err.lower().replace("errors", "")


def _square(state, name, source):
    return (name, len(source) * state["k"])


def test_pool_keeps_input_order():
    items = [(f"f{i}", b"x" * (i * 7 % 13)) for i in range(40)]
    serial = parallel.map_files(_square, items, {"k": 3}, workers=1)
    assert parallel.map_files(_square, items, {"k": 3}, workers=2) == serial
    assert [name for name, _ in serial] == [name for name, _ in items]


def test_pool_only_for_enough_work():
    assert parallel.workers_for([100] * 3) == 1
    assert parallel.workers_for([50_000] * 40) == min(parallel.cpu_count(), 3)
    assert parallel.workers_for([10], jobs=2) == 2


def test_parallel_lint_matches_serial(tmp_path):
    for i in range(24):
        body = BAD if i % 3 else "import os\n"
        (tmp_path / f"m{i:02d}.py").write_text(body + f"\nVALUE_{i} = {i}\n")
    settings = Settings(root=str(tmp_path))
    serial = runner.lint_paths([str(tmp_path)], settings, None, jobs=1)
    pooled = runner.lint_paths([str(tmp_path)], settings, None, jobs=2)
    assert pooled == serial
    assert [r.filename for r in serial] == sorted(r.filename for r in serial)
    assert sum(len(r.findings) for r in serial) == 16 * 2


def test_cache_key_follows_a_change_anywhere_in_the_package():
    """A development install edits rules without a version bump: entries must not survive."""
    before = cache._code_fingerprint()
    rule = Path(jit101_traced_if.__file__)
    st = rule.stat()
    try:
        os.utime(rule, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
        assert cache._code_fingerprint() != before
    finally:
        os.utime(rule, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert cache._code_fingerprint() == before
