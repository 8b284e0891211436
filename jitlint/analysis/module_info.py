"""Collect module-wide facts: imports, globals, definitions, mutations, pytree classes."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import cast

import libcst as cst

from jitlint.analysis.cst_util import descendants, is_main_guard, root_name, variable_names
from jitlint.analysis.knowledge import STATIC_ATTRS, words
from jitlint.analysis.project_index import absolute_module
from jitlint.analysis.scopes import (
    annotated_fields,
    return_statements,
    scope_names,
    suite_statements,
    target_names,
)

MUTATING_METHODS = words(
    "append extend insert update add pop popitem setdefault clear remove discard "
    "appendleft extendleft sort reverse __setitem__"
)
# Those of them that return None: a call whose result is used (`updates, state =
# opt.update(grads, state)`) is some other object's method, not a container's mutation.
RETURNS_NONE_METHODS = words(
    "append extend insert update add clear remove discard appendleft extendleft sort reverse"
)
MUTABLE_CONSTRUCTORS = words(
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


_ALIAS_ROOTS = frozenset({"jax", "flax", "equinox", "functools", "numpy", "scipy", "math"})
# `partial(jax.pmap, devices=ds)` names the transform itself when its options are only where
# and how it runs: none of them makes an argument static, unmapped or donated.
_PARTIAL_TRANSFORMS = frozenset({"jax.jit", "jax.pmap"})
_NEUTRAL_OPTIONS = frozenset({"devices", "device", "backend", "axis_name", "axis_size"})


# Per node type: 1 for a Name, 2 for an Attribute, 0 otherwise (``isinstance`` on libcst's
# ABCs is slow, and ``dotted`` runs on every call and name the analysis resolves).
_DOTTED: dict[type, int] = {}


def _dotted_kind(kind: type) -> int:
    found = 1 if issubclass(kind, cst.Name) else 2 if issubclass(kind, cst.Attribute) else 0
    _DOTTED[kind] = found
    return found


def dotted(expr: cst.BaseExpression) -> str | None:
    """Return ``a.b.c`` for a Name/Attribute chain, else None."""
    kind = _DOTTED.get(type(expr))
    if kind is None:
        kind = _dotted_kind(type(expr))
    if kind == 1:
        return expr.value  # type: ignore[attr-defined, no-any-return]
    if kind == 2:
        base = dotted(expr.value)  # type: ignore[attr-defined]
        return None if base is None else f"{base}.{expr.attr.value}"  # type: ignore[attr-defined]
    return None


def _module_name(node: cst.Attribute | cst.Name) -> str:
    return dotted(node) or ""


Package = tuple[str, bool]  # (the module's dotted name, whether it is a package's __init__)


def import_base(s: cst.ImportFrom, package: Package | None = None) -> str | None:
    """Return the absolute module a ``from ... import`` reads from, if it can be known.

    A relative import is known only with the importing module's name (``package``).
    """
    module = _module_name(s.module) if s.module is not None else None
    level = len(s.relative)
    if level == 0:
        return module
    if package is None:
        return None
    return absolute_module(package[0], package[1], level, module)


def import_bindings(
    s: cst.Import | cst.ImportFrom, package: Package | None = None
) -> list[tuple[str, str]]:
    """Return ``(local name, module or object it binds)`` for each name an import binds.

    Star imports bind no name; relative imports resolve only when ``package`` names the
    importing module.
    """
    out: list[tuple[str, str]] = []
    if isinstance(s, cst.Import):
        for alias in s.names:
            full = _module_name(alias.name)
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                out.append((alias.asname.name.value, full))
            else:
                head = full.split(".", 1)[0]
                out.append((head, head))
    elif not isinstance(s.names, cst.ImportStar):
        base = import_base(s, package)
        if base is None:
            return out
        for alias in s.names:
            name = _module_name(alias.name)
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            out.append((local, f"{base}.{name}"))
    return out


# The root of the qualified names of what a module defines itself under a name a library
# also has (`class math:`): no library's name starts with it.
LOCAL = "<module>"
# Names of modules rules know by their unimported spelling (`math.floor`, `time.time`).
_LIBRARY_HEADS = frozenset(
    {"math", "random", "time", "os", "sys", "numpy", "np", "jax", "jnp", "scipy", "functools"}
)


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
    attr_rebound: set[str] = field(default_factory=set)  # `name.attr = v` inside a function
    loggers: set[str] = field(default_factory=set)
    pytree_classes: set[str] = field(default_factory=set)  # classes whose instances are pytrees
    aliases: dict[str, str] = field(default_factory=dict)  # `jit = jax.jit` at module level
    # Fields declared static (`field(pytree_node=False)`, `eqx.field(static=True)`) per class.
    static_fields: dict[str, set[str]] = field(default_factory=dict)
    # Fields annotated as arrays (`w: jax.Array`, `Float[Array, "n"]`) and not static.
    array_fields: dict[str, set[str]] = field(default_factory=dict)
    # Properties of the module's classes that return a Python value by their form alone
    # (`return self.done.shape[0]`), by name: static on whatever object is read.
    static_properties: set[str] = field(default_factory=set)
    star_imports: list[str] = field(default_factory=list)  # modules of `from m import *`
    # Functions defined on different branches (`if sys.version_info ...: def f` / `else: def
    # f`): which one runs is not known, so the name is not resolved to either.
    ambiguous: set[str] = field(default_factory=set)
    _def_paths: dict[str, tuple[tuple[int, str], ...]] = field(default_factory=dict)
    # `alias.NAME = v` anywhere, with `alias` resolved: the qualified names written.
    attr_writes: set[str] = field(default_factory=set)
    # Module-level `name = Callee(...)`: name -> the callee as written (a class, maybe).
    instances: dict[str, cst.BaseExpression] = field(default_factory=dict)
    # Globals a function rebinds (`global name`): they may change at any time.
    function_rebound: set[str] = field(default_factory=set)
    # The literals each module-level name is bound to (a value of its own for anything else).
    literals: dict[str, set[str]] = field(default_factory=dict)
    text: str = ""  # the module's source, for questions cheaper to ask of the text
    called: dict[str, bool] = field(default_factory=dict)  # answers of `may_call`, by name
    mentioned: dict[str, bool] = field(default_factory=dict)  # answers of `mentions`, by word
    # Answers of `qualname` by node: id -> (the node, kept so a reused id is not mistaken
    # for it, and the answer). The imports are read once, so an answer never changes.
    _qualnames: dict[int, tuple[cst.BaseExpression, str | None]] = field(default_factory=dict)

    def qualname(self, expr: cst.BaseExpression) -> str | None:
        """Resolve a Name/Attribute chain through the module's imports."""
        known = self._qualnames.get(id(expr))
        if known is not None and known[0] is expr:
            return known[1]
        found = self._qualname(expr)
        self._qualnames[id(expr)] = (expr, found)
        return found

    def _qualname(self, expr: cst.BaseExpression) -> str | None:
        text = dotted(expr)
        if text is None:
            return None
        head, _, rest = text.partition(".")
        target = self.imports.get(head) or self.aliases.get(head)
        if target is None:
            if rest and head in _LIBRARY_HEADS and (head in self.classes or head in self.assigned):
                # `math.rotate` of the module's own `class math:`, not the standard library's
                return f"{LOCAL}.{text}"
            return text
        return f"{target}.{rest}" if rest else target

    def is_stale_prone(self, name: str) -> bool:
        """Tell whether a module global may change after a jitted function captured it."""
        if name in self.attr_rebound and (name in self.assigned or name in self.classes):
            return True
        if name not in self.assigned:
            return False
        if name in self.rebound:
            return True
        if _rebinds(self.assigned[name]) and len(self.literals.get(name, ())) != 1:
            return True  # `m = 100` twice never changes what a trace read
        return name in self.mutable_globals and name in self.mutated


