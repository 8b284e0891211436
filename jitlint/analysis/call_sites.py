"""Find how the result of a transform call is called: which arguments its callers pass.

``jax.jit(f)`` traces the arguments it is called with; a parameter that no call passes is
bound to its default, a Python value closed over by the trace. When every use of the jitted
object is visible (inside a function, it is called on the spot, ``jax.jit(f)(x)``, or bound
to a local name that is only ever called), the parameters its calls pass are known.

The same holds for a name bound in the module's ``if __name__ == "__main__":`` block: it exists
only when the file runs as a script, so no other module imports it, and every use of it is
in this file.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import cast

import libcst as cst

from jitlint.analysis.cst_util import child_nodes, descendants, is_main_guard, walk

# What the calls of a transformed function pass: the most positional arguments of any call,
# and every keyword any call names.
Passed = tuple[int, frozenset[str]]


@dataclass
class _Uses:
    outer_call: dict[int, cst.Call] = field(default_factory=dict)  # id(inner) -> `inner(...)`
    bound_local: dict[int, str] = field(default_factory=dict)  # id(call) -> `name = call`
    bindings: dict[str, int] = field(default_factory=dict)  # name -> times bound
    calls: dict[str, list[cst.Call]] = field(default_factory=dict)  # name -> `name(...)`
    escapes: set[str] = field(default_factory=set)  # names read other than as a callee


class _Collector(cst.CSTVisitor):
    def __init__(self) -> None:
        self.uses = _Uses()
        self._depth = 0  # function nesting
        self._main = 0  # inside the module's `if __name__ == "__main__":` block
        self._skip: set[int] = set()  # Name nodes that are not reads

    def visit_If(self, node: cst.If) -> None:
        if self._depth == 0 and is_main_guard(node):
            self._main += 1

    def leave_If(self, original_node: cst.If) -> None:
        if self._depth == 0 and is_main_guard(original_node):
            self._main -= 1

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._depth += 1
        self._skip.add(id(node.name))
        self._bind(node.name.value)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._depth -= 1

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._skip.add(id(node.name))
        self._bind(node.name.value)

    def visit_Param(self, node: cst.Param) -> None:
        self._skip.add(id(node.name))
        self._bind(node.name.value)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._skip.add(id(node.attr))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self._skip.add(id(node.keyword))

    def visit_ImportAlias(self, node: cst.ImportAlias) -> bool:
        name = node.asname.name if node.asname is not None else node.name
        if isinstance(name, cst.Name):
            self._bind(name.value)
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._targets(target.target)
        [*_, last] = node.targets
        if (
            (self._depth > 0 or self._main > 0)
            and len(node.targets) == 1
            and isinstance(last.target, cst.Name)
            and isinstance(node.value, cst.Call)
        ):
            self.uses.bound_local[id(node.value)] = last.target.value

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._targets(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._targets(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._targets(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._targets(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._targets(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._targets(node.name)

    def _targets(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self._skip.add(id(target))
            self._bind(target.value)
        elif isinstance(target, cst.Tuple | cst.List):
            for el in target.elements:
                self._targets(el.value)
        elif isinstance(target, cst.StarredElement):
            self._targets(target.value)

    def _bind(self, name: str) -> None:
        self.uses.bindings[name] = self.uses.bindings.get(name, 0) + 1

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Call):
            self.uses.outer_call[id(func)] = node
        elif isinstance(func, cst.Name):
            self._skip.add(id(func))
            self.uses.calls.setdefault(func.value, []).append(node)

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) not in self._skip:
            self.uses.escapes.add(node.value)


class CallSites:
    """Answer what the calls of a transform call's result pass, one function at a time."""

    def __init__(self) -> None:
        self._uses: dict[int, _Uses] = {}
        self._reads: Counter[str] | None = None  # attribute names the module reads

    def passed(self, call: cst.Call, scope: cst.CSTNode) -> Passed | None:
        """Return what the calls of ``call``'s result pass, or None when not all are seen.

        ``scope`` is the function the call is in: a name local to it is used nowhere else.
        At module level the result may be imported and called anywhere (None), unless it is
        bound in the ``__main__`` block.
        """
        if isinstance(scope, cst.Module):
            if not any(isinstance(s, cst.If) and is_main_guard(s) for s in scope.body):
                return None
        elif not isinstance(scope, cst.FunctionDef):
            return None
        uses = self._uses_of(scope)
        outer = uses.outer_call.get(id(call))
        if outer is not None:
            return passed_by([outer])
        return self._calls_of(uses, uses.bound_local.get(id(call)))

    def result_calls(self, call: cst.Call, scope: cst.CSTNode) -> list[cst.Call]:
        """Return the calls of ``call``'s result in the function ``scope`` (`grad_fn(model,
        batch)` after `grad_fn = nnx.value_and_grad(loss_fn)`), or [] when not all are seen."""
        if not isinstance(scope, cst.FunctionDef):
            return []
        uses = self._uses_of(scope)
        outer = uses.outer_call.get(id(call))
        if outer is not None:
            return [outer]
        name = uses.bound_local.get(id(call))
        if name is None or uses.bindings.get(name) != 1 or name in uses.escapes:
            return []
        return list(uses.calls.get(name, ()))

    def passed_to_def(self, fn: cst.FunctionDef, scope: cst.CSTNode) -> Passed | None:
        """Return what the calls of a function its decorators jit pass, when ``fn`` is
        defined in the function ``scope`` and its name is only ever called there."""
        if not isinstance(scope, cst.FunctionDef):
            return None  # a module's function may be imported and called anywhere
        return self._calls_of(self._uses_of(scope), fn.name.value)

    def _uses_of(self, scope: cst.CSTNode) -> _Uses:
        uses = self._uses.get(id(scope))
        if uses is None:
            collector = _Collector()
            walk(scope, collector)  # read-only: `scope.visit` would rebuild every node
            uses = self._uses[id(scope)] = collector.uses
        return uses

    def passed_to_method(
        self, fn: cst.FunctionDef, cls: cst.ClassDef, module: cst.Module
    ) -> Passed | None:
        """Return what the calls of a method its decorators jit pass, counting the bound
        ``self``, when the module reads the method only in calls ``self.name(...)`` of its
        own class (`self.get_mvn_posterior(X_new, params, noiseless)`)."""
        name = fn.name.value
        calls: list[cst.Call] = []
        for node in descendants(cls):
            if type(node) is cst.Call:
                func = node.func
                if (
                    type(func) is cst.Attribute
                    and func.attr.value == name
                    and type(func.value) is cst.Name
                    and func.value.value == "self"
                ):
                    calls.append(node)
        if not calls:
            return None
        if self.attribute_reads(name, module) != len(calls):
            return None  # read otherwise too: called on other objects, or handed on
        found = passed_by(calls)
        return None if found is None else (found[0] + 1, found[1])

    def attribute_reads(self, attr: str, module: cst.Module) -> int:
        """Count the attributes named ``attr`` the module reads or writes (`self.f`, `o.f`);
        counted once per module (one CallSites serves one module's analysis)."""
        if self._reads is None:
            self._reads = Counter(
                node.attr.value for node in descendants(module) if type(node) is cst.Attribute
            )
        return self._reads[attr]

    @staticmethod
    def _calls_of(uses: _Uses, name: str | None) -> Passed | None:
        if name is None or uses.bindings.get(name) != 1 or name in uses.escapes:
            return None
        calls = uses.calls.get(name)
        return passed_by(calls) if calls else None


