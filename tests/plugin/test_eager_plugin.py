"""End to end: --jitcheck-eager and @pytest.mark.jitcheck(eager=...).

These run pytest in a subprocess: the plugin wraps ``jax.jit`` when JAX is first
imported, which only happens once per process.
"""

from __future__ import annotations

import pytest

# Each test runs pytest in a subprocess (JAX start-up, compilations): tens of seconds.
pytestmark = pytest.mark.slow

LIBRARY = '''
from functools import partial

import jax
import jax.numpy as jnp
from jax import jit
from jax.experimental import io_callback

SCALE = 1.0
CALLS = []


@jax.jit
def log_exp(x):
    """Return log(exp(x))."""
    return jnp.log(jnp.exp(x))


@partial(jax.jit, static_argnames="n")
def power(x, n):
    return x**n


@jit
def scaled(x):
    return x * SCALE


try:
    jit_k = jax.jit(static_argnames="k")
except TypeError:  # older JAX has no decorator-factory form of jit
    jit_k = partial(jax.jit, static_argnames="k")


@jit_k
def add_k(x, k):
    return x + k


@partial(jax.jit, donate_argnums=0)
def double_in_place(x):
    return x * 2


@jax.jit
def logged(x):
    io_callback(CALLS.append, None, x)
    return x + 1


@jax.jit
def traced_only(x):
    if not isinstance(x, jax.core.Tracer):
        raise TypeError("call me under jit")
    return x + 1


class Model:
    @partial(jax.jit, static_argnums=0)
    def apply(self, x):
        return x + 1


class Remember:
    @partial(jax.jit, static_argnums=0)
    def __call__(self, x):
        self.last = x  # trace-time write: a tracer (a leak, if nobody clears it)
        return x * 2
'''

TESTS = """
import pickle

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mylib


def test_transparent():
    assert float(mylib.power(jnp.float32(2.0), n=3)) == 8.0
    assert float(mylib.add_k(jnp.float32(2.0), k=3)) == 5.0
    assert mylib.Model().apply(1.0) == 2.0
    assert "log" in mylib.log_exp.lower(1.0).as_text()
    assert mylib.log_exp.trace(1.0).jaxpr is not None
    assert mylib.log_exp.eval_shape(jnp.ones(3)).shape == (3,)
    mylib.log_exp.clear_cache()
    assert mylib.log_exp.__name__ == "log_exp"
    assert mylib.log_exp.__doc__ == "Return log(exp(x))."
    assert mylib.log_exp.__wrapped__.__name__ == "log_exp"
    x = jnp.ones(3)
    np.testing.assert_array_equal(mylib.double_in_place(x), np.full(3, 2.0))
    assert x.is_deleted()
    out = pickle.loads(pickle.dumps(mylib.power(jnp.ones(2), n=2)))
    np.testing.assert_array_equal(out, np.ones(2))
    assert jax.grad(mylib.power)(3.0, n=2) == 6.0
    assert jax.vmap(mylib.log_exp)(jnp.ones(2)).shape == (2,)


def test_trace_time_writes_are_what_jit_left():
    remember = mylib.Remember()
    remember(jnp.ones(2))
    assert isinstance(remember.last, jax.core.Tracer)  # not the eager run's array
    remember.last = None


def test_log_exp():
    mylib.log_exp(jnp.array([1.0, 100.0]))


def test_stale_global_1():
    mylib.scaled(jnp.ones(2))
    mylib.SCALE = 2.0


def test_stale_global_2():
    mylib.scaled(jnp.ones(2))


def test_side_effects_are_not_rerun():
    mylib.logged(jnp.float32(1.0))
    jax.effects_barrier()
    assert len(mylib.CALLS) == 1


def test_eager_impossible():
    assert int(mylib.traced_only(2)) == 3


def test_helpers_do_their_own_comparison():
    from pytest_jitcheck import assert_jit_matches_eager

    with pytest.raises(AssertionError):
        assert_jit_matches_eager(lambda x: jnp.log(jnp.exp(x)), 100.0)


@pytest.mark.jitcheck(eager=False)
def test_opted_out():
    mylib.log_exp(jnp.array([1.0, 100.0]))


@pytest.mark.jitcheck(eager=True)
def test_opted_in():
    mylib.log_exp(jnp.array([5.0, 200.0]))


@pytest.mark.jitcheck(eager=True)
def test_fails_on_its_own_too():
    mylib.log_exp(jnp.array([7.0, 300.0]))
    assert False, "its own failure"
"""

