"""End-to-end: ``pytest --jitcheck`` on a suite of planted bugs, in subprocesses.

Each subprocess imports JAX (a second or two), so one scenario file covers many
behaviours per run.
"""

from __future__ import annotations

import json

import pytest

# Each test runs pytest in a subprocess (JAX start-up, compilations): tens of seconds.
pytestmark = pytest.mark.slow

SCENARIOS = """
import functools
import jax
import jax.numpy as jnp
import pytest

LEAK = []


class Model:
    def __init__(self):
        self.cache = None

    @functools.partial(jax.jit, static_argnums=0)
    def forward(self, x):
        self.cache = x
        return x * 2


MODEL = Model()


@jax.jit
def square(x):
    return x * x


@jax.jit
def leaky(x):
    LEAK.append(x)
    return x + 1


def test_clean():
    square(jnp.ones(3))
    square(jnp.ones(3))


def test_leak_global():
    leaky(jnp.ones(2))


def test_leak_attribute():
    MODEL.forward(jnp.ones(2))


def test_use_leaked():
    leaky(jnp.ones(4))
    LEAK[-1] + 1


@pytest.mark.jitcheck(leaks=False)
def test_leak_allowed():
    leaky(jnp.ones(5))


def test_recompiles_warn():
    for _ in range(3):
        jax.jit(lambda x: x + 1)(jnp.ones(2))


@pytest.mark.filterwarnings("error::pytest_jitcheck.RecompileWarning")
def test_recompiles_error():
    for _ in range(3):
        jax.jit(lambda x: x - 1)(jnp.ones(2))


def test_shapes_on_purpose():
    for n in range(1, 6):
        square(jnp.ones((n, 2)))


@pytest.mark.jitcheck(max_compiles=1)
def test_max_compiles():
    f = jax.jit(lambda x, n: x * n, static_argnames="n")
    f(jnp.ones(2), n=2)
    f(jnp.ones(2), n=3)


@pytest.mark.jitcheck(max_compiles=2)
def test_max_compiles_ok():
    square(jnp.ones(40))
    square(jnp.ones(41))


@pytest.mark.jitcheck(max_compiles=-1)
def test_bad_marker():
    pass


def _leak_into_local():
    seen = []

    @jax.jit
    def f(x):
        seen.append(x)
        return x

    f(jnp.ones(6))


def test_leak_closure():
    _leak_into_local()


def _vmap_leak_into_local():
    seen = []

    def f(x):
        seen.append(x)
        return x

    jax.vmap(f)(jnp.ones(3))


@pytest.mark.jitcheck(leaks="strict")
def test_strict_catches_dead_leak():
    _vmap_leak_into_local()


def test_fast_misses_dead_leak():
    _vmap_leak_into_local()


GRAD_LEAK = []


@pytest.mark.jitcheck(leaks="strict")
def test_strict_catches_grad_leak():
    def f(x):
        GRAD_LEAK.append(x)
        return x * x

    jax.grad(f)(1.0)


def test_config_restored():
    assert not jax.config.jax_check_tracer_leaks
"""

OUTCOMES = {"passed": 7, "failed": 8, "errors": 1}


def _line(text: str) -> int:
    """Return the 1-based line of ``text`` in the scenario file."""
    return SCENARIOS.lstrip("\n").splitlines().index(text) + 1


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    # As in equinox, optimistix and flax: every warning is an error, unless named.
    pytester.makeini("[pytest]\nfilterwarnings = error\n")
    pytester.makepyfile(test_scenarios=SCENARIOS)
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:randomly", *args)


