"""One file can crash the parser, hang or blow a limit: the run still finishes and says so."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jitlint.engine.isolation import Failure, map_isolated

BUGGY = "import jax\n\n@jax.jit\ndef f{i}(x):\n    if x > 0:\n        return x\n    return -x\n"
DEEP_PARENS = "import jax\nx = " + "(" * 1500 + "1" + ")" * 1500 + "\n"
# Valid Python that takes about 4 s to analyse: well past the 1 s timeout of the "timeout"
# case on any machine the suite runs on, each sum well under the term limit (JIT903).
_SUM = " + ".join(["x"] * 2000)
SLOW = "import jax\n" + "".join(
    f"\n@jax.jit\ndef slow{i}(x):\n    return {_SUM}\n" for i in range(4)
)


def _job(state, name, source):
    if name == "crash":
        os.kill(os.getpid(), signal.SIGSEGV)  # what a crashing native parser does
    if name == "hang":
        time.sleep(60)
    return (name, len(source) * state["k"])


@pytest.mark.parametrize("count", [3, 40])
@pytest.mark.parametrize("workers", [1, 2])
def test_a_dying_or_hanging_worker_is_replaced(count, workers):
    items = [(f"f{i}", b"x" * i) for i in range(count)]
    items[1] = ("crash", b"")
    items[-1] = ("hang", b"")
    timeouts = [1.0] * count
    start = time.monotonic()
    out = map_isolated(_job, items, {"k": 2}, workers, timeouts)
    assert time.monotonic() - start < 30
    assert out[1] == Failure("crash", "killed by SIGSEGV")
    assert out[-1] == Failure("timeout", "1 s")
    bad = (1, count - 1)
    ordinary = [o for i, o in enumerate(out) if i not in bad]
    assert ordinary == [(n, len(s) * 2) for i, (n, s) in enumerate(items) if i not in bad]


def _jitlint(
    cwd: Path, *args: str, stack_kb: int | None = None
) -> subprocess.CompletedProcess[str]:
    def small_stack() -> None:
        if stack_kb is not None:
            resource.setrlimit(resource.RLIMIT_STACK, (stack_kb * 1024, stack_kb * 1024))

    return subprocess.run(
        [sys.executable, "-m", "jitlint", "--no-cache", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=small_stack,
    )


def _ordinary(tmp_path: Path, count: int) -> None:
    for i in range(count):
        (tmp_path / f"mod{i:02d}.py").write_text(BUGGY.format(i=i))


# 199 nested parentheses are valid Python, but with a 1 MB stack (small thread stacks, some
# containers) libcst's native parser overflows it: a real SIGSEGV in the worker.
NESTED_199 = "import jax\nx = " + "(" * 199 + "1" + ")" * 199 + "\n"
BAD_FILES = {
    # 1,500 nested parentheses crashed the parser (exit 139, no output); Python itself
    # rejects them with a SyntaxError, which is the report, before the parser runs.
    "python-rejects": (
        DEEP_PARENS,
        None,
        "",
        "deep.py:2:205: JIT900 syntax error: too many nested parentheses",
        1,  # a syntax error is a finding, as in ruff
    ),
    "parser-crash": (
        NESTED_199,
        1024,
        "",
        "deep.py:1:1: JIT901 could not be analysed: parser crashed (killed by SIGSEGV)",
        2,
    ),
    "timeout": (
        SLOW,
        None,
        "timeout-seconds = 1\n",
        "deep.py:1:1: JIT902 could not be analysed: timed out after 1 s",
        2,
    ),
}


@pytest.mark.parametrize("count", [3, 40])
@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_file_among_ordinary_files(tmp_path, count, case):
    text, stack_kb, config, line, exit_code = BAD_FILES[case]
    _ordinary(tmp_path, count)
    (tmp_path / "deep.py").write_text(text)
    (tmp_path / "jitlint.toml").write_text(config)
    start = time.monotonic()
    proc = _jitlint(tmp_path, ".", stack_kb=stack_kb)
    assert time.monotonic() - start < 120
    assert "Traceback" not in proc.stderr and "Fatal Python error" not in proc.stderr
    lines = proc.stdout.splitlines()
    assert [x for x in lines if x.startswith("deep.py")] == [line]
    assert sum("JIT101" in x for x in lines) == count and len(lines) == count + 1
    assert proc.returncode == exit_code


def test_ignoring_a_file_rule_silences_it(tmp_path):
    _ordinary(tmp_path, 1)
    (tmp_path / "slow.py").write_text(SLOW)
    (tmp_path / "jitlint.toml").write_text('timeout-seconds = 1\nignore = ["timeout"]\n')
    proc = _jitlint(tmp_path, ".")
    assert proc.returncode == 1 and "JIT902" not in proc.stdout


def test_analysis_limit_is_said(tmp_path):
    many = "import jax\n" + "".join(f"@jax.jit\ndef f{i}(x):\n    return x\n" for i in range(3100))
    (tmp_path / "many.py").write_text(many)
    proc = _jitlint(tmp_path, "many.py")
    assert proc.returncode == 2
    assert proc.stdout.splitlines() == [
        "many.py:1:1: JIT903 analysis limit reached (3000 function analyses): "
        "findings may be missing"
    ]


def test_deeper_than_pythons_compiler_is_one_line(tmp_path):
    # CPython raises RecursionError compiling a 3,100-term sum; libcst would take minutes.
    (tmp_path / "flat.py").write_text("import jax\nx = " + " + ".join(["1"] * 3100) + "\n")
    proc = _jitlint(tmp_path, "flat.py")
    assert proc.returncode == 2
    assert proc.stdout.startswith("flat.py:1:1: JIT903 could not be analysed: nested deeper")


@pytest.mark.parametrize("mode", [[], ["--project"]])
def test_a_chain_python_compiles_but_the_parser_cannot_take_is_one_line(tmp_path, mode):
    # CPython keeps 10,000 `and`s flat; libcst's native parser overflowed its stack on them
    # (SIGSEGV), and `--project` parses in this process: the whole run died.
    _ordinary(tmp_path, 2)
    (tmp_path / "flags.py").write_text("import jax\nx = " + " and ".join(["1"] * 10_000) + "\n")
    proc = _jitlint(tmp_path, *mode, ".")
    assert proc.returncode == 2, proc.stderr
    lines = proc.stdout.splitlines()
    assert [x for x in lines if x.startswith("flags.py")] == [
        "flags.py:1:1: JIT903 could not be analysed: more than 2500 `and`/`or` operators, "
        "which the parser cannot take in one expression"
    ]
    assert sum("JIT101" in x for x in lines) == 2


def test_file_over_the_size_limit(tmp_path):
    _ordinary(tmp_path, 1)
    (tmp_path / "big.py").write_text("import jax\n" + "x = 1\n" * 2000)
    (tmp_path / "jitlint.toml").write_text("max-file-size = 5000\n")
    proc = _jitlint(tmp_path, ".")
    assert proc.returncode == 2
    assert "big.py:1:1: JIT903 file too large (0.0 MB > 0.005 MB, `max-file-size`)" in proc.stdout
    assert "mod00.py:5:8: JIT101" in proc.stdout


@pytest.mark.parametrize("code", ["JIT900", "JIT901", "JIT902", "JIT903", "parser-crash"])
def test_file_rules_are_documented(code):
    proc = subprocess.run(
        [sys.executable, "-m", "jitlint", "rule", code], capture_output=True, text=True
    )
    assert proc.returncode == 0
    assert "## What it does" in proc.stdout and "## Fix safety" in proc.stdout


def test_source_from_stdin_is_isolated_too(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "jitlint", "--no-cache", "-", "--stdin-filename", "in.py"],
        input=NESTED_199,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_STACK, (1 << 20, 1 << 20)),
    )
    assert proc.returncode == 2
    assert (
        proc.stdout
        == "in.py:1:1: JIT901 could not be analysed: parser crashed (killed by SIGSEGV)\n"
    )