# A conftest that replaces jax.jit itself, as compile accounting might: both must work.
STACKED_CONFTEST = """
import jax

WRAPPED = []
_inner = jax.jit


def counting_jit(*args, **kwargs):
    WRAPPED.append(args[0] if args else None)
    return _inner(*args, **kwargs)


jax.jit = counting_jit
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini(
        "[pytest]\naddopts = --strict-markers -p no:cacheprovider\nfilterwarnings = error\n"
    )
    pytester.makepyfile(mylib=LIBRARY, test_lib=TESTS)
    pytester.syspathinsert()
    return pytester


def test_eager_option_checks_every_jitted_function(project):
    project.makeconftest(STACKED_CONFTEST)
    project.makepyfile(
        test_stacked="""
        import conftest
        import mylib

        def test_both_wrappers_saw_the_functions():
            assert mylib.log_exp.__wrapped__ in conftest.WRAPPED
        """
    )
    # Under xdist too: the notes travel from the workers to the summary.
    result = project.runpytest_subprocess(
        "--jitcheck-eager", "-rA", "-n", "2", "--dist", "loadfile", "-p", "no:benchmark"
    )
    result.assert_outcomes(passed=8, failed=4)
    result.stdout.fnmatch_lines(["jitcheck: jitted functions are cross-checked against eager"])
    result.stdout.fnmatch_lines(
        [
            "*_ test_log_exp _*",
            "[[]jitcheck[]] eager cross-check: jitted `log_exp` (mylib.py:12) and its eager run "
            "differ, called at test_lib.py:39 with (float32[[]2[]]):",
            "  output: f32[[]2[]]: 1 of 2 elements differ (tolerance rtol=1e-05, atol=1e-05)",
            "    inf only in the eager result at 1 element; first at [[]1[]]: jit=100.0 eager=inf",
        ]
    )
    # The first test traced `scaled` with SCALE=1 and changed it; the next test catches it.
    result.stdout.fnmatch_lines(
        [
            "*_ test_stale_global_2 _*",
            "*jitted `scaled` (mylib.py:23) and its eager run differ*",
            "    worst at [[]0[]]: jit=1.0 eager=2.0",
        ]
    )
    result.stdout.fnmatch_lines(["*_ test_opted_in _*", "*jitted `log_exp`*"])
    result.stdout.fnmatch_lines(
        [
            "*- jitcheck: jitted functions not cross-checked -*",
            "`logged` (mylib.py:44): not cross-checked, it has side effects (IOEffect) that an "
            "eager re-run would repeat",
            "`traced_only` (mylib.py:50): not cross-checked, its eager run raised TypeError: "
            "call me under jit",
        ]
    )
    result.stdout.fnmatch_lines_random(
        [
            "PASSED test_lib.py::test_transparent",
            "PASSED test_lib.py::test_trace_time_writes_are_what_jit_left",
            "PASSED test_lib.py::test_stale_global_1",
            "PASSED test_lib.py::test_side_effects_are_not_rerun",
            "PASSED test_lib.py::test_eager_impossible",
            "PASSED test_lib.py::test_helpers_do_their_own_comparison",
            "PASSED test_lib.py::test_opted_out",
            "PASSED test_stacked.py::test_both_wrappers_saw_the_functions",
        ]
    )


def test_marker_opts_in_and_out_under_the_option(project):
    project.makepyfile(
        test_bad="""
        import pytest

        @pytest.mark.jitcheck(eager="yes")
        def test_bad_value():
            pass
        """
    )
    # Under --jitcheck-eager jax.jit is wrapped from the start, so the marker reaches
    # import-time functions; opted-out tests stay unchecked.
    result = project.runpytest_subprocess("-rA", "--jitcheck-eager", "-p", "no:randomly")
    result.assert_outcomes(passed=7, failed=4, errors=1)
    result.stdout.fnmatch_lines(["FAILED test_lib.py::test_opted_in - Failed: [[]jitcheck[]]*"])
    result.stdout.no_fnmatch_line("FAILED test_lib.py::test_opted_out*")
    result.stdout.fnmatch_lines(
        [
            "*_ ERROR at setup of test_bad_value _*",
            "[[]jitcheck[]] @pytest.mark.jitcheck(eager=...) takes True or False, got 'yes'",
            "=*=",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*_ test_fails_on_its_own_too _*",
            "E * its own failure*",
            "*- Captured jitcheck call -*",
            "[[]jitcheck[]] eager cross-check: jitted `log_exp`*",
        ]
    )


def test_ini_turns_it_on_and_no_test_means_no_wrapping(project):
    result = project.runpytest_subprocess("-o", "jitcheck_eager=true", "-k", "stale or log_exp")
    result.assert_outcomes(passed=1, failed=2)
    project.makepyfile(
        test_lib="""
        import jax

        import mylib

        def test_never_wrapped_under_plain_jitcheck():
            # Compile accounting needs no wrapper: plain --jitcheck leaves jax.jit alone,
            # so libraries that record type(jax.jit(f)) at import see JAX's own type.
            assert type(jax.jit(abs)) is type(mylib.log_exp)
            assert type(mylib.log_exp).__module__.startswith("jaxlib")
            assert float(mylib.log_exp(100.0)) == 100.0
        """
    )
    result = project.runpytest_subprocess("--jitcheck")
    result.assert_outcomes(passed=1)


def test_plain_pytest_leaves_jax_jit_alone(project):
    project.makepyfile(
        test_lib="""
        import jax
        import jax.numpy as jnp
        import pytest

        import mylib

        ORIGINAL_JIT = jax.jit

        def test_untouched():
            assert jax.jit is ORIGINAL_JIT
            assert type(mylib.log_exp) is type(jax.jit(abs))
            assert type(mylib.log_exp).__module__.startswith("jaxlib")

        @pytest.mark.jitcheck(eager=True)
        def test_marked_covers_functions_jitted_later():
            # Import-time mylib.log_exp is not wrapped in a plain session, so only the
            # function jitted here is cross-checked (and fails).
            assert float(mylib.log_exp(jnp.float32(100.0))) == 100.0
            later = jax.jit(lambda x: jnp.log(jnp.exp(x)))
            later(jnp.float32(100.0))
        """
    )
    result = project.runpytest_subprocess("-k", "untouched")
    result.assert_outcomes(passed=1)
    # A marked test makes the plugin wrap jax.jit after collection, not before.
    result = project.runpytest_subprocess("-k", "marked")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*_ test_marked_covers_functions_jitted_later _*",
            "[[]jitcheck[]] eager cross-check: jitted `*<lambda>` (test_lib.py:19)*",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*- jitcheck: jitted functions not cross-checked -*",
            "functions jitted at import time: not cross-checked, the session ran without "
            "--jitcheck-eager*",
        ]
    )


ROBUSTNESS = """
import jax
import jax.numpy as jnp
from functools import partial

