"""Compile events and the typed reasons of a recompilation: plain data, no JAX.

A recompilation's reason is a list of :class:`Change` records (kind, argument path, old,
new). The message, the hint, the summary's grouping and the wasteful-recompile
classification are all derived from them, never parsed back from text.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from pytest_jitcheck._naming import short_path


class ChangeKind(enum.Enum):
    """What kind of difference made JAX compile again."""

    SHAPE = "shape"
    DTYPE = "dtype"
    WEAK_TYPE = "weak type"
    STATIC_VALUE = "static value"
    STATIC_IDENTITY = "static value hashed by identity"
    STRUCTURE = "pytree structure"
    NEW_FUNCTION = "new function object"
    SHARDING = "sharding"
    CONFIG = "config"
    SAME_SIGNATURE = "same signature"
    OTHER = "other"


@dataclass(frozen=True)
class Change:
    """One difference between a call's signature and the closest earlier one."""

    kind: ChangeKind
    path: str = ""
    old: str = ""
    new: str = ""

    def __str__(self) -> str:
        kind = self.kind
        if kind is ChangeKind.NEW_FUNCTION:
            return (
                "a new function object for the same code (jax.jit applied to a fresh "
                "lambda, closure, partial or bound method)"
            )
        if kind is ChangeKind.SAME_SIGNATURE:
            return "same abstract signature as an earlier compilation"
        if kind is ChangeKind.CONFIG:
            return f"JAX config {self.path} changed: {self.old} -> {self.new}"
        if kind is ChangeKind.STATIC_IDENTITY:
            return (
                f"{self.path} (static): an equal-looking value {self.new} that hashes by "
                "identity (a new object each call)"
            )
        if kind is ChangeKind.STRUCTURE and not self.old:
            return f"argument {self.path} added"
        if kind is ChangeKind.STRUCTURE and not self.new:
            return f"argument {self.path} removed"
        if kind is ChangeKind.STRUCTURE:
            return f"pytree structure of {self.path} changed: {self.old} -> {self.new}"
        if kind is ChangeKind.STATIC_VALUE:
            return f"{self.path} (static): {self.old} -> {self.new}"
        if kind is ChangeKind.SHARDING:
            return f"sharding of {self.path} changed: {self.old} -> {self.new}"
        return f"{self.path}: {self.old} -> {self.new}"

    @property
    def group(self) -> str:
        """Return the summary's grouping key: ``x: shape`` for every shape change of x."""
        if self.kind in (ChangeKind.NEW_FUNCTION, ChangeKind.SAME_SIGNATURE):
            return str(self.kind.value)
        return f"{self.path}: {self.kind.value}"

    def to_json(self) -> dict[str, str]:
        """Return a JSON-serialisable form."""
        return {"kind": self.kind.value, "path": self.path, "old": self.old, "new": self.new}


_HINTS: dict[ChangeKind, str] = {
    ChangeKind.NEW_FUNCTION: (
        "create the jitted function once, outside the loop or call, and reuse it"
    ),
    ChangeKind.SAME_SIGNATURE: (
        "the cache was cleared, or something outside the arguments changed "
        "(device, closed-over constant)"
    ),
    ChangeKind.CONFIG: "JAX config or context managers are part of the cache key",
    ChangeKind.STATIC_IDENTITY: (
        "give the static argument's class __eq__ and __hash__ by value (e.g. a frozen "
        "dataclass), or create it once and reuse it"
    ),
    ChangeKind.STATIC_VALUE: (
        "each new value of a static argument compiles again; pass values that vary "
        "as traced arguments, or keep the static value fixed"
    ),
    ChangeKind.STRUCTURE: (
        "keep the pytree structure of arguments fixed (always pass optional keys, and "
        "pass each argument the same way: by position or by keyword)"
    ),
    ChangeKind.WEAK_TYPE: (
        "Python scalars are weakly typed; pass arrays of a fixed dtype "
        "(e.g. jnp.float32(x)) every time"
    ),
    ChangeKind.SHARDING: "arguments' shardings are part of the cache key; keep them fixed",
}
_DEFAULT_HINT = (
    "shapes or dtypes vary between calls; pad or bucket inputs to a few fixed shapes "
    "and keep dtypes consistent"
)
# The first kind found in this order decides the hint.
_HINT_ORDER = tuple(_HINTS)


def hint_for(changes: tuple[Change, ...] | list[Change]) -> str:
    """Return a one-line hint for the usual fix of these changes."""
    kinds = {c.kind for c in changes}
    for kind in _HINT_ORDER:
        if kind in kinds:
            return _HINTS[kind]
    return _DEFAULT_HINT


@dataclass
class CompileEvent:
    """One compilation of a jitted callable."""

    name: str
    location: str
    signature: Any = None
    """The :class:`~pytest_jitcheck.accounting.signature.Signature` of the call."""
    call_site: str = "<unknown>"
    trace_time: float = 0.0
    lower_time: float = 0.0
    compile_time: float = 0.0
    start: float = 0.0
    """``time.perf_counter()`` when the trace (or the compilation) began."""
    cache_hit: bool = False
    eager: bool = False
    changes: tuple[Change, ...] = ()
    first: bool = True
    transform: str = ""
    """The transformation that derived this computation (``jax.vmap``, ...), if any."""
    wasteful: str = ""
    """Why this recompilation was avoidable, when it was."""
    function: Any = field(default=None, repr=False, compare=False)

    @property
    def key(self) -> str:
        """Return ``name (file:line)``, the key the session summary groups by."""
        return f"{self.name} ({self.location})"

    @property
    def derived(self) -> bool:
        """Tell whether a transformation derived this computation from a traced one."""
        return bool(self.transform)

    @property
    def hint(self) -> str:
        """Return the usual fix for this recompilation ("" for a first compilation)."""
        return "" if self.first or self.derived else hint_for(self.changes)

    @property
    def reason(self) -> str:
        """Say why this compilation happened, in one line."""
        if self.derived:
            return f"compiled for {self.transform} of a jitted function (a new computation)"
        if self.first:
            return "first compilation"
        return "; ".join(str(c) for c in self.changes)

    def describe(self) -> str:
        """Return a one-line description: function, signature, call site, reason."""
        cached = ", persistent cache hit" if self.cache_hit else ""
        return (
            f"{self.name} ({short_path(self.location)}) called at {short_path(self.call_site)} "
            f"with ({self.signature or '()'}){cached} -- {self.reason}"
        )

    def to_json(self) -> dict[str, Any]:
        """Return a JSON-serialisable form."""
        signature = self.signature.to_json() if self.signature is not None else {}
        return {
            "function": self.name,
            "location": self.location,
            "call_site": self.call_site,
            "signature": signature,
            "start_s": self.start,
            "trace_time_s": self.trace_time,
            "lower_time_s": self.lower_time,
            "compile_time_s": self.compile_time,
            "persistent_cache_hit": self.cache_hit,
            "eager": self.eager,
            "transform": self.transform,
            "reason": self.reason,
            "changes": [c.to_json() for c in self.changes],
            "hint": self.hint,
            "wasteful": self.wasteful,
        }