def test_jitcheck_run_reports_each_bug(pytester):
    result = _run(pytester, "--jitcheck", "--jitcheck-report", "report.json", "-rfE")
    result.assert_outcomes(**OUTCOMES, warnings=1)
    result.stdout.fnmatch_lines_random(
        [
            "jitcheck: on (leaks=fast, report=report.json); jax *, jaxlib *, backend *",
            # leak into a module global, with the path that keeps it alive
            "[[]jitcheck[]] tracer leak in test_scenarios.py::test_leak_global: 1 tracer(s) "
            "outlived the jitted function that created them",
            "  - tracer float32[[]2[]] from leaky at */test_scenarios.py:*, still reachable as "
            "test_scenarios.LEAK[[]0[]]",
            "  hint: return values out of the jitted function instead of storing them in *",
            # leak into an attribute of an object
            "  - tracer float32[[]2[]] from forward at *, still reachable as "
            "test_scenarios.MODEL.cache",
            # a leaked tracer used later: JAX's UnexpectedTracerError, reported our way
            "[[]jitcheck[]] tracer leak in test_scenarios.py::test_use_leaked: a tracer escaped "
            f"its jitted function and was used at test_scenarios.py:{_line('    LEAK[-1] + 1')}",
            "  Encountered an unexpected tracer.*",
            # a wasteful recompilation warns, naming why it was avoidable; a blanket
            # filterwarnings = error does not make it fail the test ...
            "*RecompileWarning: [[]jitcheck[]] wasteful recompilation of "
            "test_recompiles_warn.<locals>.<lambda> in test_scenarios.py::test_recompiles_warn:"
            " a fresh function object for the same code, with a signature already compiled:",
            "       recompiled: a new function object for the same code *",
            # ... a filter that names the warning does
            "*_ test_recompiles_error _*",
            "[[]jitcheck[]] wasteful recompilation of test_recompiles_error.<locals>.<lambda> in "
            "test_scenarios.py::test_recompiles_error: a fresh function object *",
            # a leak out of jax.grad, which JAX's own checker misses, in strict mode
            "[[]jitcheck[]] tracer leak in test_scenarios.py::test_strict_catches_grad_leak: *",
            "  - tracer * still reachable as test_scenarios.GRAD_LEAK[[]0[]]",
            # the marker limit fails the test, listing the compilations
            "[[]jitcheck[]] test_scenarios.py::test_max_compiles compiled 2 times, more than "
            "@pytest.mark.jitcheck(max_compiles=1) allows:",
            "     recompiled: n (static): 2 -> 3",
            "     hint: each new value of a static argument compiles again*",
            # a bad marker is a one-line error at that test
            "*_ ERROR at setup of test_bad_marker _*",
            "[[]jitcheck[]] @pytest.mark.jitcheck(max_compiles=...) takes an int >= 0, got -1",
            # the strict checker catches a leak into a container that dies with the test
            "[[]jitcheck[]] tracer leak in test_scenarios.py::test_strict_catches_dead_leak: a "
            "tracer escaped its jitted function (found by JAX's leak checker in a trace started "
            "at test_scenarios.py:*)",
            "  Leaked trace *",
            # a leak into a closure of a function jitted in the test
            "  - tracer float32[[]6[]] from f at *, still reachable as seen[[]0[]] (a variable "
            "captured by _leak_into_local.<locals>.f)",
            # the summary ranks functions by compilations, with reasons
            "*= jitcheck compile summary =*",
            "* compilation(s) of * jitted function(s), * s tracing+lowering+compiling "
            "(backend cpu)",
            " count  seconds  function",
            "*  square (test_scenarios.py:*)",
            "                 *x x: shape, last x: *",
        ]
    )
    result.stdout.no_fnmatch_line("*Traceback*pytest_jitcheck*")
    result.stdout.no_fnmatch_line("*test_fast_misses_dead_leak*FAILED*")
    result.stdout.no_fnmatch_line("*test_shapes_on_purpose*FAILED*")
    result.stdout.no_fnmatch_line("*RecompileWarning*test_shapes_on_purpose*")
    report = json.loads((pytester.path / "report.json").read_text())
    assert report["backend"] == "cpu"
    top = report["functions"][0]
    assert top["function"] == "square"
    assert top["compilations"] >= 6
    assert set(top["tests"]) >= {"test_scenarios.py::test_shapes_on_purpose"}
    wasted = report["tests"]["test_scenarios.py::test_recompiles_warn"]
    assert [e["wasteful"] != "" for e in wasted] == [False, True, True]
    assert wasted[1]["changes"] == [
        {"kind": "new function object", "path": "", "old": "", "new": ""}
    ]
    events = report["tests"]["test_scenarios.py::test_max_compiles"]
    assert [e["reason"] for e in events] == ["first compilation", "n (static): 2 -> 3"]
    assert events[1]["signature"]["args"][1] == {"path": "n", "type": "3", "static": True}
    assert not any(e["eager"] for es in report["tests"].values() for e in es)
    return_json = report["tests"]["test_scenarios.py::test_clean"]
    assert len(return_json) == 1 and return_json[0]["call_site"].endswith(
        f"test_scenarios.py:{_line('    square(jnp.ones(3))')}"
    )


