"""assert_compiles as a context manager and as a fixture: counts, messages, bad input."""

from __future__ import annotations

import re
import sys

import jax
import jax.numpy as jnp
import pytest

from pytest_jitcheck import (
    AssertCompilesFixture,
    CompileCount,
    CompileCountError,
    JitcheckUsageError,
    assert_compiles,
)


def test_exact_count_passes_and_exposes_events():
    f = jax.jit(lambda x: x + 1)
    with assert_compiles(1) as seen:
        f(jnp.ones(3))
        f(jnp.ones(3))
    assert isinstance(seen, CompileCount)
    assert seen.count == 1
    assert [str(e.signature) for e in seen.events] == ["x: f32[3]"]


def test_failure_lists_each_compilation_with_reason_and_caller_line():
    @jax.jit
    def step(x, n):
        return x * n

    block_line = sys._getframe().f_lineno + 1
    with pytest.raises(CompileCountError) as info, assert_compiles(1):
        step(jnp.ones(3), 2)
        step(jnp.ones(4), 2)
    text = str(info.value)
    lines = text.splitlines()
    assert lines[0] == (
        "[jitcheck] expected exactly 1 compilation of any jitted function in the block at "
        f"tests/plugin/test_assert_compiles.py:{block_line}, got 2:"
    )
    assert re.match(
        r"  1\. .*step \(tests/plugin/test_assert_compiles.py:\d+\) called at "
        r"tests/plugin/test_assert_compiles.py:\d+ with \(x: f32\[3\], n: weak_i32\[\]\)",
        lines[1],
    )
    assert lines[2] == "     first compilation"
    assert lines[4] == "     recompiled: x: f32[3] -> f32[4]"
    assert lines[5].startswith("     hint: shapes or dtypes vary")


def test_fn_restricts_the_count_to_one_function():
    step = jax.jit(lambda x: x * 2)
    other = jax.jit(lambda x: x * 3)
    step(jnp.ones(2))
    with assert_compiles(0, fn=step) as seen:
        step(jnp.ones(2))
        other(jnp.ones(2))
    assert seen.count == 0
    expected = r"expected exactly 0 compilations of .*<lambda>"
    with pytest.raises(CompileCountError, match=expected), assert_compiles(0, fn=step):
        step(jnp.ones(5))


def test_max_allows_up_to_n():
    f = jax.jit(lambda x: x)
    with assert_compiles(max=2) as seen:
        f(jnp.ones(1))
        f(jnp.ones(2))
    assert seen.count == 2
    expected = r"expected at most 1 compilation of any .* got 2:"
    with pytest.raises(CompileCountError, match=expected), assert_compiles(max=1):
        f(jnp.ones(3))
        f(jnp.ones(4))


def test_zero_compilations_message_has_no_list():
    with pytest.raises(CompileCountError) as info, assert_compiles(1):
        pass
    assert str(info.value).endswith(", got 0.")


def test_exception_in_block_is_not_masked():
    with pytest.raises(KeyError), assert_compiles(3):
        raise KeyError("boom")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "needs an expected count or max="),
        ({"count": 1, "max": 2}, "takes a count or max=, not both"),
        ({"count": -1}, r"assert_compiles\(count=...\) must be >= 0, got -1"),
        ({"max": -2}, r"assert_compiles\(max=...\) must be >= 0, got -2"),
        ({"count": 1.5}, r"takes an int, got float 1.5"),
        ({"count": True}, r"takes an int, got bool True"),
        ({"count": 1, "fn": 3}, r"assert_compiles\(fn=...\) takes a jitted function, got int"),
    ],
)
def test_bad_input_is_a_usage_error(kwargs, message):
    with pytest.raises(JitcheckUsageError, match=r"^\[jitcheck\] .*" + message):
        assert_compiles(**kwargs)


def test_fixture_is_typed_and_reports_its_caller(assert_compiles: AssertCompilesFixture):
    f = jax.jit(lambda x: -x)
    line = sys._getframe().f_lineno + 2
    expected = rf"test_assert_compiles.py:{line}, got 1"
    with pytest.raises(CompileCountError, match=expected), assert_compiles(0):
        f(jnp.ones(2))
    with assert_compiles(0):
        f(jnp.ones(2))


def test_forgetting_with_and_bad_arguments_fail_with_one_line(pytester):
    pytester.makepyfile(
        test_usage="""
        from pytest_jitcheck import assert_compiles

        def test_forgot_with():
            assert_compiles(1)

        def test_fixture_forgot_with(assert_compiles):
            assert_compiles(0)

        def test_bad_argument(assert_compiles):
            with assert_compiles("one"):
                pass
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines_random(
        [
            "[[]jitcheck[]] assert_compiles(...) at test_usage.py:4 was never entered, so it "
            "checked nothing: write `with assert_compiles(...):` around the calls",
            "[[]jitcheck[]] assert_compiles(...) at test_usage.py:7 was never entered*",
            "E * [[]jitcheck[]] assert_compiles(count=...) takes an int, got str 'one'",
        ]
    )
    # The user's line, not the plugin's frames.
    result.stdout.fnmatch_lines(["test_usage.py:10: *"])
    result.stdout.no_fnmatch_line("*pytest_jitcheck/assertions.py*")


def test_forgetting_with_outside_pytest_warns():
    import subprocess
    import sys

    code = (
        "import warnings\n"
        "from pytest_jitcheck import assert_compiles\n"
        "with warnings.catch_warnings(record=True) as seen:\n"
        "    warnings.simplefilter('always')\n"
        "    assert_compiles(1)\n"
        "print(seen[0].message)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "was never entered" in out.stdout
