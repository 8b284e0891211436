"""jitlint judges every story in examples/lint_tutorial exactly, and every story runs."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TUTORIAL = REPO / "examples" / "lint_tutorial"

# file -> (source line, code) that jitlint must report; every other file must stay silent.
EXPECTED: dict[str, list[tuple[str, str]]] = {
    "branch_on_value_bug.py": [("if x > 0:", "JIT101")],
    "while_on_value_bug.py": [("while i < n:", "JIT102")],
    "global_list_bug.py": [("global_list.append(x)", "JIT202")],
    "stale_global_bug.py": [("return x + g", "JIT201")],
    "print_in_jit_bug.py": [('print("printed x:", x)', "JIT203")],
    "jit_in_loop_bug.py": [
        ("i = jax.jit(partial(unjitted_loop_body))(i)", "JIT301"),
        ("i = jax.jit(lambda x: unjitted_loop_body(x))(i)", "JIT301"),
    ],
}


def _line_of(path: Path, snippet: str) -> int:
    lines = [i for i, text in enumerate(path.read_text().splitlines(), 1) if snippet in text]
    assert len(lines) == 1, f"{snippet!r} must occur once in {path.name}"
    return lines[0]


def _jitlint() -> list[str]:
    script = Path(sys.executable).with_name("jitlint")
    return [str(script)] if script.exists() else [shutil.which("jitlint") or "jitlint"]


def test_tutorial_has_a_bug_and_a_fix_for_every_story():
    names = {p.name for p in TUTORIAL.glob("*.py")}
    for bug in EXPECTED:
        assert bug in names
        assert bug.replace("_bug.py", "_fix.py") in names
    assert "rank_branch_ok.py" in names


def test_jitlint_reports_exactly_the_tutorial_bugs():
    expected = {
        (name, _line_of(TUTORIAL / name, snippet), code)
        for name, pairs in EXPECTED.items()
        for snippet, code in pairs
    }
    files = sorted(TUTORIAL.glob("*.py"))
    proc = subprocess.run(
        [*_jitlint(), "--output-format", "json", "--select", "ALL", *map(str, files)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == (1 if expected else 0), proc.stderr
    found = {
        (Path(f["filename"]).name, f["location"]["row"], f["code"]) for f in json.loads(proc.stdout)
    }
    assert found == expected


@pytest.mark.slow
def test_every_story_runs():
    # One interpreter for all stories keeps JAX start-up to a single import.
    script = (
        "import runpy, sys\n"
        "for path in sys.argv[1:]:\n"
        "    runpy.run_path(path, run_name='__main__')\n"
    )
    files = [str(p) for p in sorted(TUTORIAL.glob("*.py"))]
    proc = subprocess.run(
        [sys.executable, "-c", script, *files], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "jax.jit(f)(10) raised TracerBoolConversionError" in proc.stdout
    assert "3 calls, 1 entry in global_list" in proc.stdout
    assert "g = 10, still sees the old g: [0. 0.]" in proc.stdout
    assert "g = 10: [10. 10.]" in proc.stdout
