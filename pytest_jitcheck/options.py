"""Command-line options and ini keys of pytest-jitcheck, read into one ``Settings``.

Every option is prefixed ``--jitcheck`` and has an ini mirror; bad values are a one-line
``pytest.UsageError`` at start-up, before any test runs.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from typing import Any

import pytest

from pytest_jitcheck._errors import PREFIX, JitcheckUsageError
from pytest_jitcheck._marker import LEAK_MODES
from pytest_jitcheck.devices import DeviceSpec, parse_device_list


@dataclass
class Settings:
    """This session's settings, from the command line and the ini file."""

    enabled: bool = False
    max_recompiles: int | None = None
    leaks: str = "fast"
    report: str | None = None
    html: str | None = None
    trace: str | None = None
    eager: bool = False
    devices: list[DeviceSpec] | None = None
    cpu_devices: int | None = None
    cpu_devices_applied: bool = False

    @property
    def wrap_at_start(self) -> bool:
        """Tell whether ``jax.jit`` is wrapped before the code under test is imported.

        Only under ``--jitcheck-eager``: compile accounting needs no wrapper, and
        libraries that capture ``jax.jit`` or ``type(jax.jit(f))`` at import must see
        JAX's own.
        """
        return self.eager


_SETTINGS = pytest.StashKey[Settings]()


def _non_negative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"{PREFIX} expected an integer >= 0, got {text!r}")
    return value


def add_options(parser: pytest.Parser) -> None:
    """Register the options (one ``jitcheck`` group) and their ini keys."""
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
        "(adds JAX's checker, slower: disables trace caching) or off.",
    )
    for name, metavar, what in (
        ("report", "FILE.json", "every compilation of the session as JSON"),
        ("html", "FILE.html", "a self-contained visual compile report"),
        ("trace", "FILE.json", "compilations as Chrome/Perfetto trace events"),
    ):
        group.addoption(
            f"--jitcheck-{name}", default=None, metavar=metavar, help=f"write {what} to {metavar}."
        )
        parser.addini(f"jitcheck_{name}", default="", help=f"--jitcheck-{name}.")
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
    parser.addini("jitcheck", type="bool", default=False, help="enable --jitcheck.")
    parser.addini("jitcheck_max_recompiles", default="", help="--jitcheck-max-recompiles.")
    parser.addini("jitcheck_leaks", default="fast", help="--jitcheck-leaks.")
    parser.addini("jitcheck_eager", "like --jitcheck-eager", type="bool", default=False)
    parser.addini("jitcheck_devices", "like --jitcheck-devices", default="")
    parser.addini("jitcheck_cpu_devices", "like --jitcheck-cpu-devices", default="")


def _read(config: pytest.Config, name: str) -> Any:
    # Early hooks run before config.option is filled in; known_args_namespace already is.
    value = getattr(config.known_args_namespace, name, None)
    if value is None:
        value = config.getoption(name, default=None)
    return config.getini(name) if value is None else value


def _output_file(config: pytest.Config, name: str) -> str | None:
    """Return a report path from the option or ini key, checked before any test runs."""
    option = "--" + name.replace("_", "-")
    path = str(_read(config, name) or "").strip() or None
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


def settings(config: pytest.Config) -> Settings:
    """Return this session's settings (read once, from the earliest hook that asks)."""
    if _SETTINGS in config.stash:
        return config.stash[_SETTINGS]
    result = Settings(
        enabled=bool(_read(config, "jitcheck")),
        eager=bool(_read(config, "jitcheck_eager")),
    )
    max_recompiles = getattr(config.known_args_namespace, "jitcheck_max_recompiles", None)
    if max_recompiles is None:
        max_recompiles = config.getoption("jitcheck_max_recompiles", default=None)
    raw = str(config.getini("jitcheck_max_recompiles")).strip()
    if max_recompiles is None and raw:
        try:
            max_recompiles = _non_negative(raw)
        except argparse.ArgumentTypeError as exc:
            raise pytest.UsageError(f"jitcheck_max_recompiles (ini): {exc}") from None
    result.max_recompiles = max_recompiles
    leaks = str(_read(config, "jitcheck_leaks")).strip()
    if leaks not in LEAK_MODES:
        raise pytest.UsageError(
            f"{PREFIX} jitcheck_leaks (ini) must be one of {', '.join(LEAK_MODES)}, got {leaks!r}"
        )
    result.leaks = leaks
    result.report = _output_file(config, "jitcheck_report")
    result.html = _output_file(config, "jitcheck_html")
    result.trace = _output_file(config, "jitcheck_trace")
    # Asking for a report turns accounting on.
    result.enabled = result.enabled or any((result.report, result.html, result.trace))
    try:
        devices = str(_read(config, "jitcheck_devices") or "")
        result.devices = parse_device_list(devices) if devices.strip() else None
        count = str(_read(config, "jitcheck_cpu_devices") or "").strip()
        if count:
            if not count.isdigit() or int(count) < 1:
                raise JitcheckUsageError(
                    f"--jitcheck-cpu-devices must be a positive integer, got {count!r}"
                )
            result.cpu_devices = int(count)
    except JitcheckUsageError as err:
        raise pytest.UsageError(str(err)) from None
    config.stash[_SETTINGS] = result
    return result
