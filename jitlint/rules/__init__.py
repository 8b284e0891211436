"""The rule registry: every rule class jitlint implements, by code."""

from __future__ import annotations

from jitlint.rules.base import Rule
from jitlint.rules.control_flow import TracedBoolOp, TracedIf, TracedRange, TracedWhile
from jitlint.rules.globals import OuterStateWrite, StaleGlobal
from jitlint.rules.recompile import JitInLoop, UnhashableStaticArg
from jitlint.rules.side_effects import ImpureHostCall, PrintInJit

_RULES: tuple[type[Rule], ...] = (
    TracedIf,
    TracedWhile,
    TracedBoolOp,
    TracedRange,
    StaleGlobal,
    OuterStateWrite,
    PrintInJit,
    ImpureHostCall,
    JitInLoop,
    UnhashableStaticArg,
)


def all_rules() -> list[type[Rule]]:
    """Return every implemented rule class, sorted by code."""
    return sorted(_RULES, key=lambda r: r.code)


def by_code() -> dict[str, type[Rule]]:
    """Return the rule classes keyed by code."""
    return {r.code: r for r in all_rules()}


__all__ = ["Rule", "all_rules", "by_code"]
