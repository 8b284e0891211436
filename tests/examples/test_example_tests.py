"""The README's first command runs `pytest --jitcheck examples/`: every example test passes."""

from __future__ import annotations

from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_example_tests_pass_under_jitcheck(pytester: pytest.Pytester) -> None:
    tests = sorted(EXAMPLES.rglob("test_*.py"))
    assert tests, "the examples ship their tests"
    result = pytester.runpytest_subprocess("--jitcheck", "-p", "no:cacheprovider", str(EXAMPLES))
    outcomes = result.parseoutcomes()
    assert result.ret == 0, result.stdout.str()
    assert outcomes.get("passed", 0) >= 10 and set(outcomes) <= {"passed", "seconds"}, outcomes
