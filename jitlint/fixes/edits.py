"""Turn node-level fixes into text edits: positions, where added imports go, module names.

A rule knows nodes, not positions, so it reports a ``NodeFix``: replace these nodes with this
code, and make sure these imports exist. The engine turns it into a ``model.Fix`` of text
edits once positions are known (``materialize``); ``fixes.apply`` applies them to the text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import libcst as cst
from libcst.metadata import CodeRange

from jitlint.analysis.module_info import import_bindings
from jitlint.fixes.model import NodeFix
from jitlint.model import Edit, Fix, Location

# The alias each module is conventionally imported under, when a fix must add the import.
_CONVENTIONAL = {"jax.numpy": "jnp", "jax.lax": "lax", "numpy": "np"}


_OPENING = (cst.LeftSquareBracket, cst.LeftCurlyBrace, cst.LeftParen)
_CLOSING = (cst.RightSquareBracket, cst.RightCurlyBrace, cst.RightParen)


# Referring to a module from fixed code --------------------------------------------------
def top_level_imports(module: cst.Module) -> dict[str, str]:
    """Return ``{local name: module or object it binds}`` for the module's top-level imports."""
    bound: dict[str, str] = {}
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Import | cst.ImportFrom):
                    bound.update(import_bindings(small))
    return bound


def _module_bindings(module: cst.Module) -> set[str]:
    names: set[str] = set()
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef | cst.ClassDef):
            names.add(stmt.name.value)
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                targets: Sequence[cst.BaseExpression] = ()
                if isinstance(small, cst.Assign):
                    targets = [t.target for t in small.targets]
                elif isinstance(small, cst.AnnAssign | cst.AugAssign):
                    targets = [small.target]
                names.update(t.value for t in targets if isinstance(t, cst.Name))
    return names


def reference(module: cst.Module, target: str) -> tuple[str, tuple[str, ...]]:
    """Return code that names ``target`` (e.g. ``jax.numpy.sin``) and the imports it needs.

    Reuses the module's own import of the longest prefix of ``target`` (``jnp.sin`` when the
    module has ``import jax.numpy as jnp``); otherwise adds the conventional import.
    """
    bound = top_level_imports(module)
    best: tuple[int, str] | None = None
    for local, full in bound.items():
        if (target == full or target.startswith(full + ".")) and (
            best is None or len(full) > best[0]
        ):
            best = (len(full), local + target[len(full) :])
    if best is not None:
        return best[1], ()
    taken = set(bound) | _module_bindings(module)
    parts = target.split(".")
    for i in range(len(parts) - 1, 0, -1):
        mod = ".".join(parts[:i])
        alias = _CONVENTIONAL.get(mod)
        if alias is not None and alias not in taken:
            return ".".join([alias, *parts[i:]]), (f"import {mod} as {alias}",)
    head = parts[0]
    if head in taken:
        raise LookupError(f"`{head}` is bound to something else in this module")
    return target, (f"import {head}",)


# From nodes to text edits -----------------------------------------------------------------
def _bare_code(module: cst.Module, node: cst.CSTNode) -> str:
    # Positions exclude a node's own parentheses, so its replacement must not carry them.
    if isinstance(node, cst.BaseExpression) and (node.lpar or node.rpar):
        node = node.with_changes(lpar=(), rpar=())
    return module.code_for_node(node)


def _loc(pos: tuple[int, int]) -> Location:
    return Location(pos[0], pos[1] + 1)


def materialize(module: cst.Module, fix: NodeFix, ranges: Mapping[int, CodeRange]) -> Fix:
    """Turn a node-level fix into text edits, using ``ranges`` from ``positions.locate``."""
    edits = []
    for r in fix.replacements:
        rng = ranges[id(r.node)]
        content = r.new if isinstance(r.new, str) else _bare_code(module, r.new)
        start, end = (rng.start.line, rng.start.column), (rng.end.line, rng.end.column)
        # A bracket node's range includes the whitespace it owns; edit just the bracket.
        if isinstance(r.node, _OPENING):
            end = (start[0], start[1] + 1)
        elif isinstance(r.node, _CLOSING):
            start = (end[0], end[1] - 1)
        edits.append(Edit(_loc(start), _loc(end), content))
    if fix.imports:
        bound = top_level_imports(module)
        row = import_row(module, ranges)
        at = Location(row, 1)
        for stmt in fix.imports:
            if not _already_imported(stmt, bound):
                edits.append(Edit(at, at, stmt + module.default_newline))
    return Fix(fix.title, fix.applicability, tuple(edits))


def _already_imported(stmt: str, bound: Mapping[str, str]) -> bool:
    words = stmt.split()
    if len(words) == 4 and words[2] == "as":  # import a.b as c
        return bound.get(words[3]) == words[1]
    return len(words) == 2 and bound.get(words[1]) == words[1]


def import_anchors(module: cst.Module) -> list[cst.CSTNode]:
    """Return the statements whose position decides where new imports go."""
    anchors: list[cst.CSTNode] = []
    for i, stmt in enumerate(module.body):
        if _is_import_line(stmt) or (i == 0 and _is_docstring(stmt)):
            anchors.append(stmt)
            continue
        # New imports go above the first other statement, above its decorators too.
        decorators = getattr(stmt, "decorators", ())
        anchors.append(decorators[0] if decorators else stmt)
        break
    return anchors


def import_row(module: cst.Module, ranges: Mapping[int, CodeRange]) -> int:
    """Return the row where new import lines go: after the leading imports and docstring."""
    anchors = import_anchors(module)
    leading = [a for a in anchors if _is_import_line(a) or _is_docstring(a)]
    if leading and id(leading[-1]) in ranges:
        return ranges[id(leading[-1])].end.line + 1
    if anchors and id(anchors[-1]) in ranges:
        return ranges[id(anchors[-1])].start.line
    return 1


def _is_import_line(stmt: cst.CSTNode) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and all(
        isinstance(s, cst.Import | cst.ImportFrom) for s in stmt.body
    )


def _is_docstring(stmt: cst.CSTNode) -> bool:
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, cst.SimpleString | cst.ConcatenatedString)
    )