Path = tuple[tuple[int, str], ...]  # the branches of module-level if/try statements we are in


@dataclass(frozen=True)
class _Where:
    """Where a statement sits: nesting, module-level branch path, declared outer names."""

    depth: int = 0
    in_class: bool = False
    path: Path = ()
    outer_names: frozenset[str] = frozenset()
    in_loop: bool = False
    in_main: bool = False  # in the module's `if __name__ == "__main__":` block

    @property
    def at_module(self) -> bool:
        return self.depth == 0 and not self.in_class

    def branch(self, owner: cst.CSTNode, label: str | None, *, loop: bool = False) -> _Where:
        path = (*self.path, (id(owner), label)) if label and self.at_module else self.path
        return replace(self, path=path, in_loop=self.in_loop or loop)


class _Collector:
    """Walk statements only (expressions are scanned as text): cheap next to parsing."""

    def __init__(self, info: ModuleInfo, package: Package | None = None) -> None:
        self.info = info
        self.package = package

    def block(self, stmts: Sequence[cst.CSTNode], where: _Where) -> None:
        for stmt in stmts:
            if type(stmt) is cst.SimpleStatementLine:
                for small in stmt.body:
                    self.small(small, where)
            elif type(stmt) is cst.FunctionDef:
                if where.at_module:
                    self._module_def(stmt, where)
                declared = frozenset(scope_names(stmt.body).declared_outer)
                inner = _Where(depth=where.depth + 1, outer_names=declared)
                self.block(suite_statements(stmt.body), inner)
            elif type(stmt) is cst.ClassDef:
                self.class_def(stmt, where.at_module)
                self.block(suite_statements(stmt.body), replace(where, in_class=True))
            else:
                self.compound(stmt, where)

    def _module_def(self, stmt: cst.FunctionDef, where: _Where) -> None:
        info, name = self.info, stmt.name.value
        earlier = info._def_paths.get(name)
        info._def_paths[name] = where.path
        if name in info.ambiguous:
            return
        if where.in_main and earlier == ():
            # The module as imported: a script's driver block redefining a module function
            # (a wrapper recording its calls) does not change what the module's own
            # functions call.
            info._def_paths[name] = earlier
            return
        if earlier is not None and earlier != where.path and (earlier or where.path):
            info.ambiguous.add(name)
            info.functions.pop(name, None)
            return
        info.functions[name] = stmt

    def compound(self, stmt: cst.CSTNode, where: _Where) -> None:
        def sub(body: cst.BaseSuite, inner: _Where) -> None:
            self.block(suite_statements(body), inner)

        if isinstance(stmt, cst.If):
            main = where.at_module and is_main_guard(stmt)
            sub(stmt.body, replace(where.branch(stmt, "body"), in_main=where.in_main or main))
            if type(stmt.orelse) is cst.If:
                self.block([stmt.orelse], where.branch(stmt, "orelse"))
            elif stmt.orelse is not None:
                sub(stmt.orelse.body, where.branch(stmt, "orelse"))
        elif isinstance(stmt, cst.For | cst.While):
            if isinstance(stmt, cst.For) and where.at_module:
                self.info.rebound.update(target_names(stmt.target))
            sub(stmt.body, where.branch(stmt, None, loop=True))
            if stmt.orelse is not None:
                sub(stmt.orelse.body, where)
        elif isinstance(stmt, cst.With):
            sub(stmt.body, where)
        elif isinstance(stmt, cst.Try | cst.TryStar):
            sub(stmt.body, where.branch(stmt, "body"))
            for h in stmt.handlers:
                sub(h.body, where.branch(stmt, "handlers").branch(h, "handler"))
            if stmt.orelse is not None:
                sub(stmt.orelse.body, where.branch(stmt, "orelse"))
            if stmt.finalbody is not None:
                sub(stmt.finalbody.body, where)
        elif isinstance(stmt, cst.Match):
            for case in stmt.cases:
                sub(case.body, where.branch(case, "case"))

    def small(self, s: cst.BaseSmallStatement, where: _Where) -> None:
        if type(s) is cst.Import or type(s) is cst.ImportFrom:
            self.info.imports.update(import_bindings(s, self.package))
            if type(s) is cst.ImportFrom and type(s.names) is cst.ImportStar:
                base = import_base(s, self.package)
                if base is not None:
                    self.info.star_imports.append(base)
        elif type(s) is cst.Assign:
            for t in s.targets:
                self.bind(t.target, s.value, where)
        elif type(s) is cst.AnnAssign and s.value is not None:
            self.bind(s.target, s.value, where)
        elif type(s) is cst.AugAssign:
            target = s.target
            if type(target) is cst.Name:
                if where.at_module or target.value in where.outer_names:
                    self.info.rebound.add(target.value)
                if not where.at_module and target.value in where.outer_names:
                    self.info.function_rebound.add(target.value)
            else:
                self.bind(target, None, where)
        elif type(s) is cst.Del:
            self.bind(s.target, None, where)

    def _partial_transform(self, value: cst.Call) -> str | None:
        """Return ``jax.pmap`` for `partial(jax.pmap, devices=ds)`: a transform with options
        that change neither what it traces nor what it keeps static."""
        info = self.info
        if info.qualname(value.func) != "functools.partial" or not value.args:
            return None
        first, *rest = value.args
        wrapped = None if first.keyword or first.star else info.qualname(first.value)
        if wrapped not in _PARTIAL_TRANSFORMS:
            return None
        if any(a.keyword is None or a.keyword.value not in _NEUTRAL_OPTIONS for a in rest):
            return None
        return wrapped

    def bind(
        self, target: cst.BaseExpression, value: cst.BaseExpression | None, where: _Where
    ) -> None:
        info = self.info
        if type(target) is cst.Name:
            name = target.value
            if where.at_module:
                if isinstance(value, cst.Name | cst.Attribute):
                    alias = info.qualname(value)
                    if alias is not None and alias.split(".", 1)[0] in _ALIAS_ROOTS:
                        info.aliases[name] = alias  # `jit = jax.jit`
                elif isinstance(value, cst.Call):
                    alias = self._partial_transform(value)
                    if alias is not None:
                        info.aliases[name] = alias  # `my_pmap = partial(jax.pmap, devices=ds)`
                info.assigned.setdefault(name, []).append(where.path)
                seen = info.literals.setdefault(name, set())
                if type(value) in _LITERAL_VALUES:
                    seen.add(cast(_Literal, value).value)
                else:
                    seen.add(f"<{len(seen)}>")  # another value each time: never the same
                if isinstance(value, cst.Call):
                    info.instances[name] = value.func
                elif (
                    isinstance(value, cst.Name)
                    and value.value in info.instances
                    and len(info.assigned.get(value.value, ())) == 1
                ):
                    info.instances[name] = info.instances[value.value]  # `cosmo = PLANCK`
                if where.in_loop:
                    info.rebound.add(name)
                if value is not None and self._is_mutable(value):
                    info.mutable_globals.add(name)
                if value is not None and self._is_logger(value):
                    info.loggers.add(name)
            elif name in where.outer_names:
                info.rebound.add(name)
                info.function_rebound.add(name)  # `global name` in a function
        elif isinstance(target, cst.Tuple | cst.List):
            for el in target.elements:
                self.bind(el.value, None, where)
        elif isinstance(target, cst.StarredElement):
            self.bind(target.value, None, where)
        elif isinstance(target, cst.Subscript | cst.Attribute):
            root = root_name(target.value)
            if root is not None:
                info.mutated.add(root)
            if isinstance(target, cst.Attribute) and root in info.imports:
                written = info.qualname(target)
                if written is not None:
                    info.attr_writes.add(written)
            # `Config.lr = v` in a function changes a global object after import.
            if (
                isinstance(target, cst.Attribute)
                and isinstance(target.value, cst.Name)
                and not where.at_module
            ):
                info.attr_rebound.add(target.value.value)

    def class_def(self, node: cst.ClassDef, at_module: bool) -> None:
        info = self.info
        if at_module:
            info.classes[node.name.value] = node
        marks = [d.decorator for d in node.decorators] + [b.value for b in node.bases]
        for mark in marks:
            target = mark.func if isinstance(mark, cst.Call) else mark
            q = info.qualname(target) or ""
            if q.endswith(_PYTREE_MARKS) or q in info.pytree_classes:
                info.pytree_classes.add(node.name.value)
        static = info.static_fields[node.name.value] = _static_fields(node, info) | _meta_fields(
            node, info
        )
        info.array_fields[node.name.value] = _array_fields(node) - static
        info.static_properties |= _static_properties(node)

    def _is_mutable(self, value: cst.BaseExpression) -> bool:
        if isinstance(
            value, cst.List | cst.Dict | cst.Set | cst.ListComp | cst.DictComp | cst.SetComp
        ):
            return True
        if isinstance(value, cst.Call):
            return self.info.qualname(value.func) in MUTABLE_CONSTRUCTORS
        return False

    def _is_logger(self, value: cst.BaseExpression) -> bool:
        if isinstance(value, cst.Call):
            q = self.info.qualname(value.func) or ""
            return q.endswith("getLogger") or q in {"absl.logging", "logging"}
        return False


