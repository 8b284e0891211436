"""Collect module-wide facts in one pass: imports, globals, definitions, mutations."""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from jitlint.knowledge import words
from jitlint.walk import walk

MUTATING_METHODS = words(
    "append extend insert update add pop popitem setdefault clear remove discard "
    "appendleft extendleft sort reverse __setitem__"
)
_MUTABLE_CONSTRUCTORS = words(
    "list dict set bytearray collections.defaultdict collections.OrderedDict "
    "collections.deque collections.Counter"
)


# Decorators and base classes that make a class's instances pytrees.
_PYTREE_MARKS = (
    "register_pytree_node_class",
    "register_pytree_with_keys_class",
    "register_dataclass",
    "flax.struct.dataclass",
    "flax.struct.PyTreeNode",
    "chex.dataclass",
    "equinox.Module",
)
_REGISTER_CALLS = ("register_pytree_node", "register_pytree_with_keys", "register_dataclass")


def dotted(expr: cst.BaseExpression) -> str | None:
    """Return ``a.b.c`` for a Name/Attribute chain, else None."""
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        base = dotted(expr.value)
        return None if base is None else f"{base}.{expr.attr.value}"
    return None


def _module_name(node: cst.Attribute | cst.Name) -> str:
    return dotted(node) or ""


@dataclass
class ModuleInfo:
    """Hold what rules need to know about the whole module."""

    imports: dict[str, str] = field(default_factory=dict)  # local name -> qualified name
    functions: dict[str, cst.FunctionDef] = field(default_factory=dict)
    classes: dict[str, cst.ClassDef] = field(default_factory=dict)
    # Module-level bindings by assignment: name -> the branch path of each binding.
    assigned: dict[str, list[tuple[tuple[int, str], ...]]] = field(default_factory=dict)
    mutable_globals: set[str] = field(default_factory=set)
    rebound: set[str] = field(default_factory=set)  # global stmt writes, augmented assigns
    mutated: set[str] = field(default_factory=set)  # names mutated in place anywhere
    loggers: set[str] = field(default_factory=set)
    pytree_classes: set[str] = field(default_factory=set)  # classes whose instances are pytrees
    # Fields declared static (`field(pytree_node=False)`, `eqx.field(static=True)`) per class.
    static_fields: dict[str, set[str]] = field(default_factory=dict)

    def qualname(self, expr: cst.BaseExpression) -> str | None:
        """Resolve a Name/Attribute chain through the module's imports."""
        text = dotted(expr)
        if text is None:
            return None
        head, _, rest = text.partition(".")
        target = self.imports.get(head)
        if target is None:
            return text
        return f"{target}.{rest}" if rest else target

    def is_stale_prone(self, name: str) -> bool:
        """Tell whether a module global may change after a jitted function captured it."""
        if name not in self.assigned:
            return False
        if name in self.rebound or _rebinds(self.assigned[name]):
            return True
        return name in self.mutable_globals and name in self.mutated


