"""The named queries of ``RuleContext`` that read the walk state and the module facts.

Kept apart from the walker so that the walk can change its bookkeeping freely: rules see
only these answers.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import libcst as cst

from jitlint.analysis import transforms
from jitlint.analysis.module_info import ModuleInfo
from jitlint.analysis.taint import Frame
from jitlint.model import Mode

if TYPE_CHECKING:
    from jitlint.analysis.context import FunctionTarget


class RuleQueries:
    """Answer rules' questions about the module and the scope being walked."""

    info: ModuleInfo
    stack: list[Frame]
    loops: list[set[str]]
    sweeps: list[bool]
    wrappers: frozenset[str]
    # the last answer of `functions_given`, with the frame and depth it was asked at
    _given_last: tuple[Frame, int, frozenset[tuple[str, int]]] | None = None

    # Names -----------------------------------------------------------------------
    def import_qualname(self, expr: cst.BaseExpression) -> str | None:
        """Resolve a dotted name through the module's imports alone (no shadowing check)."""
        return self.info.qualname(expr)

    def transform_named(self, qualname: str | None) -> transforms.Transform | None:
        """Return the transform with this qualified name (configured wrappers included)."""
        return transforms.lookup(qualname, self.wrappers)

    def binds_container(self, name: str) -> bool | None:
        """Tell whether the nearest scope binding ``name`` binds a list/dict/set literal."""
        for frame in reversed(self.stack):
            if name in frame.unhashable:
                return True
            if name in frame.env or name in frame.locals:
                return False
        return None

    # Module facts ------------------------------------------------------------------
    def is_imported(self, name: str) -> bool:
        """Tell whether the module binds ``name`` by an import."""
        return name in self.info.imports

    def defines_function(self, name: str) -> bool:
        """Tell whether the module defines a function called ``name``."""
        return name in self.info.functions

    def defines_class(self, name: str) -> bool:
        """Tell whether the module defines a class called ``name``."""
        return name in self.info.classes

    def mentions(self, word: str, target: FunctionTarget | None = None) -> bool:
        """Tell whether the text of the module being walked (or of the module defining
        ``target``) contains ``word``: a cheap test before a walk that needs it."""
        info = (getattr(target, "owner", None) or self).info
        found = info.mentioned.get(word)
        if found is None:
            found = info.mentioned[word] = not info.text or word in info.text
        return found

    def may_call(self, name: str) -> bool:
        """Tell whether the module's text may call ``name`` (`name(`, `obj.name(`, outside
        its own `def`, or through a name bound to it: `= name`, `partial(name`): False means
        it certainly does not."""
        found = self.info.called.get(name)
        if found is None:
            word = re.escape(name)
            pattern = rf"(?<!def )(?<!\w){word}\s*\(|(?:=|partial\()\s*{word}(?!\w)"
            found = self.info.called[name] = re.search(pattern, self.info.text) is not None
        return found

    def class_named(self, name: str) -> cst.ClassDef | None:
        """Return the module-level class ``name`` defines, if it does."""
        return self.info.classes.get(name)

    def assignment_count(self, name: str) -> int:
        """Return how many module-level assignments bind ``name``."""
        return len(self.info.assigned.get(name, ()))

    def is_rebound(self, name: str) -> bool:
        """Tell whether the module rebinds global ``name`` (augmented or `global` writes)."""
        return name in self.info.rebound

    def rebound_by_function(self, name: str) -> bool:
        """Tell whether a function of the module rebinds global ``name`` (`global name`)."""
        return name in self.info.function_rebound

    def is_mutated(self, name: str) -> bool:
        """Tell whether module global ``name`` is mutated in place somewhere."""
        return name in self.info.mutated

    def is_mutable_global(self, name: str) -> bool:
        """Tell whether module global ``name`` is bound to a mutable container."""
        return name in self.info.mutable_globals

    def is_stale_prone(self, name: str) -> bool:
        """Tell whether module global ``name`` changes after a trace could read it."""
        return self.info.is_stale_prone(name)

    def is_logger(self, name: str) -> bool:
        """Tell whether module global ``name`` is a logger (``logging.getLogger(...)``)."""
        return name in self.info.loggers

    # Where the walk is -------------------------------------------------------------
    @property
    def scope(self) -> cst.Module | cst.FunctionDef | cst.Lambda | cst.ClassDef:
        """Return the innermost scope being walked."""
        return self.stack[-1].node

    @property
    def enclosing_class(self) -> cst.ClassDef | None:
        """Return the class whose method is being walked, if any."""
        return self.stack[-1].cls

    @property
    def functions_given(self) -> frozenset[tuple[str, int]]:
        """Return the functions the callers of the enclosing functions give their
        parameters (`make_b(a_sampler=a)`), by parameter and identity: a scope walked again
        under other ones calls other code."""
        top = self.stack[-1]
        last = self._given_last
        if last is not None and last[0] is top and last[1] == len(self.stack):
            return last[2]  # asked at every call of a scope: once per frame
        out: set[tuple[str, int]] = set()
        for frame in self.stack:
            node = frame.node
            if type(node) is not cst.FunctionDef:
                continue
            params = node.params
            for p in (*params.posonly_params, *params.params, *params.kwonly_params):
                given = frame.bound_defs.get(p.name.value)
                if given is not None:
                    out.add((p.name.value, id(given)))
        found = frozenset(out)
        self._given_last = (top, len(self.stack), found)
        return found

    @property
    def is_stateful(self) -> bool:
        """Tell whether the transform carries attribute writes back out (flax nnx/linen)."""
        return self.stack[-1].style.stateful

    @property
    def traced_afresh(self) -> bool:
        """Tell whether the trace walked is made anew each time its transform's result is
        called (`jax.jit(f)(x)`, or handed to a function that only calls it)."""
        return self.stack[-1].style.fresh

    @property
    def filters_arrays(self) -> bool:
        """Tell whether the walk is under an equinox filter transform: only array leaves of
        the arguments are traced, Python values (bools, callables) stay static."""
        return self.stack[-1].style.filtered

    @property
    def owns_self(self) -> bool:
        """Tell whether the method's object was constructed inside the trace being walked."""
        return self.stack[-1].owns_self

    def outer_param(self, name: str) -> bool:
        """Tell whether ``name`` is a parameter of the function walked that its caller gave
        an object from outside the trace it runs in."""
        return name in self.stack[-1].outer_params

    def enclosing_self(self, name: str) -> bool | None:
        """For ``self`` (or ``cls``) closed over from an enclosing method: whether that
        method's object was constructed inside the trace; None when ``name`` is not an
        enclosing method's first parameter."""
        for frame in reversed(self.stack[:-1]):
            if name in frame.env or name in frame.locals:
                return frame.owns_self if frame.cls is not None else None
        return None

    def stored_on_self(self, attr: str) -> bool:
        """Tell whether the function walked has already stored a value in `self.<attr>` of
        its static `self` at this point of the walk, itself or through a method of the same
        `self` it called (`self.fit(p)` storing `self.gp`): a read now gets that value."""
        frame = self.stack[-1]
        return f"self.{attr}" in frame.env or attr in frame.self_stores

    def enclosing_method(self, name: str) -> tuple[cst.ClassDef, cst.FunctionDef] | None:
        """For ``self`` closed over from an enclosing method outside the trace: that method
        and its class; None when ``name`` is not such a method's parameter."""
        for frame in reversed(self.stack[:-1]):
            if name in frame.env or name in frame.locals:
                if (
                    frame.cls is not None
                    and isinstance(frame.node, cst.FunctionDef)
                    and frame.mode is Mode.NONE
                ):
                    return frame.cls, frame.node
                return None
        return None

    def declares_outer(self, name: str) -> bool:
        """Tell whether the scope declares ``name`` ``global`` or ``nonlocal``."""
        return name in self.stack[-1].declared_outer

    @property
    def in_loop(self) -> bool:
        """Tell whether the walk is inside a ``for``/``while`` loop body."""
        return bool(self.loops)

    @property
    def in_sweep(self) -> bool:
        """Tell whether the innermost loop around the walk runs over a display of a few
        constants (`for axis in (2, -1):`): a configuration each, not the same work again."""
        return bool(self.sweeps) and self.sweeps[-1]

    def array_fields(self, cls: cst.ClassDef) -> frozenset[str]:
        """Return the fields of class ``cls`` of this module annotated as arrays and not
        kept static (`w: jax.Array`, `Float[Array, "n"]`)."""
        if self.info.classes.get(cls.name.value) is not cls:
            return frozenset()
        return frozenset(self.info.array_fields.get(cls.name.value, ()))

    def static_fields(self, cls: str) -> frozenset[str]:
        """Return the fields of class ``cls`` of this module that its pytree keeps static."""
        return frozenset(self.info.static_fields.get(cls, ()))

    def binding_scope(self, name: str) -> cst.CSTNode | None:
        """Return the innermost function (or lambda) of the walk whose parameter or local
        ``name`` is; None when it is the module's (or unbound)."""
        current = self.stack[-1]
        for frame in reversed(self.stack[1:]):
            if type(frame.node) is cst.ClassDef and frame is not current:
                continue
            if name in frame.env or name in frame.locals:
                return frame.node
        return None

    def defined_in_loop(self, name: str) -> bool:
        """Tell whether ``name`` is a function defined inside an enclosing loop."""
        return any(name in defs for defs in self.loops)