# Expression-level facts are found in the text: far cheaper than visiting every node.
_MUTATING_CALL = re.compile(
    r"\b([A-Za-z_]\w*)(?:\s*\.\s*\w+|\[[^\]\n]*\])*\s*\.\s*(?:"
    + "|".join(sorted(MUTATING_METHODS))
    + r")\s*\("
)
# Where a mutating call may end: the regex above is run only on the lines before each.
_MUTATING_TAIL = re.compile(r"\.\s*(?:" + "|".join(sorted(MUTATING_METHODS)) + r")\s*\(")
_CHAIN_LINES = 3  # a receiver chain broken over more lines than this is not seen


def mutated_names(source: str) -> set[str]:
    """Return the names whose value a mutating method call (`x.append(v)`, `cfg.a.update(d)`,
    `x[k].add(v)`) changes in ``source``: what ``_MUTATING_CALL`` finds, run only on the few
    lines that end at each candidate call (the whole text costs several times more)."""
    out: set[str] = set()
    for tail in _MUTATING_TAIL.finditer(source):
        start = tail.start()
        for _ in range(_CHAIN_LINES):
            if start == 0:
                break
            start = source.rfind("\n", 0, start - 1) + 1
        for m in _MUTATING_CALL.finditer(source, start, tail.end()):
            if m.end() == tail.end() and mutates(source, m):
                out.add(m.group(1))
    return out


