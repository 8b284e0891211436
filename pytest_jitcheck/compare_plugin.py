"""pytest hooks for jit-vs-eager and cross-device checking.

Options: ``--jitcheck-eager``, ``--jitcheck-devices``, ``--jitcheck-cpu-devices`` (and ini
mirrors); markers: ``jit_and_eager`` (and ``eager=`` of ``jitcheck``); fixture:
``jax_device``. JAX is imported only when a feature needs it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest

from pytest_jitcheck import eager
from pytest_jitcheck._errors import JitcheckUsageError
from pytest_jitcheck._marker import jitcheck_marker_options
from pytest_jitcheck.devices import (
    DeviceSpec,
    parse_device_list,
    resolve_device,
    simulate_cpu_devices,
)

if TYPE_CHECKING:
    import jax

# Autouse fixture that pytest_generate_tests parametrizes with "jit"/"eager".
_MODE_FIXTURE = "_jitcheck_jit_mode"


@dataclass
class Settings:
    """This session's comparison settings."""

    eager: bool = False
    wrap_at_start: bool = False
    devices: list[DeviceSpec] | None = None
    cpu_devices: int | None = None
    cpu_devices_applied: bool = False


_SETTINGS = pytest.StashKey[Settings]()
_EAGER_ITEM = pytest.StashKey[bool]()
_NOTE = "jitcheck_not_cross_checked"
_LATE_NOTE = (
    "functions jitted at import time: not cross-checked, the session ran without "
    "--jitcheck-eager (jitcheck(eager=True) then covers only functions jitted after "
    "collection)"
)


def pytest_addoption(parser: pytest.Parser) -> None:
    """Register the comparison options and their ini mirrors."""
    group = parser.getgroup("jitcheck")
    group.addoption(
        "--jitcheck-eager",
        action="store_true",
        default=None,
        help="cross-check every jitted function a test calls against its eager result",
    )
    group.addoption(
        "--jitcheck-devices",
        metavar="PLATFORMS",
        default=None,
        help="run tests using the jax_device fixture once per platform, e.g. cpu,gpu",
    )
    group.addoption(
        "--jitcheck-cpu-devices",
        metavar="N",
        default=None,
        help="simulate N CPU devices (set before JAX starts its backend)",
    )
    parser.addini("jitcheck_eager", "like --jitcheck-eager", type="bool", default=False)
    parser.addini("jitcheck_devices", "like --jitcheck-devices", default="")
    parser.addini("jitcheck_cpu_devices", "like --jitcheck-cpu-devices", default="")


def _read(config: pytest.Config, dest: str, ini: str) -> Any:
    # Early hooks run before config.option is filled in; known_args_namespace already is.
    value = getattr(config.known_args_namespace, dest, None)
    if value is None:
        value = config.getoption(dest, default=None)
    return config.getini(ini) if value is None else value


def _settings(config: pytest.Config) -> Settings:
    if _SETTINGS in config.stash:
        return config.stash[_SETTINGS]
    settings = Settings(eager=bool(_read(config, "jitcheck_eager", "jitcheck_eager")))
    # jax.jit is wrapped from the start (so module-level jitted functions can be
    # cross-checked) only under --jitcheck-eager: compile accounting needs no wrapper, and
    # libraries that capture jax.jit or type(jax.jit(f)) at import must see JAX's own.
    settings.wrap_at_start = settings.eager
    try:
        devices = str(_read(config, "jitcheck_devices", "jitcheck_devices") or "")
        settings.devices = parse_device_list(devices) if devices.strip() else None
        count = str(_read(config, "jitcheck_cpu_devices", "jitcheck_cpu_devices") or "").strip()
        if count:
            if not count.isdigit() or int(count) < 1:
                raise JitcheckUsageError(
                    f"--jitcheck-cpu-devices must be a positive integer, got {count!r}"
                )
            settings.cpu_devices = int(count)
    except JitcheckUsageError as err:
        raise pytest.UsageError(str(err)) from None
    config.stash[_SETTINGS] = settings
    return settings


def _apply_cpu_devices(settings: Settings) -> None:
    if settings.cpu_devices is None or settings.cpu_devices_applied:
        return
    try:
        simulate_cpu_devices(settings.cpu_devices)
    except JitcheckUsageError as err:
        raise pytest.UsageError(str(err)) from None
    settings.cpu_devices_applied = True


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    """Configure JAX before conftest files (and the code they import) can start it."""
    settings = _settings(early_config)
    _apply_cpu_devices(settings)
    # Wrap jax.jit before the code under test is imported, so module-level jitted
    # functions can be checked; unwrapped again after collection if no test asks.
    if settings.wrap_at_start:
        eager.install()