def passed_anywhere(calls: Iterable[cst.Call]) -> tuple[frozenset[int], frozenset[str]]:
    """Return the positions and keywords any of ``calls`` passes (positions before a
    `*args` only)."""
    positions: set[int] = set()
    names: set[str] = set()
    for call in calls:
        k = 0
        for a in call.args:
            if a.keyword is not None:
                names.add(a.keyword.value)
            elif a.star:
                break
            else:
                positions.add(k)
                k += 1
    return frozenset(positions), frozenset(names)


def passed_by(calls: list[cst.Call]) -> Passed | None:
    """Return what ``calls`` pass together, or None when one may pass anything."""
    positional = 0
    names: set[str] = set()
    for call in calls:
        if any(a.star for a in call.args):
            return None  # `g(*args)` / `g(**kwargs)` may pass anything
        positional = max(positional, sum(a.keyword is None for a in call.args))
        names.update(a.keyword.value for a in call.args if a.keyword is not None)
    return positional, frozenset(names)


# A call and the function it is written in (None at module level).
Site = tuple[cst.Call, "cst.FunctionDef | None"]


def module_calls(module: cst.Module) -> dict[str, list[Site]]:
    """Return every call of a plain name in ``module`` (in functions too), by the name, with
    the function each is written in."""
    out: dict[str, list[Site]] = {}
    # Source order, parents first, each node with the function it is written in.
    stack: list[tuple[cst.CSTNode, cst.FunctionDef | None]] = [(module, None)]
    while stack:
        node, within = stack.pop()
        kind = type(node)
        if kind is cst.Call:
            func = cast(cst.Call, node).func
            if type(func) is cst.Name:
                out.setdefault(func.value, []).append((cast(cst.Call, node), within))
        elif kind is cst.FunctionDef:
            within = cast(cst.FunctionDef, node)
        stack.extend((child, within) for child in reversed(child_nodes(node)))
    return out


_PYTHON_HINTS = frozenset({"int", "float", "bool", "str", "complex", "Literal"})


def python_value(expr: cst.BaseExpression, where: cst.FunctionDef | None) -> bool:
    """Tell whether ``expr``, passed at a call written in ``where``, is evidently a Python
    value and not an array: a literal, a tuple of them, or a parameter of ``where``
    annotated `int`/`str`/... or left without annotation at a literal default."""
    if isinstance(expr, cst.BaseNumber | cst.BaseString):
        return True
    if isinstance(expr, cst.UnaryOperation):
        return isinstance(expr.expression, cst.BaseNumber)
    if isinstance(expr, cst.Tuple):
        return all(python_value(el.value, where) for el in expr.elements)
    if not isinstance(expr, cst.Name):
        return False
    if expr.value in {"True", "False", "None"}:
        return True
    if where is None:
        return False
    params = where.params
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        if param.name.value != expr.value:
            continue
        if param.annotation is not None:
            text = cst.Module([]).code_for_node(param.annotation.annotation)
            return text.split("[", 1)[0].rsplit(".", 1)[-1] in _PYTHON_HINTS
        default = param.default
        return (
            default is not None
            and python_value(default, None)
            and not (isinstance(default, cst.Name) and default.value == "None")
        )
    return False


def module_method_calls(module: cst.Module) -> dict[str, list[tuple[str, cst.Call]]]:
    """Return every call `name.method(...)` in ``module`` (in functions too), by the method's
    name, with the name it is called on."""
    out: dict[str, list[tuple[str, cst.Call]]] = {}
    for node in descendants(module):
        if type(node) is cst.Call:
            func = node.func
            if type(func) is cst.Attribute and type(func.value) is cst.Name:
                out.setdefault(func.attr.value, []).append((func.value.value, node))
    return out