_METHOD_CALLED = re.compile(r"\.\s*(\w+)\s*\($")


def mutates(source: str, call: re.Match[str]) -> bool:
    """Tell whether a match of ``_MUTATING_CALL`` in ``source`` mutates its receiver: not
    text in a comment, nor a call of a method that returns None on a container whose result
    is assigned or returned (`updates, state = opt.update(g, state)`: another object's)."""
    before = source[source.rfind("\n", 0, call.start()) + 1 : call.start()].rstrip()
    if "#" in before:
        return False
    method = _METHOD_CALLED.search(call.group(0))
    if method is None or method.group(1) not in RETURNS_NONE_METHODS:
        return True
    if before.endswith(("return", "yield")):
        return False
    return not (before.endswith("=") and not before.endswith(("==", "<=", ">=", "!=")))


# Literals whose code is their value: a name bound only to one of them never changes.
_Literal = cst.Integer | cst.Float | cst.SimpleString
_LITERAL_VALUES = frozenset({cst.Integer, cst.Float, cst.SimpleString})
# The class may be named through its module or enclosing class (`types.Density2DArray`):
# the last name is the class's.
_META_FIELDS = re.compile(
    r"register_dataclass\s*\(\s*(?:[A-Za-z_]\w*\s*\.\s*)*([A-Za-z_]\w*)[^()]*?"
    r"meta_fields\s*=\s*[\[(]([^\])]*)[\])]"
)
_REGISTER_CALL = re.compile(
    r"(?:register_pytree_node|register_pytree_with_keys|register_dataclass)(?:_class)?"
    r"\s*\(\s*(?:[A-Za-z_]\w*\s*\.\s*)*([A-Za-z_]\w*)"
)


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