def test_xdist_workers_are_aggregated(pytester):
    result = _run(pytester, "--jitcheck", "-n", "2", "--jitcheck-report", "report.json")
    result.assert_outcomes(**OUTCOMES, warnings=1)
    result.stdout.fnmatch_lines(["*= jitcheck compile summary =*"])
    report = json.loads((pytester.path / "report.json").read_text())
    # Every test that compiled is in the merged report, whichever worker ran it.
    assert set(report["tests"]) >= {
        "test_scenarios.py::test_clean",
        "test_scenarios.py::test_shapes_on_purpose",
        "test_scenarios.py::test_max_compiles",
        "test_scenarios.py::test_max_compiles_ok",
    }
    assert report["functions"][0]["function"] == "square"


def test_without_the_flag_only_markers_apply(pytester):
    result = _run(pytester)
    # Leaks are unchecked (test_use_leaked still fails, with JAX's own error), no summary.
    result.assert_outcomes(passed=11, failed=4, errors=1)
    result.stdout.no_fnmatch_line("*jitcheck compile summary*")
    result.stdout.no_fnmatch_line("jitcheck: on*")
    result.stdout.fnmatch_lines_random(
        [
            "FAILED test_scenarios.py::test_max_compiles - [[]jitcheck[]] *",
            "FAILED test_scenarios.py::test_strict_catches_dead_leak - [[]jitcheck[]] *",
            "FAILED test_scenarios.py::test_use_leaked - jax.errors.UnexpectedTracerError*",
        ]
    )


