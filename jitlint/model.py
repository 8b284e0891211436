"""Plain data shared by the engine, the rules and the output formats."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Taint(enum.IntEnum):
    """Say how much is known about a value at trace time; ordered so that ``max`` joins."""

    STATIC = 0
    UNKNOWN = 1
    TRACED = 2


class Mode(enum.IntEnum):
    """Name how a function body is traced; a larger mode constrains more."""

    NONE = 0  # ordinary Python, not traced
    GRAD = 1  # only under grad/value_and_grad: values stay concrete, control flow is legal
    TRACE = 2  # traced once per call (vmap, lax bodies, checkpoint, shard_map)
    JIT = 3  # traced once and cached (jit, pmap, filter_jit, nnx.jit)


TRACED_MODES = frozenset({Mode.TRACE, Mode.JIT})


class Applicability(enum.Enum):
    """Say whether a fix can be applied without changing what the program means."""

    SAFE = "safe"
    UNSAFE = "unsafe"


@dataclass(frozen=True, order=True)
class Location:
    """Point in a file: 1-based row, 1-based column (characters)."""

    row: int
    column: int


@dataclass(frozen=True)
class Edit:
    """Replace the text between two locations (end exclusive) with ``content``."""

    start: Location
    end: Location
    content: str


@dataclass(frozen=True)
class Fix:
    """Describe one fix: a title, its applicability and the edits that make it."""

    title: str
    applicability: Applicability
    edits: tuple[Edit, ...]


@dataclass(frozen=True)
class TraceStep:
    """One step of the path from a traced entry point to a finding: a function, and where."""

    filename: str
    row: int
    name: str
    transform: str | None = None  # the transform that starts the trace here (entry points)

    def describe(self) -> str:
        """Return ``train.py:12 step (jax.jit)``."""
        via = f" ({self.transform})" if self.transform else ""
        return f"{self.filename}:{self.row} {self.name}{via}"


@dataclass(frozen=True)
class Finding:
    """Report one problem at one place in one file."""

    code: str
    name: str
    message: str
    filename: str
    location: Location
    end_location: Location
    fix: Fix | None = None
    url: str | None = None
    cell: int | None = None  # a notebook's code cell (1-based); rows then count in that cell
    # Why the code is traced: the functions from the entry point down to the finding's.
    trace: tuple[TraceStep, ...] = ()

    @property
    def fixable(self) -> bool:
        """Tell whether the finding carries a fix."""
        return self.fix is not None


@dataclass
class FileResult:
    """Collect what linting one file produced: findings and error lines."""

    filename: str
    findings: list[Finding] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    skipped: bool = False
