"""The rule base class: one rule is one small class with its own examples and docs."""

from __future__ import annotations

import inspect
import string
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar

import libcst as cst

from jitlint.model import TRACED_MODES, Applicability, Fix, Mode

if TYPE_CHECKING:
    from jitlint.analysis.context import RuleContext
    from jitlint.fixes.model import NodeFix

# Where rule pages are published; None until the project has a public docs address.
DOCS_URL: str | None = None


_HOOK_NAMES: dict[type, list[tuple[type[cst.CSTNode], str]]] = {}  # by rule class


class Rule:
    """Base of every rule.

    Subclasses set ``code``, ``name``, ``message`` (a template whose ``{placeholders}`` the
    hooks fill through ``report``), ``VALID`` and ``INVALID`` and define hooks
    named ``visit_<libcst node class>(self, node, ctx)``; the engine calls a hook for each such
    node in code whose trace mode is in ``modes``.
    """

    code: ClassVar[str]
    name: ClassVar[str]
    message: ClassVar[str]
    modes: ClassVar[frozenset[Mode]] = TRACED_MODES
    fix_applicability: ClassVar[Applicability | None] = None
    VALID: ClassVar[tuple[str, ...]] = ()
    INVALID: ClassVar[tuple[str, ...]] = ()

    def hooks(self) -> Iterator[tuple[type[cst.CSTNode], Any]]:
        """Yield (libcst node class, bound hook) for every ``visit_*`` method."""
        cls = type(self)
        named = _HOOK_NAMES.get(cls)
        if named is None:  # `dir` is slow, and every analysis of a function asks
            named = _HOOK_NAMES[cls] = [
                (node_type, attr)
                for attr in dir(cls)
                if attr.startswith("visit_")
                and isinstance(node_type := getattr(cst, attr.removeprefix("visit_"), None), type)
                and issubclass(node_type, cst.CSTNode)
            ]
        for node_type, attr in named:
            yield node_type, getattr(self, attr)

    def report(
        self,
        ctx: RuleContext,
        node: cst.CSTNode,
        message: str | None = None,
        fix: Fix | NodeFix | None = None,
        **fields: str,
    ) -> None:
        """Report a finding of this rule at ``node``.

        The message is the rule's ``message`` template filled with ``fields``; an explicit
        ``message`` is for the rules whose findings still need two different sentences.
        """
        text = message if message is not None else self.message.format(**fields)
        ctx.report(self, node, text, fix)

    @classmethod
    def message_for_docs(cls) -> str:
        """Return the message template as docs show it: ``{placeholders}`` kept, ``{{`` as ``{``."""
        return "".join(
            text + ("" if field is None else "{" + field + "}")
            for text, field, _, _ in string.Formatter().parse(cls.message)
        )

    @classmethod
    def url(cls) -> str | None:
        """Return the address of this rule's documentation page, if published."""
        return None if DOCS_URL is None else DOCS_URL.format(code=cls.code)

    @classmethod
    def doc(cls) -> str:
        """Return the rule's docstring, dedented."""
        return inspect.cleandoc(cls.__doc__ or "")


def snippet(node: cst.CSTNode) -> str:
    """Return the source text of a node on one line, shortened for messages."""
    text = " ".join(cst.Module([]).code_for_node(node).split())
    return text if len(text) <= 40 else text[:37] + "..."
