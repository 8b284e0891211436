"""The pytest hooks of pytest-jitcheck (entry point ``jitcheck``), all in one place.

The work is done elsewhere: options in ``options``, per-test leak and compile checks in
``checks``, the jit-vs-eager cross-check in ``eager``, devices in ``devices``, reports in
``report``. JAX is imported lazily: pytest loads this module on every run, and JAX's
device and flag set-up must be able to happen before its backend initialises.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Generator, Iterator
from importlib.metadata import version
from typing import TYPE_CHECKING, Any

import pytest

from pytest_jitcheck import eager
from pytest_jitcheck._errors import JitcheckUsageError
from pytest_jitcheck._marker import jitcheck_marker_options
from pytest_jitcheck.accounting import growth, history
from pytest_jitcheck.assertions import AssertCompilesFixture, take_never_entered
from pytest_jitcheck.checks import TestCheck, event_json, plain
from pytest_jitcheck.devices import DeviceSpec, resolve_device, simulate_cpu_devices
from pytest_jitcheck.options import Settings, add_options, settings
from pytest_jitcheck.report import SessionStats

if TYPE_CHECKING:
    import jax

STATS = pytest.StashKey[SessionStats]()
CHECK = pytest.StashKey[TestCheck]()
_EAGER_ITEM = pytest.StashKey[bool]()
# Autouse fixture that pytest_generate_tests parametrizes with "jit"/"eager".
_MODE_FIXTURE = "_jitcheck_jit_mode"
_NOTE = "jitcheck_not_cross_checked"
_LATE_NOTE = (
    "functions jitted at import time: not cross-checked, the session ran without "
    "--jitcheck-eager (jitcheck(eager=True) then covers only functions jitted after "
    "collection)"
)


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def _apply_cpu_devices(found: Settings) -> None:
    if found.cpu_devices is None or found.cpu_devices_applied:
        return
    try:
        simulate_cpu_devices(found.cpu_devices)
    except JitcheckUsageError as err:
        raise pytest.UsageError(str(err)) from None
    found.cpu_devices_applied = True


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    # Configure JAX before conftest files (and the code they import) can start it, and
    # wrap jax.jit for --jitcheck-eager before the code under test is imported.
    found = settings(early_config)
    _apply_cpu_devices(found)
    if found.wrap_at_start:
        eager.install()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "jitcheck(max_compiles=None, leaks=None, eager=None): per-test pytest-jitcheck "
        "settings; exceeding max_compiles fails the test.",
    )
    config.addinivalue_line(
        "markers",
        "jit_and_eager: run the test twice, ids [jit] and [eager]; the eager run executes "
        "the test body under jax.disable_jit()",
    )
    found = settings(config)
    _apply_cpu_devices(found)
    if found.wrap_at_start:
        eager.install()  # no-op when pytest_load_initial_conftests already did it
    workerinput: dict[str, Any] | None = getattr(config, "workerinput", None)
    worker = str(workerinput.get("workerid", "worker")) if workerinput else "main"
    config.stash[STATS] = stats = SessionStats(worker)
    history.new_session()
    growth.new_session()
    if found.enabled and config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_XdistHooks(stats), "jitcheck-xdist")
    config.pluginmanager.register(_NotCrossChecked(), "jitcheck-not-cross-checked")


def pytest_unconfigure(config: pytest.Config) -> None:
    eager.uninstall()


def pytest_report_header(config: pytest.Config) -> list[str]:
    found = settings(config)
    lines = []
    if found.enabled:
        import jax

        # Asking for the backend here would initialise it before test modules can set
        # device flags, so the header shows the requested platforms and the summary the
        # backend actually used.
        platforms = getattr(jax.config, "jax_platforms", None) or "auto"
        extra = "".join(
            f", {name}={value}"
            for name, value in (
                ("max-recompiles", found.max_recompiles),
                ("report", found.report),
                ("html", found.html),
                ("trace", found.trace),
            )
            if value is not None
        )
        lines.append(
            f"jitcheck: on (leaks={found.leaks}{extra}); jax {jax.__version__}, "
            f"jaxlib {version('jaxlib')}, backend {platforms}"
        )
    if found.eager:
        lines.append("jitcheck: jitted functions are cross-checked against eager")
    if found.devices:
        lines.append(f"jitcheck: jax_device runs on {', '.join(map(str, found.devices))}")
    if found.cpu_devices:
        lines.append(f"jitcheck: {found.cpu_devices} simulated CPU devices")
    return lines


def _mode(item: pytest.Item) -> str | None:
    callspec = getattr(item, "callspec", None)
    return None if callspec is None else callspec.params.get(_MODE_FIXTURE)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    marker = metafunc.definition.get_closest_marker("jit_and_eager")
    if marker is not None and _MODE_FIXTURE in metafunc.fixturenames:
        metafunc.parametrize(_MODE_FIXTURE, ["jit", "eager"], indirect=True)
    devices = settings(metafunc.config).devices
    if devices and "jax_device" in metafunc.fixturenames:
        metafunc.parametrize("jax_device", devices, indirect=True, ids=[str(d) for d in devices])


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    found = settings(config)
    wanted = False
    for item in items:
        try:
            value = jitcheck_marker_options(item).eager
            checked = _mode(item) != "eager" and (found.eager if value is None else value)
        except JitcheckUsageError:
            checked = False  # reported at the test's set-up
        item.stash[_EAGER_ITEM] = checked
        wanted = wanted or checked
    if not wanted:
        eager.uninstall()  # no test will be cross-checked: jax.jit is JAX's own again
    elif not found.wrap_at_start:
        # Marked tests in a session without --jitcheck-eager: functions jitted from now
        # on (in fixtures and test bodies) are covered, import-time ones are not.
        eager.install()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    problem = ""
    try:
        marker = jitcheck_marker_options(item)
        jit_and_eager = item.get_closest_marker("jit_and_eager")
        if jit_and_eager is not None and (jit_and_eager.args or jit_and_eager.kwargs):
            raise JitcheckUsageError("@pytest.mark.jit_and_eager takes no arguments")
    except JitcheckUsageError as exc:
        problem = str(exc)
    if problem:  # outside the except block: no chained traceback
        pytest.fail(problem, pytrace=False)
    found = settings(item.config)
    if not found.enabled and item.get_closest_marker("jitcheck") is None:
        return (yield)
    check = item.stash[CHECK] = TestCheck(item.nodeid, found, marker)
    check.start()
    try:
        return (yield)
    except BaseException as exc:
        # A fixture that leaked a tracer, caught by JAX's checker in strict mode.
        translated = check.translate(exc)
        if translated is not None:
            raise translated from exc
        raise


@contextlib.contextmanager
def _cross_checked(item: pytest.Item) -> Iterator[list[str]]:
    """Run the ``[eager]`` variant under disable_jit; collect cross-check failures."""
    checked = item.stash.get(_EAGER_ITEM, False)
    failures: list[str] = []
    with contextlib.ExitStack() as stack:
        if _mode(item) == "eager":
            import jax

            stack.enter_context(jax.disable_jit())
        if checked:
            eager.begin_test()
        raised = False
        try:
            yield failures
        except BaseException:
            raised = True
            raise
        finally:
            state = eager.end_test() if checked else None
            if checked:
                # Through the report, so that pytest-xdist carries notes to the controller.
                notes = [] if state is None else list(dict.fromkeys(state.notes))
                if not settings(item.config).wrap_at_start:
                    notes.append(_LATE_NOTE)
                item.user_properties.extend((_NOTE, note) for note in notes)
            if state is not None and state.failures:
                failures.extend(state.failures)
                if raised:  # the test failed on its own; still show what the check found
                    item.add_report_section("call", "jitcheck", "\n\n".join(failures))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    check = item.stash.get(CHECK, None)
    with _cross_checked(item) as cross_check_failures:
        try:
            result = yield
        except BaseException as exc:
            if check is not None:
                check.stop()
                translated = check.translate(exc)
                if translated is not None:
                    raise translated from exc
            raise
        dropped = take_never_entered()
        if dropped:
            raise plain(JitcheckUsageError("\n".join(dropped)))
        if check is not None:
            check.check_after_call()
    if cross_check_failures:
        pytest.fail("\n\n".join(cross_check_failures), pytrace=False)
    return result


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
    found = settings(config)
    if not found.enabled:
        return
    stats = config.stash[STATS]
    if "jax" in sys.modules:
        stats.backend = sys.modules["jax"].default_backend()
    workeroutput: dict[str, Any] | None = getattr(config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["jitcheck"] = stats.worker_output()
    else:
        stats.write_outputs(report=found.report, html=found.html, trace=found.trace)


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    if not settings(config).enabled or hasattr(config, "workerinput"):
        return
    terminalreporter.write_sep("=", "jitcheck compile summary")
    for line in config.stash[STATS].terminal_lines():
        terminalreporter.write_line(line)


@pytest.fixture
def assert_compiles() -> AssertCompilesFixture:
    """Assert how often a block compiles: ``with assert_compiles(1): step(x)``."""
    return AssertCompilesFixture()


@pytest.fixture(autouse=True)
def _jitcheck_jit_mode(request: pytest.FixtureRequest) -> str | None:
    """Tell a ``jit_and_eager`` test which variant runs (``"jit"`` or ``"eager"``)."""
    mode: str | None = getattr(request, "param", None)
    return mode


@pytest.fixture
def jax_device(request: pytest.FixtureRequest) -> Iterator[jax.Device]:
    """Run the test with this device as JAX's default; one run per ``--jitcheck-devices``."""
    import jax

    spec: DeviceSpec | None = getattr(request, "param", None)
    device: jax.Device | str = jax.devices()[0] if spec is None else resolve_device(spec)
    if isinstance(device, str):
        pytest.skip(device)
    with jax.default_device(device):
        yield device


class _XdistHooks:
    """Merge the workers' compile events into the controller's summary and report."""

    def __init__(self, stats: SessionStats) -> None:
        self.stats = stats

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        data = getattr(node, "workeroutput", {}).get("jitcheck")
        if data:
            self.stats.merge(data)


class _NotCrossChecked:
    """Collect the functions the eager cross-check skipped, here or on xdist workers."""

    def __init__(self) -> None:
        self.notes: dict[str, None] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call":
            for name, value in report.user_properties:
                if name == _NOTE:
                    self.notes[str(value)] = None

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        # A summary rather than warnings, so -W error suites keep passing.
        if self.notes:
            terminalreporter.write_sep("-", "jitcheck: jitted functions not cross-checked")
            for note in self.notes:
                terminalreporter.write_line(note)
