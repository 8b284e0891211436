"""End to end: the jit_and_eager marker and assert_jit_matches_eager inside pytest."""

from __future__ import annotations

import jax  # noqa: F401  (pytester restores sys.modules after inline runs; jaxlib can't load twice)
import pytest

INI = """
[pytest]
addopts = --strict-markers
filterwarnings = error
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini(INI)
    return pytester


def test_jit_and_eager_runs_twice_with_parametrize_fixtures_and_classes(project):
    project.makepyfile(
        """
        import jax
        import jax.numpy as jnp
        import pytest

        @jax.jit
        def log_exp(x):
            return jnp.log(jnp.exp(x))

        @pytest.fixture
        def data():
            return jnp.arange(3.0)

        @pytest.mark.jit_and_eager
        @pytest.mark.parametrize("n", [1, 2])
        def test_param(n, data, request):
            assert jax.config.jax_disable_jit == ("[eager" in request.node.name)
            assert float(log_exp(data * n).sum()) == pytest.approx(3.0 * n)

        @pytest.mark.jit_and_eager
        class TestModel:
            def test_saturates(self):
                # Caught here: jit rewrites log(exp(x)) to x, eagerly exp(100.) overflows.
                assert float(log_exp(100.0)) == 100.0

        def test_plain():
            assert not jax.config.jax_disable_jit
        """
    )
    result = project.runpytest("-v")
    result.assert_outcomes(passed=6, failed=1)
    result.stdout.fnmatch_lines_random(
        [
            "*::test_param[[]jit-1[]] PASSED*",
            "*::test_param[[]jit-2[]] PASSED*",
            "*::test_param[[]eager-1[]] PASSED*",
            "*::test_param[[]eager-2[]] PASSED*",
            "*::TestModel::test_saturates[[]jit[]] PASSED*",
            "*::TestModel::test_saturates[[]eager[]] FAILED*",
            "*::test_plain PASSED*",
        ]
    )


def test_jit_and_eager_rejects_arguments(project):
    project.makepyfile(
        """
        import pytest

        @pytest.mark.jit_and_eager("twice")
        def test_x():
            pass
        """
    )
    result = project.runpytest()
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(["*[[]jitcheck[]] @pytest.mark.jit_and_eager takes no arguments*"])
    result.stdout.no_fnmatch_line("*Traceback*")


def test_helper_failures_read_well_in_pytest_output(project):
    project.makepyfile(
        """
        import jax.numpy as jnp
        from pytest_jitcheck import assert_jit_matches_eager

        def log_exp(x):
            return jnp.log(jnp.exp(x))

        def test_log_exp():
            assert_jit_matches_eager(log_exp, jnp.array([1.0, 100.0]))

        def test_usage():
            assert_jit_matches_eager(log_exp, jnp.ones(2), atol=-1)
        """
    )
    result = project.runpytest()
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "E *[[]jitcheck[]] jit and eager results of `log_exp` (test_helper_failures_*.py:4)*",
            "E *output: f32[[]2[]]: 1 of 2 elements differ (tolerance rtol=1e-05, atol=1e-05)",
            "E *inf only in the eager result at 1 element; first at [[]1[]]: jit=100.0 eager=inf",
        ]
    )
    result.stdout.fnmatch_lines(
        ["E *JitcheckUsageError: [[]jitcheck[]] atol must be a non-negative number, got -1"]
    )
    # The helper hides its own frames: the traceback ends in the test.
    assert "compare.py" not in result.stdout.str()