def _static_fields(node: cst.ClassDef, info: ModuleInfo) -> set[str]:
    return {
        name
        for name, field in annotated_fields(node)
        if isinstance(field.value, cst.Call)
        and (
            any(_is_static_kw(a) for a in field.value.args)
            # equinox's older spelling, `eqx.static_field()`, still accepted
            or (dotted(field.value.func) or "").rsplit(".", 1)[-1] == "static_field"
        )
    } | _flattened_static(node, info)


def _meta_fields(node: cst.ClassDef, info: ModuleInfo) -> set[str]:
    """Return the fields a decorator `partial(jax.tree_util.register_dataclass, ...,
    meta_fields=[...])` makes the class's static metadata."""
    found: set[str] = set()
    for dec in node.decorators:
        call = dec.decorator
        if type(call) is not cst.Call or not call.args:
            continue
        if not (info.qualname(call.func) or "").endswith("partial"):
            continue
        if not (info.qualname(call.args[0].value) or "").endswith("register_dataclass"):
            continue
        for arg in call.args[1:]:
            if arg.keyword is not None and arg.keyword.value == "meta_fields":
                value = arg.value
                if isinstance(value, cst.List | cst.Tuple):
                    found.update(
                        el.value.evaluated_value
                        for el in value.elements
                        if isinstance(el.value, cst.SimpleString)
                        and isinstance(el.value.evaluated_value, str)
                    )
    return found