TYPE_AT_IMPORT = type(jax.jit(abs))


@jax.jit
def next_key(key):
    return jax.random.split(key)[0]


@partial(jax.jit, donate_argnums=0)
def passthrough(x, y):
    return x, y + 1


@jax.jit
def int_grad(x, n):
    return jax.grad(lambda x, n: (x * n).sum(), argnums=(0, 1), allow_int=True)(x, n)


class Node:
    # A pytree node whose metadata compares by identity: equal-looking, never ==.
    def __init__(self, value, meta):
        self.value, self.meta = value, meta


jax.tree_util.register_pytree_node(
    Node, lambda n: ((n.value,), object()), lambda meta, children: Node(children[0], meta)
)


@jax.jit
def node(x):
    return Node(x * 2, None)


def test_typed_keys():
    key = next_key(jax.random.key(0))
    assert jax.dtypes.issubdtype(key.dtype, jax.dtypes.prng_key)


def test_donated_argument_returned_as_it_is():
    out, _ = passthrough(jnp.ones(3), jnp.ones(3))
    assert out.shape == (3,)


def test_float0_gradients():
    gx, gn = int_grad(jnp.ones(2), jnp.arange(2))
    assert gn.dtype == jax.dtypes.float0


def test_identity_compared_node_metadata():
    assert node(jnp.ones(2)).value.shape == (2,)


def test_isinstance_of_jit_type():
    assert isinstance(next_key, TYPE_AT_IMPORT)
    assert isinstance(jax.jit(abs), type(next_key))
"""


def test_eager_checks_never_crash_on_keys_donation_float0_and_odd_nodes(pytester):
    pytester.makeini("[pytest]\naddopts = -p no:cacheprovider\nfilterwarnings = error\n")
    pytester.makepyfile(test_robust=ROBUSTNESS)
    result = pytester.runpytest_subprocess("--jitcheck-eager", "-rA")
    result.assert_outcomes(passed=5)
    result.stdout.no_fnmatch_line("*not cross-checked*")


def test_filter_jit_mismatch_names_the_users_function_and_arguments(pytester):
    pytest.importorskip("equinox")
    pytester.makeini("[pytest]\naddopts = -p no:cacheprovider\nfilterwarnings = error\n")
    pytester.makepyfile(
        test_eqx="""
        import equinox as eqx
        import jax
        import jax.numpy as jnp


        @eqx.filter_jit
        def scale(x, n, *, offset=0.0):
            # differs under jit (decided at trace time): a stand-in for a real mismatch
            return x * n + (0.0 if jax.config.jax_disable_jit else 1.0)


        def test_scale():
            scale(jnp.ones(2), 3, offset=jnp.float32(1))
        """
    )
    result = pytester.runpytest_subprocess("--jitcheck-eager")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "[[]jitcheck[]] eager cross-check: jitted `scale` (*test_eqx.py:6) and its eager "
            "run differ, called at *test_eqx.py:13 with "
            "(x: f32[[]2[]], n (static): 3, offset: f32[[]]):",
        ]
    )
    result.stdout.no_fnmatch_line("*dynamic_nodonate*")