def test_ini_options_and_persistent_cache_hits(pytester):
    # One subprocess for two things: the ini options, and a compilation served from the
    # persistent compilation cache (JAX sets that cache up once per process).
    pytester.makeini(
        "[pytest]\njitcheck = true\njitcheck_max_recompiles = 1\njitcheck_leaks = off\n"
    )
    pytester.makepyfile(
        test_ini="""
        import jax, jax.numpy as jnp
        LEAK = []

        @jax.jit
        def f(x):
            LEAK.append(x)
            return x

        def test_twice():
            f(jnp.ones(1))
            f(jnp.ones(2))
            LEAK.clear()

        def test_persistent_cache_hit(tmp_path):
            from pytest_jitcheck import CompileRecorder

            jax.config.update("jax_compilation_cache_dir", str(tmp_path))
            jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
            jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
            g = jax.jit(lambda x: jnp.sin(x) * 3)
            with CompileRecorder() as first:
                g(jnp.ones(7))
            jax.clear_caches()
            with CompileRecorder() as second:
                g(jnp.ones(7))
            assert [e.cache_hit for e in first.events] == [False]
            assert [e.cache_hit for e in second.events] == [True]
            assert "persistent cache hit" in second.events[0].describe()
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, warnings=2)
    result.stdout.fnmatch_lines(
        [
            "jitcheck: on (leaks=off, max-recompiles=1); *",
            "*RecompileWarning: [[]jitcheck[]] f compiled 2 times in test_ini.py::test_twice "
            "(limit 1, set by --jitcheck-max-recompiles):",
        ]
    )


@pytest.mark.parametrize(
    ("args", "ini", "message"),
    [
        (
            ["--jitcheck-report", "no/such/dir/r.json"],
            "",
            "ERROR: [[]jitcheck[]] cannot write the report 'no/such/dir/r.json': "
            "*/no/such/dir is not a writable directory",
        ),
        (
            ["--jitcheck-report", "reports/"],
            "",
            "ERROR: [[]jitcheck[]] --jitcheck-report takes a file name, got the directory "
            "'reports/'",
        ),
        (
            ["--jitcheck-html", "."],
            "",
            "ERROR: [[]jitcheck[]] --jitcheck-html takes a file name, got the directory '.'",
        ),
        (
            ["--jitcheck-trace", "no/such/dir/t.json"],
            "",
            "ERROR: [[]jitcheck[]] cannot write the report 'no/such/dir/t.json': *",
        ),
        (
            ["--jitcheck-max-recompiles", "-1"],
            "",
            "*--jitcheck-max-recompiles: [[]jitcheck[]] expected an integer >= 0, got '-1'",
        ),
        (
            ["--jitcheck-leaks", "always"],
            "",
            "*--jitcheck-leaks: invalid choice: 'always' (choose from *off*fast*strict*)",
        ),
        (
            [],
            "jitcheck_leaks = sometimes",
            "ERROR: [[]jitcheck[]] jitcheck_leaks (ini) must be one of off, fast, strict, "
            "got 'sometimes'",
        ),
        (
            [],
            "jitcheck_max_recompiles = many",
            "ERROR: jitcheck_max_recompiles (ini): [[]jitcheck[]] expected an integer >= 0, "
            "got 'many'",
        ),
    ],
)
def test_bad_options_fail_at_start_up(pytester, args, ini, message):
    pytester.makeini(f"[pytest]\n{ini}\n")
    (pytester.path / "reports").mkdir()
    pytester.makepyfile(test_nothing="def test_nothing(): pass\n")
    result = pytester.runpytest_subprocess(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    result.stderr.no_fnmatch_line("*Traceback*")


def test_strict_mode_reports_a_fixture_leak_our_way(pytester):
    pytester.makepyfile(
        test_fixture_leak="""
        import jax
        import jax.numpy as jnp
        import pytest

        @pytest.fixture
        def leaked():
            seen = []
            jax.vmap(lambda x: seen.append(x) or x)(jnp.ones(2))
            return seen

        @pytest.mark.jitcheck(leaks="strict")
        def test_uses_it(leaked):
            pass
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--jitcheck")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "[[]jitcheck[]] tracer leak in test_fixture_leak.py::test_uses_it: a tracer escaped "
            "its jitted function (found by JAX's leak checker in a trace started at "
            "test_fixture_leak.py:*)",
        ]
    )
    result.stdout.no_fnmatch_line("*Traceback*")