def _static_properties(node: cst.ClassDef) -> set[str]:
    """Return the class's properties that hand back a Python value by their form alone,
    whatever the object holds (`return self.steps.shape[0]`)."""
    found: set[str] = set()
    for method in node.body.body:
        if not isinstance(method, cst.FunctionDef) or not any(
            (dotted(d.decorator) or "").rsplit(".", 1)[-1] in {"property", "cached_property"}
            for d in method.decorators
        ):
            continue
        returns = return_statements(method)
        if returns and all(r.value is not None and _static_form(r.value) for r in returns):
            found.add(method.name.value)
    return found


def _static_form(expr: cst.BaseExpression) -> bool:
    """Tell whether ``expr`` is a Python value by its form: a shape, a length, a literal."""
    if isinstance(expr, cst.Attribute):
        return expr.attr.value in STATIC_ATTRS
    if isinstance(expr, cst.Subscript):
        return _static_form(expr.value)
    if isinstance(expr, cst.Call):
        return isinstance(expr.func, cst.Name) and expr.func.value == "len"
    if isinstance(expr, cst.BinaryOperation):
        return _static_form(expr.left) and _static_form(expr.right)
    if isinstance(expr, cst.Tuple):
        return all(_static_form(e.value) for e in expr.elements)
    return isinstance(expr, cst.Integer | cst.SimpleString)


