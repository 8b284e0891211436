"""The rule registry: every rule class jitlint implements, by code."""

from __future__ import annotations

from jitlint.rules.arrays import DiscardedAtUpdate, InPlaceUpdate
from jitlint.rules.base import Rule
from jitlint.rules.concretization import Concretization, TracedShape
from jitlint.rules.control_flow import TracedBoolOp, TracedIf, TracedRange, TracedWhile
from jitlint.rules.donation import DonatedBufferReuse
from jitlint.rules.globals import OuterStateWrite, StaleGlobal
from jitlint.rules.loops import LargeUnrolledLoop
from jitlint.rules.numpy_on_tracer import NumpyOnTracer
from jitlint.rules.prng import PrngKeyReuse
from jitlint.rules.recompile import JitInLoop, UnhashableStaticArg
from jitlint.rules.shapes import DynamicShape
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
    LargeUnrolledLoop,
    Concretization,
    NumpyOnTracer,
    DynamicShape,
    TracedShape,
    InPlaceUpdate,
    PrngKeyReuse,
    DiscardedAtUpdate,
    DonatedBufferReuse,
)


def all_rules() -> list[type[Rule]]:
    """Return every implemented rule class, sorted by code."""
    return sorted(_RULES, key=lambda r: r.code)


def by_code() -> dict[str, type[Rule]]:
    """Return the rule classes keyed by code."""
    return {r.code: r for r in all_rules()}


__all__ = ["Rule", "all_rules", "by_code"]