def test_fast_mode_names_the_fixture_that_holds_a_leak(pytester):
    pytester.makepyfile(
        test_fixture_holder="""
        import jax
        import jax.numpy as jnp
        import pytest

        class Cache:
            def __init__(self):
                self.entries = {}

        @pytest.fixture
        def cache():
            return Cache()

        def test_fills_it(cache):
            @jax.jit
            def f(x):
                cache.entries["last"] = x
                return x

            f(jnp.ones(2))
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--jitcheck")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "[[]jitcheck[]] tracer leak in test_fixture_holder.py::test_fills_it: 1 tracer(s) *",
            "  - tracer float32[[]2[]] from f at *, still reachable as cache.entries[[]'last'[]] "
            "(the value of fixture 'cache')",
        ]
    )


GROWTH = """
import functools

import jax
import jax.numpy as jnp
import pytest


class Config:
    def __init__(self, scale):
        self.scale = scale


_STEPS = {}


def step(cfg, x):
    return x * cfg.scale


def cached_step(cfg):
    # keyed by a Config built in each test: never hits, and keeps every copy alive
    if cfg not in _STEPS:
        _STEPS[cfg] = jax.jit(functools.partial(step, cfg))
    return _STEPS[cfg]


@pytest.mark.parametrize("i", range(4))
def test_grows(i):
    cached_step(Config(2.0))(jnp.ones(3))


@functools.lru_cache(maxsize=None)
def by_value(n):
    return jax.jit(functools.partial(step, Config(n)))


@pytest.mark.parametrize("n", range(4))
def test_cache_by_value(n):
    by_value(n)(jnp.ones(3))


@pytest.fixture
def fresh():
    return jax.jit(lambda x: x + 1)


@pytest.mark.parametrize("i", range(4))
def test_fixture_per_test(fresh, i):
    fresh(jnp.ones(3))


@pytest.mark.parametrize("i", range(4))
def test_local_jit(i):
    jax.jit(lambda x: x * 2)(jnp.ones(3))
"""


@pytest.mark.parametrize("named", [False, True])
def test_unbounded_growth_across_tests_warns(pytester, named):
    filters = "error::pytest_jitcheck.RecompileWarning" if named else "error"
    pytester.makeini(f"[pytest]\nfilterwarnings = {filters}\n")
    pytester.makepyfile(test_growth=GROWTH)
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-p", "no:randomly", "--jitcheck"
    )
    message = (
        "*wasteful recompilation of partial(step) in test_growth.py::test_grows[[]2[]]: "
        "unbounded growth across tests: 3 equal copies of this jitted function, compiled "
        "with the same signature by test_growth.py::test_grows[[]0[]], "
        "test_growth.py::test_grows[[]1[]], test_growth.py::test_grows[[]2[]], are all "
        "still alive; something keeps a new one per test*"
    )
    if named:  # a filter naming the warning fails the test where the pile reaches 3
        result.assert_outcomes(passed=15, failed=1)
        result.stdout.fnmatch_lines(["*FAILED test_growth.py::test_grows[[]2[]]*"])
    else:  # a blanket `error` does not: the warning shows in the summary
        result.assert_outcomes(passed=16, warnings=1)
    result.stdout.fnmatch_lines([message])
    # Copies that die with their test, or differ in what they capture, are no growth.
    for legit in ("test_cache_by_value", "test_fixture_per_test", "test_local_jit"):
        result.stdout.no_fnmatch_line(f"*RecompileWarning*{legit}*")
        result.stdout.no_fnmatch_line(f"*{legit}*RecompileWarning*")


def test_a_fresh_static_object_per_test_is_no_waste_but_per_call_is(pytester):
    pytester.makeini("[pytest]\nfilterwarnings = error::pytest_jitcheck.RecompileWarning\n")
    pytester.makepyfile(
        test_statics="""
        import functools

        import jax
        import jax.numpy as jnp
        import pytest


        class Opts:  # hashes by identity
            def __repr__(self):
                return "Opts()"


        @functools.partial(jax.jit, static_argnums=1)
        def apply(x, opts):
            return x + 1


        @pytest.mark.parametrize("i", range(3))
        def test_one_per_test(i):
            apply(jnp.ones(2), Opts())


        def test_one_per_call():
            for _ in range(2):
                apply(jnp.ones(2), Opts())
        """
    )
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-p", "no:randomly", "--jitcheck"
    )
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(
        [
            "[[]jitcheck[]] wasteful recompilation of apply in test_statics.py::"
            "test_one_per_call: a static argument that hashes by identity*",
            "FAILED test_statics.py::test_one_per_call - *",
        ]
    )