def _flattened_static(node: cst.ClassDef, info: ModuleInfo) -> set[str]:
    """Return the attributes a pytree class's `tree_flatten` (its own or one it inherits)
    keeps static: those it returns as auxiliary data (`return (self.w,), (self.p,)`, or
    `return self.params(), self.aux_data()` with the class's own `aux_data` returning
    `self.p`), and every attribute its `__init__` sets when it returns no children at all
    (`return (), (self.p,)`)."""
    methods = _inherited_methods(node, info)
    flatten = methods.get("tree_flatten")
    if not isinstance(flatten, cst.FunctionDef):
        return set()
    returns = return_statements(flatten)
    if len(returns) != 1 or not isinstance(returns[0].value, cst.Tuple):
        return set()
    parts = returns[0].value.elements
    if len(parts) != 2:
        return set()
    children, aux = parts[0].value, parts[1].value

    static = _returned_attributes(aux, methods)
    init = methods.get("__init__")
    if isinstance(children, cst.Tuple) and not children.elements and init is not None:
        for n in descendants(init):
            if isinstance(n, cst.Assign):
                for t in n.targets:
                    static |= _attributes_of(t.target, {"self"})
    return static - _returned_attributes(children, methods)


def _returned_attributes(expr: cst.BaseExpression, methods: dict[str, cst.CSTNode]) -> set[str]:
    """Return the attributes of `self` that ``expr`` reads, reading a call of a method of
    the class without arguments (`self.aux_data()`) as what that method returns."""
    if (
        type(expr) is cst.Call
        and not expr.args
        and type(expr.func) is cst.Attribute
        and type(expr.func.value) is cst.Name
        and expr.func.value.value == "self"
    ):
        method = methods.get(expr.func.attr.value)
        if isinstance(method, cst.FunctionDef):
            found: set[str] = set()
            for ret in return_statements(method):
                if ret.value is not None:
                    found |= _attributes_of(ret.value, {"self"})
            return found
    return _attributes_of(expr, {"self"})


def _registered_static(stmt: cst.CSTNode, info: ModuleInfo) -> None:
    """`register_pytree_node(LSTM, flatten, unflatten)` whose ``unflatten(aux, children)``
    rebuilds the object from the auxiliary data alone (`model = LSTM(*aux)`, the children
    handed to a setter after): what `__init__` stores is static under a trace, except what
    another method of the class stores again (the setter) or ``flatten`` returns as children."""
    if type(stmt) is not cst.SimpleStatementLine:
        return
    for small in stmt.body:
        call = small.value if type(small) is cst.Expr else None
        if type(call) is not cst.Call or len(call.args) != 3:
            continue
        if (info.qualname(call.func) or "").rsplit(".", 1)[-1] != "register_pytree_node":
            continue
        named = [a.value.value if type(a.value) is cst.Name else None for a in call.args]
        cls = info.classes.get(named[0] or "")
        flatten = info.functions.get(named[1] or "")
        unflatten = info.functions.get(named[2] or "")
        if cls is None or flatten is None or unflatten is None or named[0] is None:
            continue
        if not _rebuilt_from_aux(named[0], unflatten):
            continue
        methods = _inherited_methods(cls, info)
        init = methods.get("__init__")
        if not isinstance(init, cst.FunctionDef):
            continue
        static = _self_stores(init)
        for name, method in methods.items():
            if name != "__init__":
                static -= _self_stores(method)
        params = [p.name.value for p in flatten.params.params]
        for ret in return_statements(flatten):
            value = ret.value
            if type(value) is cst.Tuple and len(value.elements) == 2:
                children = value.elements[0].value
                static -= _attributes_of(children, set(params))
        info.static_fields.setdefault(named[0], set()).update(static)


def _inherited_methods(cls: cst.ClassDef, info: ModuleInfo) -> dict[str, cst.CSTNode]:
    """Return the methods of ``cls`` with those it inherits from the module's classes."""
    methods: dict[str, cst.CSTNode] = {}
    for c in (cls, *module_bases(cls, info.classes)):
        for name, method in scope_names(c.body).defs.items():
            methods.setdefault(name, method)
    return methods