class _Collector(cst.CSTVisitor):
    def __init__(self, info: ModuleInfo) -> None:
        self.info = info
        self.depth = 0  # function nesting depth
        self.class_depth = 0
        self.global_names: list[set[str]] = []
        # Branches of module-level if/try statements we are in: (statement id, branch).
        self.path: list[tuple[int, str]] = []

    def _enter(self, node: cst.CSTNode, label: str) -> None:
        if self.depth == 0 and self.class_depth == 0:
            self.path.append((id(node), label))

    def _leave(self, node: cst.CSTNode) -> None:
        if self.path and self.path[-1][0] == id(node):
            self.path.pop()

    def visit_If_body(self, node: cst.If) -> None:
        self._enter(node, "body")

    def leave_If_body(self, node: cst.If) -> None:
        self._leave(node)

    def visit_If_orelse(self, node: cst.If) -> None:
        self._enter(node, "orelse")

    def leave_If_orelse(self, node: cst.If) -> None:
        self._leave(node)

    def visit_Try_body(self, node: cst.Try) -> None:
        self._enter(node, "body")

    def leave_Try_body(self, node: cst.Try) -> None:
        self._leave(node)

    def visit_Try_handlers(self, node: cst.Try) -> None:
        self._enter(node, "handlers")

    def leave_Try_handlers(self, node: cst.Try) -> None:
        self._leave(node)

    def visit_Try_orelse(self, node: cst.Try) -> None:
        self._enter(node, "orelse")

    def leave_Try_orelse(self, node: cst.Try) -> None:
        self._leave(node)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        self._enter(node, "handler")

    def leave_ExceptHandler(self, original_node: cst.ExceptHandler) -> None:
        self._leave(original_node)

    # Scopes -----------------------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if self.depth == 0 and self.class_depth == 0:
            self.info.functions[node.name.value] = node
        self.depth += 1
        self.global_names.append(set())

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.depth -= 1
        self.global_names.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        if self.depth == 0 and self.class_depth == 0:
            self.info.classes[node.name.value] = node
        marks = [d.decorator for d in node.decorators] + [b.value for b in node.bases]
        for mark in marks:
            target = mark.func if isinstance(mark, cst.Call) else mark
            q = self.info.qualname(target) or ""
            if q.endswith(_PYTREE_MARKS) or q in self.info.pytree_classes:
                self.info.pytree_classes.add(node.name.value)
        self.info.static_fields[node.name.value] = _static_fields(node)
        self.class_depth += 1

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.class_depth -= 1

    def visit_Global(self, node: cst.Global) -> None:
        if self.global_names:
            self.global_names[-1].update(n.name.value for n in node.names)

    # Imports ----------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            full = _module_name(alias.name)
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self.info.imports[alias.asname.name.value] = full
            else:
                head = full.split(".", 1)[0]
                self.info.imports[head] = head

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
            return
        base = _module_name(node.module)
        for alias in node.names:
            name = _module_name(alias.name)
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            self.info.imports[local] = f"{base}.{name}"

    # Bindings ---------------------------------------------------------------
    def _bind(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        if isinstance(target, cst.Name):
            name = target.value
            at_module = self.depth == 0 and self.class_depth == 0
            if at_module:
                self.info.assigned.setdefault(name, []).append(tuple(self.path))
                if value is not None and self._is_mutable(value):
                    self.info.mutable_globals.add(name)
                if value is not None and self._is_logger(value):
                    self.info.loggers.add(name)
            elif self.global_names and name in self.global_names[-1]:
                self.info.rebound.add(name)
        elif isinstance(target, cst.Tuple | cst.List):
            for el in target.elements:
                self._bind(el.value, None)
        elif isinstance(target, cst.StarredElement):
            self._bind(target.value, None)
        elif isinstance(target, cst.Subscript | cst.Attribute):
            root = _root_name(target.value)
            if root is not None:
                self.info.mutated.add(root)

    def _is_mutable(self, value: cst.BaseExpression) -> bool:
        if isinstance(
            value, cst.List | cst.Dict | cst.Set | cst.ListComp | cst.DictComp | cst.SetComp
        ):
            return True
        if isinstance(value, cst.Call):
            return self.info.qualname(value.func) in _MUTABLE_CONSTRUCTORS
        return False

    def _is_logger(self, value: cst.BaseExpression) -> bool:
        if isinstance(value, cst.Call):
            q = self.info.qualname(value.func) or ""
            return q.endswith("getLogger") or q in {"absl.logging", "logging"}
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        for t in node.targets:
            self._bind(t.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._bind(node.target, node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        target = node.target
        if isinstance(target, cst.Name):
            at_module = self.depth == 0 and self.class_depth == 0
            if at_module or (self.global_names and target.value in self.global_names[-1]):
                self.info.rebound.add(target.value)
        else:
            self._bind(target, None)

    def visit_For(self, node: cst.For) -> None:
        if self.depth == 0 and self.class_depth == 0:
            for name in _names_in(node.target):
                self.info.rebound.add(name)

    def visit_Del(self, node: cst.Del) -> None:
        self._bind(node.target, None)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        q = self.info.qualname(func) or ""
        if q.endswith(_REGISTER_CALLS) and node.args:
            cls = node.args[0].value
            if isinstance(cls, cst.Name):
                self.info.pytree_classes.add(cls.value)
        if isinstance(func, cst.Attribute) and func.attr.value in MUTATING_METHODS:
            root = _root_name(func.value)
            if root is not None:
                self.info.mutated.add(root)


def _exclusive(a: tuple[tuple[int, str], ...], b: tuple[tuple[int, str], ...]) -> bool:
    """Tell whether two bindings sit in alternative branches (if/else, try/except)."""
    for (sa, la), (sb, lb) in zip(a, b, strict=False):
        if sa != sb:
            # Different handlers of one try are alternatives too.
            return la == lb == "handler"
        if la != lb:
            return True
    return False


def _rebinds(paths: list[tuple[tuple[int, str], ...]]) -> bool:
    return any(
        not _exclusive(paths[i], paths[j])
        for i in range(len(paths))
        for j in range(i + 1, len(paths))
    )


def _static_fields(node: cst.ClassDef) -> set[str]:
    out: set[str] = set()
    body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
    for stmt in body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if (
                isinstance(small, cst.AnnAssign)
                and isinstance(small.target, cst.Name)
                and isinstance(small.value, cst.Call)
                and any(_is_static_kw(a) for a in small.value.args)
            ):
                out.add(small.target.value)
    return out


def _is_static_kw(arg: cst.Arg) -> bool:
    if arg.keyword is None or not isinstance(arg.value, cst.Name):
        return False
    key, value = arg.keyword.value, arg.value.value
    return (key == "static" and value == "True") or (key == "pytree_node" and value == "False")


def _root_name(expr: cst.BaseExpression) -> str | None:
    while isinstance(expr, cst.Attribute | cst.Subscript):
        expr = expr.value
    return expr.value if isinstance(expr, cst.Name) else None


def _names_in(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, cst.Tuple | cst.List):
        return [n for el in target.elements for n in _names_in(el.value)]
    return []


def collect(module: cst.Module) -> ModuleInfo:
    """Collect the module-wide facts of ``module``."""
    info = ModuleInfo()
    walk(module, _Collector(info))  # read-only walk: module.visit rebuilds every node
    return info
