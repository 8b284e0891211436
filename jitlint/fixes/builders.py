"""Build the fixes rules attach: ``print`` to ``jax.debug.print``, literals to hashable forms."""

from __future__ import annotations

import ast
import json

import libcst as cst

from jitlint.analysis.cst_util import literal
from jitlint.fixes.edits import reference
from jitlint.fixes.model import NodeFix, Replace
from jitlint.model import Applicability

# What `literal` returns for an expression that is not a literal.
_NOT_LITERAL = object()


def _text_value(part: cst.FormattedStringText, fstring: cst.FormattedString) -> str:
    # Evaluate the text under the f-string's own quotes and prefix, minus the `f`. Doubled
    # braces stay doubled, which is exactly how str.format spells a literal brace.
    prefix = fstring.prefix.lower().replace("f", "")
    value = ast.literal_eval(
        f"{prefix}{fstring.start[len(fstring.prefix) :]}{part.value}{fstring.end}"
    )
    assert isinstance(value, str)
    return value


def _escape(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def _fstring(node: cst.FormattedString, args: list[str]) -> str | None:
    out = []
    for part in node.parts:
        if isinstance(part, cst.FormattedStringText):
            out.append(_text_value(part, node))
            continue
        if not isinstance(part, cst.FormattedStringExpression):
            return None
        if part.equal is not None:
            return None
        field = "{"
        if part.conversion is not None:
            field += "!" + part.conversion
        if part.format_spec is not None:
            if not all(isinstance(p, cst.FormattedStringText) for p in part.format_spec):
                return None  # a nested `{...}` inside the format spec
            field += ":" + "".join(
                p.value for p in part.format_spec if isinstance(p, cst.FormattedStringText)
            )
        out.append(field + "}")
        args.append(cst.Module([]).code_for_node(part.expression))
    return "".join(out)


def debug_print(module: cst.Module, call: cst.Call) -> NodeFix | None:
    """Return the fix turning ``print(...)`` into ``jax.debug.print(fmt, ...)``, if possible."""
    sep = " "
    pieces: list[str] = []
    args: list[str] = []
    for arg in call.args:
        if arg.star:
            return None
        if arg.keyword is not None:
            key = arg.keyword.value
            value = literal(arg.value, _NOT_LITERAL)
            if value is _NOT_LITERAL:
                return None
            if key == "sep" and isinstance(value, str):
                sep = value
            elif key == "end" and value == "\n":
                pass  # jax.debug.print always ends the line
            elif key == "flush" and isinstance(value, bool):
                pass
            else:
                return None  # file=, or an end/sep jax.debug.print cannot reproduce
            continue
        value_node = arg.value
        if isinstance(value_node, cst.SimpleString) and "b" not in value_node.prefix.lower():
            pieces.append(_escape(str(literal(value_node))))
        elif isinstance(value_node, cst.FormattedString):
            piece = _fstring(value_node, args)
            if piece is None:
                return None
            pieces.append(piece)
        elif isinstance(value_node, cst.ConcatenatedString | cst.SimpleString):
            return None
        else:
            pieces.append("{}")
            args.append(cst.Module([]).code_for_node(value_node))
    try:
        func, imports = reference(module, "jax.debug.print")
    except LookupError:
        return None
    fmt = json.dumps(_escape(sep).join(pieces), ensure_ascii=False)
    new = f"{func}({', '.join([fmt, *args])})"
    return NodeFix(
        "Replace `print` with `jax.debug.print`",
        Applicability.UNSAFE,
        (Replace(call, new),),
        imports,
    )


def hashable_literal(node: cst.BaseExpression) -> NodeFix | None:
    """Return the fix turning a list literal into a tuple (a set into a frozenset), if safe.

    Only literals whose elements are themselves hashable constants qualify: a tuple of lists
    would be just as unhashable.
    """
    code = cst.Module([]).code_for_node
    if isinstance(node, cst.List) and all(_constant(e) for e in node.elements):
        elements = node.elements
        single = len(elements) == 1 and elements[0].comma is cst.MaybeSentinel.DEFAULT
        if "\n" not in code(node):
            items = ", ".join(code(e.value) for e in elements)
            text = f"({items},)" if single else f"({items})"
            return NodeFix("Use a tuple", Applicability.SAFE, (Replace(node, text),))
        # Spread over lines: change only the brackets, keeping the layout and comments.
        edits = (Replace(node.lbracket, "("), Replace(node.rbracket, ",)" if single else ")"))
        return NodeFix("Use a tuple", Applicability.SAFE, edits)
    if isinstance(node, cst.Set) and all(_constant(e) for e in node.elements):
        edits = (Replace(node.lbrace, "frozenset({"), Replace(node.rbrace, "})"))
        return NodeFix("Use a frozenset", Applicability.SAFE, edits)
    return None


def _constant(element: cst.BaseElement) -> bool:
    if isinstance(element, cst.StarredElement):
        return False
    value = element.value
    if isinstance(value, cst.Tuple):
        return all(_constant(e) for e in value.elements)
    if isinstance(value, cst.Name):
        return value.value in {"True", "False", "None"}
    if isinstance(value, cst.UnaryOperation):
        value = value.expression
    return isinstance(value, cst.Integer | cst.Float | cst.Imaginary | cst.SimpleString)