def module_bases(
    cls: cst.ClassDef,
    classes: dict[str, cst.ClassDef],
    hidden: Callable[[str], bool] | None = None,
) -> Iterator[cst.ClassDef]:
    """Yield the base classes of ``cls`` that ``classes`` (a module's, by name) defines, and
    theirs, the nearest first and left to right, each once: the order Python's MRO takes for
    single inheritance. A base named by a name ``hidden`` says is shadowed is not one."""
    seen: set[int] = {id(cls)}
    pending = [cls]
    while pending:
        current = pending.pop(0)
        for base in current.bases:
            value = base.value
            if type(value) is not cst.Name or (hidden is not None and hidden(value.value)):
                continue
            found = classes.get(value.value)
            if found is None or id(found) in seen:
                continue
            seen.add(id(found))
            yield found
            pending.append(found)


def _rebuilt_from_aux(cls: str, unflatten: cst.FunctionDef) -> bool:
    """Tell whether ``unflatten(aux, children)`` makes its object with ``cls(...)`` from
    values none of which the children reach."""
    params = [p.name.value for p in unflatten.params.params]
    if len(params) != 2:
        return False
    reached = {params[1]}
    built = False
    for n in descendants(unflatten):
        if type(n) is cst.Assign and _mentions(n.value, reached):
            for t in n.targets:
                reached.update(target_names(t.target))
        elif type(n) is cst.Call and type(n.func) is cst.Name and n.func.value == cls:
            if any(_mentions(a.value, reached) for a in n.args):
                return False
            built = True
    return built


def _mentions(expr: cst.CSTNode, names: set[str]) -> bool:
    return any(n.value in names for n in variable_names(expr))


def _attributes_of(expr: cst.CSTNode, roots: set[str]) -> set[str]:
    """Return the attributes ``expr`` reads or writes on the names ``roots`` (`self.w`)."""
    return {
        n.attr.value
        for n in descendants(expr)
        if type(n) is cst.Attribute and type(n.value) is cst.Name and n.value.value in roots
    }


def _self_stores(method: cst.CSTNode) -> set[str]:
    """Return the attributes ``method`` assigns on `self`."""
    found: set[str] = set()
    for n in descendants(method):
        if type(n) is cst.Assign:
            for t in n.targets:
                found |= _attributes_of(t.target, {"self"})
        elif type(n) is cst.AugAssign or type(n) is cst.AnnAssign:
            found |= _attributes_of(n.target, {"self"})
    return found


_ARRAY_ANNOTATION = re.compile(
    r"\b(?:\w*Array|ndarray|(?:Float|Int|Bool|Num|Shaped|Real|Inexact|Integer|UInt|Complex)\[)"
)


def _array_fields(node: cst.ClassDef) -> set[str]:
    return {
        name
        for name, field in annotated_fields(node)
        if _ARRAY_ANNOTATION.search(cst.Module([]).code_for_node(field.annotation.annotation))
    }


def _is_static_kw(arg: cst.Arg) -> bool:
    if arg.keyword is None or not isinstance(arg.value, cst.Name):
        return False
    key, value = arg.keyword.value, arg.value.value
    return (key == "static" and value == "True") or (key == "pytree_node" and value == "False")


def collect(
    module: cst.Module, text: str | None = None, package: Package | None = None
) -> ModuleInfo:
    """Collect the module-wide facts of ``module`` (``text`` is its source, if at hand).

    ``package`` (the module's name, and whether it is a package) resolves relative imports.
    """
    info = ModuleInfo()
    _Collector(info, package).block(module.body, _Where())
    source = info.text = module.code if text is None else text
    info.mutated.update(mutated_names(source))
    info.pytree_classes.update(m.group(1) for m in _REGISTER_CALL.finditer(source))
    if "register_pytree" in source:
        for stmt in module.body:
            _registered_static(stmt, info)
    for m in _META_FIELDS.finditer(source):
        # `register_dataclass(Foo, data_fields=[...], meta_fields=["a"])`: static fields
        names = set(re.findall(r"""["'](\w+)["']""", m.group(2)))
        info.static_fields.setdefault(m.group(1), set()).update(names)
        if m.group(1) in info.array_fields:
            info.array_fields[m.group(1)] -= names
    return info
