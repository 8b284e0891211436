"""Parse and validate ``@pytest.mark.jitcheck(max_compiles=..., leaks=..., eager=...)``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from pytest_jitcheck._errors import JitcheckUsageError

LEAK_MODES = ("off", "fast", "strict")
_ACCEPTED = ("max_compiles", "leaks", "eager")


@dataclass(frozen=True)
class MarkerOptions:
    """Per-test settings from the ``jitcheck`` marker; ``None`` means "not set"."""

    max_compiles: int | None = None
    leaks: str | None = None
    eager: bool | None = None


def _leak_mode(value: Any) -> str:
    if value is True:
        return "fast"
    if value is False:
        return "off"
    if isinstance(value, str) and value in LEAK_MODES:
        return value
    raise JitcheckUsageError(
        f"@pytest.mark.jitcheck(leaks=...) takes True, False or one of "
        f"{', '.join(repr(m) for m in LEAK_MODES)}, got {value!r}"
    )


def jitcheck_marker_options(item: pytest.Item) -> MarkerOptions:
    """Return the merged ``jitcheck`` marker options of ``item`` (closest marker wins).

    Raises ``JitcheckUsageError`` with a one-line message for invalid arguments.
    """
    merged: dict[str, Any] = {}
    for mark in reversed(list(item.iter_markers("jitcheck"))):
        if mark.args:
            raise JitcheckUsageError(
                "@pytest.mark.jitcheck takes keyword arguments only "
                f"({', '.join(_ACCEPTED)}), got positional {mark.args!r}"
            )
        unknown = sorted(set(mark.kwargs) - set(_ACCEPTED))
        if unknown:
            raise JitcheckUsageError(
                f"unknown argument {unknown[0]}= to @pytest.mark.jitcheck "
                f"(accepted: {', '.join(_ACCEPTED)})"
            )
        merged.update(mark.kwargs)
    max_compiles = merged.get("max_compiles")
    if max_compiles is not None and (
        isinstance(max_compiles, bool) or not isinstance(max_compiles, int) or max_compiles < 0
    ):
        raise JitcheckUsageError(
            f"@pytest.mark.jitcheck(max_compiles=...) takes an int >= 0, got {max_compiles!r}"
        )
    eager = merged.get("eager")
    if eager is not None and not isinstance(eager, bool):
        raise JitcheckUsageError(
            f"@pytest.mark.jitcheck(eager=...) takes True or False, got {eager!r}"
        )
    leaks = merged.get("leaks")
    return MarkerOptions(
        max_compiles=max_compiles,
        leaks=None if leaks is None else _leak_mode(leaks),
        eager=eager,
    )
