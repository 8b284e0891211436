"""Stand-in hooks for an environment without JAX: each jitcheck feature fails in one line."""

from __future__ import annotations

import pytest

from pytest_jitcheck._errors import PREFIX

INSTALL = "pip install 'pytest-jitcheck[plugin]'"
MESSAGE = f"{PREFIX} the pytest plugin needs JAX, which is not installed: {INSTALL}"
_MARKERS = ("jitcheck", "jit_and_eager")
_FIXTURES = frozenset({"assert_compiles", "jax_device"})


def pytest_load_initial_conftests(args: list[str]) -> None:
    if any(arg.startswith("--jitcheck") for arg in args):
        raise pytest.UsageError(MESSAGE)


def pytest_configure(config: pytest.Config) -> None:
    for name in _MARKERS:
        config.addinivalue_line("markers", f"{name}: needs JAX ({INSTALL})")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    uses = any(item.get_closest_marker(name) for name in _MARKERS)
    if uses or _FIXTURES.intersection(getattr(item, "fixturenames", ())):
        pytest.fail(MESSAGE, pytrace=False)