def pytest_configure(config: pytest.Config) -> None:
    """Register markers; apply settings when this plugin was loaded late."""
    config.addinivalue_line(
        "markers",
        "jit_and_eager: run the test twice, ids [jit] and [eager]; the eager run executes "
        "the test body under jax.disable_jit()",
    )
    settings = _settings(config)
    _apply_cpu_devices(settings)
    if settings.wrap_at_start:
        eager.install()  # no-op when pytest_load_initial_conftests already did it
    config.pluginmanager.register(NotCrossChecked(), "jitcheck-not-cross-checked")


def pytest_unconfigure(config: pytest.Config) -> None:
    """Give jax.jit back."""
    eager.uninstall()


def pytest_report_header(config: pytest.Config) -> list[str]:
    """Say which comparison features are on."""
    settings = _settings(config)
    lines = []
    if settings.eager:
        lines.append("jitcheck: jitted functions are cross-checked against eager")
    if settings.devices:
        lines.append(f"jitcheck: jax_device runs on {', '.join(map(str, settings.devices))}")
    if settings.cpu_devices:
        lines.append(f"jitcheck: {settings.cpu_devices} simulated CPU devices")
    return lines


def _wants_eager(item: pytest.Item, settings: Settings) -> bool:
    if _mode(item) == "eager":
        return False  # the whole test already runs eagerly
    value = jitcheck_marker_options(item).eager
    return settings.eager if value is None else value


def _mode(item: pytest.Item) -> str | None:
    callspec = getattr(item, "callspec", None)
    return None if callspec is None else callspec.params.get(_MODE_FIXTURE)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize ``jit_and_eager`` tests and ``jax_device`` users."""
    marker = metafunc.definition.get_closest_marker("jit_and_eager")
    if marker is not None and _MODE_FIXTURE in metafunc.fixturenames:
        metafunc.parametrize(_MODE_FIXTURE, ["jit", "eager"], indirect=True)
    devices = _settings(metafunc.config).devices
    if devices and "jax_device" in metafunc.fixturenames:
        metafunc.parametrize("jax_device", devices, indirect=True, ids=[str(d) for d in devices])


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Unwrap jax.jit for the rest of the session when no test will be cross-checked."""
    settings = _settings(config)
    wanted = False
    for item in items:
        try:
            item.stash[_EAGER_ITEM] = _wants_eager(item, settings)
        except JitcheckUsageError:
            item.stash[_EAGER_ITEM] = False  # reported at the test's set-up
        wanted = wanted or item.stash[_EAGER_ITEM]
    if not wanted:
        eager.uninstall()
    elif not settings.wrap_at_start:
        # Marked tests in a session without --jitcheck/--jitcheck-eager: functions jitted
        # from now on (in fixtures and test bodies) are covered, import-time ones are not.
        eager.install()


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Report bad marker arguments at the offending test."""
    problem = None
    try:
        jitcheck_marker_options(item)
        marker = item.get_closest_marker("jit_and_eager")
        if marker is not None and (marker.args or marker.kwargs):
            raise JitcheckUsageError("@pytest.mark.jit_and_eager takes no arguments")
    except JitcheckUsageError as err:
        problem = str(err)
    if problem is not None:  # outside the except block: no chained traceback
        pytest.fail(problem, pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    """Run the ``[eager]`` variant under disable_jit; cross-check jitted calls."""
    check = item.stash.get(_EAGER_ITEM, False)
    with contextlib.ExitStack() as stack:
        if _mode(item) == "eager":
            import jax

            stack.enter_context(jax.disable_jit())
        if check:
            eager.begin_test()
        state = None
        raised = False
        try:
            result = yield
        except BaseException:
            raised = True
            raise
        finally:
            if check:
                state = eager.end_test()
                # Through the report, so that pytest-xdist carries notes to the controller.
                notes = [] if state is None else list(dict.fromkeys(state.notes))
                if not _settings(item.config).wrap_at_start:
                    notes.append(_LATE_NOTE)
                for note in notes:
                    item.user_properties.append((_NOTE, note))
                if raised and state is not None and state.failures:
                    # The test failed on its own; still show what the cross-check found.
                    item.add_report_section("call", "jitcheck", "\n\n".join(state.failures))
    if state is not None and state.failures:
        pytest.fail("\n\n".join(state.failures), pytrace=False)
    return result


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


class NotCrossChecked:
    """Collects the functions the eager cross-check skipped, here or on xdist workers."""

    def __init__(self) -> None:
        self.notes: dict[str, None] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Take the notes a test attached to its report."""
        if report.when == "call":
            for name, value in report.user_properties:
                if name == _NOTE:
                    self.notes[str(value)] = None

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        """List them; a summary rather than warnings, so -W error suites keep passing."""
        if self.notes:
            terminalreporter.write_sep("-", "jitcheck: jitted functions not cross-checked")
            for note in self.notes:
                terminalreporter.write_line(note)
