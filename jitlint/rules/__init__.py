"""The rule registry: every rule class jitlint implements, by code."""

from __future__ import annotations

from jitlint.rules.base import Rule
from jitlint.rules.jit101_traced_if import TracedIf
from jitlint.rules.jit102_traced_while import TracedWhile
from jitlint.rules.jit103_traced_bool_op import TracedBoolOp
from jitlint.rules.jit104_traced_range import TracedRange
from jitlint.rules.jit201_stale_global import StaleGlobal
from jitlint.rules.jit202_outer_state_write import OuterStateWrite
from jitlint.rules.jit203_print_in_jit import PrintInJit
from jitlint.rules.jit204_impure_host_call import ImpureHostCall
from jitlint.rules.jit301_jit_in_loop import JitInLoop
from jitlint.rules.jit302_unhashable_static_arg import UnhashableStaticArg
from jitlint.rules.jit303_large_unrolled_loop import LargeUnrolledLoop
from jitlint.rules.jit401_concretization import Concretization
from jitlint.rules.jit402_numpy_on_tracer import NumpyOnTracer
from jitlint.rules.jit403_dynamic_shape import DynamicShape
from jitlint.rules.jit404_traced_shape import TracedShape
from jitlint.rules.jit501_in_place_update import InPlaceUpdate
from jitlint.rules.jit502_prng_key_reuse import PrngKeyReuse
from jitlint.rules.jit503_discarded_at_update import DiscardedAtUpdate
from jitlint.rules.jit504_donated_buffer_reuse import DonatedBufferReuse

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
