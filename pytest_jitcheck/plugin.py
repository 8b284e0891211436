"""pytest hooks of pytest-jitcheck (entry point ``jitcheck``).

JAX is imported lazily: pytest loads this module on every run, and JAX's device and
flag set-up must be able to happen before its backend initialises.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Generator
from importlib.metadata import version
from typing import Any

import pytest

from pytest_jitcheck._errors import PREFIX, JitcheckUsageError
from pytest_jitcheck._marker import LEAK_MODES, jitcheck_marker_options
from pytest_jitcheck.accounting import history
from pytest_jitcheck.assertions import AssertCompilesFixture, take_never_entered
from pytest_jitcheck.checks import Settings, TestCheck, event_json, plain
from pytest_jitcheck.report import SessionStats

# Each half of the plugin keeps its hooks in its own module; pytest registers them
# together with this one.
pytest_plugins = ["pytest_jitcheck.compare_plugin"]

SETTINGS = pytest.StashKey[Settings]()
STATS = pytest.StashKey[SessionStats]()
CHECK = pytest.StashKey[TestCheck]()


def _non_negative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"{PREFIX} expected an integer >= 0, got {text!r}")
    return value


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("jitcheck", "jax.jit checks (pytest-jitcheck)")
    group.addoption(
        "--jitcheck",
        action="store_true",
        default=None,
        help="run every test under tracer-leak checking and compile accounting.",
    )
    group.addoption(
        "--jitcheck-max-recompiles",
        type=_non_negative,
        default=None,
        metavar="N",
        help="also warn (RecompileWarning) when a function compiles more than N times in a "
        "test (default: off; wasteful recompilations always warn).",
    )
    group.addoption(
        "--jitcheck-leaks",
        choices=LEAK_MODES,
        default=None,
        help="tracer-leak checker: fast (default; live tracers after each test), strict "
        "(JAX's checker, slower: disables trace caching) or off.",
    )
    group.addoption(
        "--jitcheck-report",
        default=None,
        metavar="FILE.json",
        help="write every compilation of the session to FILE.json.",
    )
    group.addoption(
        "--jitcheck-html",
        default=None,
        metavar="FILE.html",
        help="write a self-contained visual compile report to FILE.html.",
    )
    group.addoption(
        "--jitcheck-trace",
        default=None,
        metavar="FILE.json",
        help="write compilations as Chrome/Perfetto trace events to FILE.json.",
    )
    parser.addini("jitcheck", type="bool", default=False, help="enable --jitcheck.")
    parser.addini("jitcheck_max_recompiles", default="", help="--jitcheck-max-recompiles.")
    parser.addini("jitcheck_leaks", default="fast", help="--jitcheck-leaks.")
    parser.addini("jitcheck_report", default="", help="--jitcheck-report.")
    parser.addini("jitcheck_html", default="", help="--jitcheck-html.")
    parser.addini("jitcheck_trace", default="", help="--jitcheck-trace.")


def _output_file(config: pytest.Config, name: str, option: str) -> str | None:
    """Return a report path from the option or ini key, checked before any test runs."""
    path = config.getoption(name) or str(config.getini(name)).strip() or None
    if path is None:
        return None
    if path.endswith(("/", os.sep)) or os.path.isdir(path):
        raise pytest.UsageError(f"{PREFIX} {option} takes a file name, got the directory {path!r}")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder) or not os.access(folder, os.W_OK):
        raise pytest.UsageError(
            f"{PREFIX} cannot write the report {path!r}: {folder} is not a writable directory"
        )
    return path


def _settings(config: pytest.Config) -> Settings:
    enabled = bool(config.getoption("jitcheck") or config.getini("jitcheck"))
    max_recompiles = config.getoption("jitcheck_max_recompiles")
    raw = str(config.getini("jitcheck_max_recompiles")).strip()
    if max_recompiles is None and raw:
        try:
            max_recompiles = _non_negative(raw)
        except argparse.ArgumentTypeError as exc:
            raise pytest.UsageError(f"jitcheck_max_recompiles (ini): {exc}") from None
    leaks = config.getoption("jitcheck_leaks") or str(config.getini("jitcheck_leaks")).strip()
    if leaks not in LEAK_MODES:
        raise pytest.UsageError(
            f"{PREFIX} jitcheck_leaks (ini) must be one of {', '.join(LEAK_MODES)}, got {leaks!r}"
        )
    report = _output_file(config, "jitcheck_report", "--jitcheck-report")
    html = _output_file(config, "jitcheck_html", "--jitcheck-html")
    trace = _output_file(config, "jitcheck_trace", "--jitcheck-trace")
    # Asking for a report turns accounting on.
    enabled = enabled or any((report, html, trace))
    return Settings(enabled, max_recompiles, leaks, report, html, trace)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "jitcheck(max_compiles=None, leaks=None, eager=None): per-test pytest-jitcheck "
        "settings; exceeding max_compiles fails the test.",
    )
    config.stash[SETTINGS] = settings = _settings(config)
    workerinput: dict[str, Any] | None = getattr(config, "workerinput", None)
    worker = str(workerinput.get("workerid", "worker")) if workerinput else "main"
    config.stash[STATS] = stats = SessionStats(worker)
    history.new_session()
    if settings.enabled and config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_XdistHooks(stats), "jitcheck-xdist")


def pytest_report_header(config: pytest.Config) -> str | None:
    settings = config.stash[SETTINGS]
    if not settings.enabled:
        return None
    import jax

    # Asking for the backend here would initialise it before test modules can set
    # device flags, so the header shows the requested platforms and the summary the
    # backend actually used.
    platforms = getattr(jax.config, "jax_platforms", None) or "auto"
    extra = "".join(
        f", {name}={value}"
        for name, value in (
            ("max-recompiles", settings.max_recompiles),
            ("report", settings.report),
            ("html", settings.html),
            ("trace", settings.trace),
        )
        if value is not None
    )
    return (
        f"jitcheck: on (leaks={settings.leaks}{extra}); jax {jax.__version__}, "
        f"jaxlib {version('jaxlib')}, backend {platforms}"
    )


@pytest.fixture
def assert_compiles() -> AssertCompilesFixture:
    """Assert how often a block compiles: ``with assert_compiles(1): step(x)``."""
    return AssertCompilesFixture()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    settings = item.config.stash[SETTINGS]
    if settings.enabled or item.get_closest_marker("jitcheck") is not None:
        try:
            marker = jitcheck_marker_options(item)
        except JitcheckUsageError as exc:
            problem = str(exc)
        else:
            problem = ""
        if problem:
            pytest.fail(problem, pytrace=False)
        check = TestCheck(item.nodeid, settings, marker)
        item.stash[CHECK] = check
        check.start()
        try:
            return (yield)
        except BaseException as exc:
            # A fixture that leaked a tracer, caught by JAX's checker in strict mode.
            translated = check.translate(exc)
            if translated is not None:
                raise translated from exc
            raise
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    check = item.stash.get(CHECK, None)
    if check is None:
        result = yield
        _fail_never_entered()
        return result
    try:
        result = yield
    except BaseException as exc:
        check.stop()
        translated = check.translate(exc)
        if translated is not None:
            raise translated from exc
        raise
    _fail_never_entered()
    check.check_after_call()
    return result


def _fail_never_entered() -> None:
    __tracebackhide__ = True
    dropped = take_never_entered()
    if dropped:
        raise plain(JitcheckUsageError("\n".join(dropped)))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    exc = call.excinfo.value if call.excinfo is not None else None
    if getattr(exc, "jitcheck_plain", False):
        # The failure is the test's, but the traceback would be the plugin's own frames.
        report.longrepr = str(exc)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, None, None]:
    try:
        return (yield)
    finally:
        check = item.stash.get(CHECK, None)
        if check is not None:
            check.stop()
            item.config.stash[STATS].add_test(item.nodeid, event_json(check.events))
            del item.stash[CHECK]


def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    settings = config.stash[SETTINGS]
    if not settings.enabled:
        return
    stats = config.stash[STATS]
    if "jax" in sys.modules:
        stats.backend = sys.modules["jax"].default_backend()
    workeroutput: dict[str, Any] | None = getattr(config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["jitcheck"] = stats.worker_output()
    else:
        stats.write_outputs(report=settings.report, html=settings.html, trace=settings.trace)


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    if not config.stash[SETTINGS].enabled or hasattr(config, "workerinput"):
        return
    terminalreporter.write_sep("=", "jitcheck compile summary")
    for line in config.stash[STATS].terminal_lines():
        terminalreporter.write_line(line)


class _XdistHooks:
    """Merge the workers' compile events into the controller's summary and report."""

    def __init__(self, stats: SessionStats) -> None:
        self.stats = stats

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        data = getattr(node, "workeroutput", {}).get("jitcheck")
        if data:
            self.stats.merge(data)
