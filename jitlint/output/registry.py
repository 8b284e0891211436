"""The format registry: each output format is one module with a ``write`` function.

Add a format by writing ``output/<name>.py`` and naming it in ``_WRITERS``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TextIO

from jitlint.model import Finding
from jitlint.output import concise, full, github, json_format, sarif
from jitlint.output.sources import Sources, use_color

_WRITERS: dict[str, Callable[[Sequence[Finding], TextIO, Sources], None]] = {
    "concise": concise.write,
    "full": full.write,
    "json": json_format.write,
    "github": github.write,
    "sarif": sarif.write,
}
FORMATS = tuple(_WRITERS)


def write(
    fmt: str,
    findings: Sequence[Finding],
    out: TextIO,
    sources: Sources | None = None,
    *,
    unsafe: bool = False,
) -> None:
    """Write ``findings`` to ``out`` in format ``fmt`` (one of ``FORMATS``).

    ``[*]`` marks findings that ``--fix`` would fix: safe fixes, and unsafe ones if ``unsafe``.
    """
    sources = sources or Sources()
    sources.unsafe = unsafe
    sources.color = use_color(out)
    _WRITERS[fmt](findings, out, sources)
