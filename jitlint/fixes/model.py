"""The fix model as rules report it: node replacements plus the imports they rely on."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from jitlint.model import Applicability


@dataclass(frozen=True)
class Replace:
    """Replace the source of ``node`` with ``new`` (code, or a node to generate code for)."""

    node: cst.CSTNode
    new: str | cst.CSTNode


@dataclass(frozen=True)
class NodeFix:
    """A fix as a rule reports it: node replacements plus the import lines it relies on."""

    title: str
    applicability: Applicability
    replacements: tuple[Replace, ...]
    imports: tuple[str, ...] = ()  # whole statements, e.g. "import jax.numpy as jnp"
