"""Small helpers shared by the rule modules: call arguments, per-file state, text edits."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, TypeVar, cast

import libcst as cst

from jitlint.analysis.cst_util import (
    NOT_LITERAL,
    literal,
    passed_to,
    statement_children,
    statements,
    walk,
)
from jitlint.analysis.kinds import Kind
from jitlint.analysis.knowledge import AT_OPS as AT_OPS  # re-exported for the rules
from jitlint.analysis.module_info import MUTATING_METHODS
from jitlint.analysis.scopes import suite_statements
from jitlint.model import Mode

if TYPE_CHECKING:
    from jitlint.analysis.context import FunctionTarget, RuleContext

ALL_MODES = frozenset(Mode)
T = TypeVar("T")
# The attribute of the analysis (the rules' context) holding the rules' per-file state: it
# lives and dies with the analysis, and costs one attribute read per question.
_STATE_ATTRIBUTE = "_jitlint_rule_state"
_EMPTY = cst.Module([])


def code(node: cst.CSTNode) -> str:
    """Return the exact source text of ``node``."""
    return _EMPTY.code_for_node(node)


def last_name(func: cst.BaseExpression) -> str:
    """Return the last name a callee is spelled with (`map` of `jax.tree.map`), or ""."""
    if type(func) is cst.Name:
        return func.value
    if type(func) is cst.Attribute:
        return func.attr.value
    return ""


def is_at(expr: cst.BaseExpression) -> bool:
    """Tell whether ``expr`` is ``<something>.at[...]``."""
    return (
        isinstance(expr, cst.Subscript)
        and isinstance(expr.value, cst.Attribute)
        and expr.value.attr.value == "at"
    )


def state(ctx: RuleContext, key: str, factory: Callable[[], T]) -> T:
    """Return per-file state of one rule, created by ``factory`` on first use."""
    slot = state_slot(ctx)
    if key not in slot:
        slot[key] = factory()
    return slot[key]  # type: ignore[return-value]


def state_slot(ctx: RuleContext, fresh: dict[str, object] | None = None) -> dict[str, object]:
    """Return the dict of every rule's per-file state for ``ctx`` (``fresh``: use it)."""
    slot: dict[str, object] | None = (
        None if fresh is not None else getattr(ctx, _STATE_ATTRIBUTE, None)
    )
    if slot is None:
        slot = {} if fresh is None else fresh
        setattr(ctx, _STATE_ATTRIBUTE, slot)
    return slot


def arg(call: cst.Call, position: int | None, keyword: str | None = None) -> cst.Arg | None:
    """Return the argument at ``position`` (counting plain positional ones) or ``keyword``."""
    index = 0
    for a in call.args:
        if a.star == "*":
            position = None  # later positions are unknowable after `*args`
        elif a.keyword is None and not a.star:
            if index == position:
                return a
            index += 1
        elif a.keyword is not None and a.keyword.value == keyword:
            return a
    return None


def has_keyword(call: cst.Call, *names: str) -> bool:
    """Tell whether ``call`` passes any of the keywords ``names`` (or ``**kwargs``)."""
    return any(
        a.star == "**" or (a.keyword is not None and a.keyword.value in names) for a in call.args
    )


def positional(call: cst.Call) -> Iterator[cst.Arg]:
    """Yield the plain positional arguments of ``call`` up to the first starred one."""
    for a in call.args:
        if a.star:
            return
        if a.keyword is None:
            yield a


def transformed_callee(
    call: cst.Call, ctx: RuleContext
) -> tuple[cst.Call, cst.BaseExpression] | None:
    """Return (the transform call, the function given it) for `jax.jit(f)(x)`, a transform
    that traces its arguments applied to ``f`` and called at once with some."""
    func = call.func
    if type(func) is not cst.Call or not func.args or not call.args:
        return None
    t = ctx.transform(func.func)
    if t is None or not t.traces_params or func.args[0].keyword is not None:
        return None
    return func, func.args[0].value


def arguments_of(target: FunctionTarget, call: cst.Call) -> list[tuple[str, cst.BaseExpression]]:
    """Pair what ``call`` passes with the parameters of the function it runs: after a
    method's `self`, and after the leading arguments the function does not receive
    (`model.apply(variables, key)` runs `__call__(self, z_rng)` with `key`)."""
    fn = target.fn
    params = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
    params = params[1 if target.is_method else 0 :]
    if target.skip:
        leading = call.args[: target.skip]
        if len(leading) < target.skip or any(a.star or a.keyword is not None for a in leading):
            return []
        call = call.with_changes(args=call.args[target.skip :])
    passed = passed_to(params, call)
    if passed is not None:
        return passed
    # `sample(key, *nnx.split(model), tokens)`: what comes before the first unpacking is
    # bound for certain, and so is what a keyword names
    out: list[tuple[str, cst.BaseExpression]] = []
    for k, a in enumerate(call.args):
        if a.star:
            break
        if a.keyword is None and k < len(params):
            out.append((params[k], a.value))
    out.extend(
        (a.keyword.value, a.value) for a in call.args if a.keyword is not None and not a.star
    )
    return out


def note_targets(ctx: RuleContext, node: cst.Assign | cst.AugAssign) -> None:
    """Remember the subscripts an assignment writes to (updates, not reads)."""
    targets = assignment_targets(ctx)
    written: list[cst.BaseExpression] = (
        [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
    )
    for t in written:  # `_, self.key = split(self.key)`: each element is written
        if type(t) is cst.Tuple or type(t) is cst.List:
            written.extend(e.value for e in t.elements)
    targets.update(id(t) for t in written)
    # `self.count[...] += 1` writes through the attribute: its object's field, not a read
    targets.update(
        id(t.value) for t in written if type(t) is cst.Subscript and type(t.value) is cst.Attribute
    )


def scope_param(ctx: RuleContext, name: str) -> cst.Param | None:
    """Return the parameter ``name`` of the function being walked, if it has one."""
    scope = ctx.scope
    if not isinstance(scope, cst.FunctionDef | cst.Lambda):
        return None
    p = scope.params
    for param in (*p.posonly_params, *p.params, *p.kwonly_params):
        if param.name.value == name:
            return param
    return None


class NotesAssignmentTargets:
    """Mixin for subscript rules: note assignment targets, which are writes, not reads.

    A rule using it checks ``id(node) in assignment_targets(ctx)`` in its subscript hook.
    """

    def visit_Assign(self, node: cst.Assign, ctx: RuleContext) -> None:
        """Remember the targets of `x[...] = v`."""
        note_targets(ctx, node)

    def visit_AugAssign(self, node: cst.AugAssign, ctx: RuleContext) -> None:
        """Remember the target of `x[...] += v`."""
        note_targets(ctx, node)


def assignment_targets(ctx: RuleContext) -> set[int]:
    """Return the ids of the assignment targets noted so far in this file."""
    found: set[int] = state(ctx, "assignment-targets", set)
    return found


def assigned_values(ctx: RuleContext) -> dict[str, list[cst.BaseExpression]]:
    """Return, per name bound in the current scope, every value assigned to it.

    Augmented assignments keep a name's kind and are skipped. Bindings this does not follow
    (loop targets, unpacking, ``as`` names, nested definitions) appear as the value `None`,
    so that callers never mistake a partly known name for a known one.
    """
    scope = ctx.scope
    cache: dict[int, dict[str, list[cst.BaseExpression]]] = state(ctx, "assigned-values", dict)
    found = cache.get(id(scope))
    if found is None:
        found = cache[id(scope)] = _collect_assignments(scope)
    return found


def module_assignments(ctx: RuleContext) -> dict[str, list[cst.BaseExpression]]:
    """Return, per name bound at module level, every value assigned to it (once per file)."""
    found: dict[str, list[cst.BaseExpression]] = state(
        ctx, "module-assignments", lambda: scope_assignments(ctx.module)
    )
    return found


def visible_values(name: str, ctx: RuleContext) -> list[cst.BaseExpression] | None:
    """Return the values the scope walked binds ``name`` to, or if it binds none, those
    the module binds it to at its top level (None when neither does)."""
    return assigned_values(ctx).get(name) or module_assignments(ctx).get(name)


def scope_assignments(scope: cst.CSTNode) -> dict[str, list[cst.BaseExpression]]:
    """Return, per name bound in ``scope`` (a function, class or module), every value
    assigned to it, as `assigned_values` does for the scope being walked."""
    return _collect_assignments(scope)


def _collect_assignments(scope: cst.CSTNode) -> dict[str, list[cst.BaseExpression]]:
    out: dict[str, list[cst.BaseExpression]] = {}
    if isinstance(scope, cst.FunctionDef):
        _collect(suite_statements(scope.body), out)
    elif isinstance(scope, cst.Module):
        _collect(scope.body, out)
    elif isinstance(scope, cst.ClassDef):
        _collect(suite_statements(scope.body), out)
    return out


def _collect(
    stmts: Sequence[cst.BaseStatement | cst.BaseSmallStatement],
    out: dict[str, list[cst.BaseExpression]],
) -> None:
    """Record the bindings of statements, descending into blocks but not nested scopes."""
    for st in stmts:
        if type(st) is cst.SimpleStatementLine:
            _collect(st.body, out)
        elif type(st) is cst.Assign:
            for t in st.targets:
                if type(t.target) is cst.Name:
                    out.setdefault(t.target.value, []).append(st.value)
                elif _pairs(t.target, st.value):
                    # `a, b = A(0), A(1)`: each name gets its own element
                    assert type(t.target) is cst.Tuple or type(t.target) is cst.List
                    assert type(st.value) is cst.Tuple or type(st.value) is cst.List
                    for name, value in zip(t.target.elements, st.value.elements, strict=True):
                        if type(name.value) is cst.Name:
                            out.setdefault(name.value.value, []).append(value.value)
                        else:
                            _poison(name.value, out)
                else:
                    _poison(t.target, out)
        elif type(st) is cst.AnnAssign:
            if type(st.target) is cst.Name and st.value is not None:
                out.setdefault(st.target.value, []).append(st.value)
        elif type(st) is cst.FunctionDef or type(st) is cst.ClassDef:
            _poison(st.name, out)
        elif isinstance(st, cst.BaseCompoundStatement):
            if type(st) is cst.For:
                _poison(st.target, out)
            elif type(st) is cst.With:
                for item in st.items:
                    if item.asname is not None:
                        _poison(item.asname.name, out)
            blocks: list[cst.BaseSuite] = [] if type(st) is cst.Match else [st.body]
            orelse = getattr(st, "orelse", None)
            while type(orelse) is cst.If:  # elif chains
                blocks.append(orelse.body)
                orelse = orelse.orelse
            if type(orelse) is cst.Else:
                blocks.append(orelse.body)
            if type(st) is cst.Try or type(st) is cst.TryStar:
                for h in st.handlers:
                    if h.name is not None:
                        _poison(h.name.name, out)
                    blocks.append(h.body)
                if st.finalbody is not None:
                    blocks.append(st.finalbody.body)
            if type(st) is cst.Match:
                blocks.extend(c.body for c in st.cases)
            for block in blocks:
                _collect(suite_statements(block), out)


def _pairs(target: cst.BaseExpression, value: cst.BaseExpression) -> bool:
    """Tell whether a tuple target takes a tuple display element by element."""
    return (
        isinstance(target, cst.Tuple | cst.List)
        and isinstance(value, cst.Tuple | cst.List)
        and len(target.elements) == len(value.elements)
        and not any(isinstance(e, cst.StarredElement) for e in (*target.elements, *value.elements))
    )


def _poison(target: cst.BaseExpression, out: dict[str, list[cst.BaseExpression]]) -> None:
    """Mark names bound in a way we do not follow as of unknown kind."""
    if type(target) is cst.Name:
        out.setdefault(target.value, []).append(cst.Name("None"))
    elif isinstance(target, cst.Tuple | cst.List):
        for el in target.elements:
            _poison(el.value, out)


def traced_index(
    node: cst.Subscript, ctx: RuleContext, container: Kind
) -> cst.BaseExpression | None:
    """Return the first plain (non-slice) traced index of ``node`` if it indexes ``container``."""
    if ctx.kind_of(node.value) is not container:
        return None
    for element in node.slice:
        index = element.slice
        if isinstance(index, cst.Index) and ctx.is_traced(index.value):
            return index.value
    return None


def trace_guards(ctx: RuleContext) -> frozenset[str]:
    """Return the flags the function walked asserts on and then sets to a literal
    (`assert not self.traced` ... `self.traced = True`): a deliberate trace-time guard that
    fails when the function is traced twice. Its read and its write are meant for the trace.
    """
    scope = ctx.scope
    found: dict[int, frozenset[str]] = state(ctx, "trace-guards", dict)
    if id(scope) not in found:
        asserted: set[str] = set()
        guards: set[str] = set()
        for node in statements(scope):
            if type(node) is cst.Assert:
                test = node.test
                if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
                    asserted.add(code(test.expression))
            elif type(node) is cst.Assign and len(node.targets) == 1:
                target = code(node.targets[0].target)
                value = node.value
                constant = type(value) is cst.Integer or (
                    type(value) is cst.Name and value.value in {"True", "False", "None"}
                )
                if constant and target in asserted:
                    guards.add(target)
        found[id(scope)] = frozenset(guards)
    return found[id(scope)]


def self_assignments(cls: cst.ClassDef, ctx: RuleContext) -> dict[str, list[cst.BaseExpression]]:
    """Return the values assigned to each `self.<attr>` in the methods of ``cls``."""
    found: dict[int, dict[str, list[cst.BaseExpression]]] = state(ctx, "self-assignments", dict)
    if id(cls) not in found:
        found[id(cls)] = _self_assignments(cls)
    return found[id(cls)]


def _self_assignments(cls: cst.ClassDef) -> dict[str, list[cst.BaseExpression]]:
    """Collect the values assigned to each `self.<attr>` in a class's methods."""
    out: dict[str, list[cst.BaseExpression]] = {}

    class Collector(cst.CSTVisitor):
        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            return node is cls

        def visit_Assign(self, node: cst.Assign) -> None:
            for t in node.targets:
                self._target(t.target, node.value)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            if node.value is not None:
                self._target(node.target, node.value)

        def _target(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
            if isinstance(target, cst.Tuple | cst.List):
                for el in target.elements:
                    self._target(el.value, cst.Name("None"))  # unpacked: not followed
            elif (
                isinstance(target, cst.Attribute)
                and isinstance(target.value, cst.Name)
                and target.value.value == "self"
            ):
                out.setdefault(target.attr.value, []).append(value)

    walk(cls, Collector())  # read-only walk: cls.visit() rebuilds every node
    return out


def lazy_init_targets(scope: cst.CSTNode) -> set[int]:
    """Return the ids of the `self.x = ...` targets under `if self.x is None:` in ``scope``.

    Lazy initialisation runs once: in traced code, at trace time, keeping a Python value that
    later calls read. It is neither a change of state after the trace nor a leak, unless the
    value stored is a tracer.
    """
    out: set[int] = set()
    # `if X is not None: return X` first: what is stored in X after it is the memo.
    memo: set[str] = set()
    for node in statements(scope):
        if type(node) is cst.If:
            out |= lazy_targets(node)
            name = _returned_when_set(node)
            if name is not None:
                memo.add(name)
        elif memo and isinstance(node, cst.Assign | cst.AnnAssign):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else []
            if isinstance(node, cst.AnnAssign):
                targets.append(node.target)
            out |= {id(t) for t in targets if isinstance(t, cst.Name) and t.value in memo}
    return out


def _returned_when_set(node: cst.If) -> str | None:
    """Return ``X`` for `if X is not None: return ...` (no `else`): the memo test of a
    function that computes X once and keeps it."""
    test = node.test
    if (
        node.orelse is not None
        or not isinstance(test, cst.Comparison)
        or len(test.comparisons) != 1
        or not isinstance(test.comparisons[0].operator, cst.IsNot)
        or not isinstance(test.left, cst.Name)
    ):
        return None
    comparator = test.comparisons[0].comparator
    if not isinstance(comparator, cst.Name) or comparator.value != "None":
        return None
    body = node.body.body
    last = body[-1] if body else None
    if isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], cst.Return):
        return test.left.value
    return None


def lazy_targets(node: cst.If) -> set[int]:
    """Return the ids of the `self.x = ...` targets that ``node`` guards by `self.x is None`,
    and of the `x = ...` targets it guards by `x is None` or `x is SENTINEL` (`nonlocal x`:
    a value recorded at the first trace); none when its test is another (walkers meet the
    `if` before what it guards)."""
    name = _name_tested(node.test)
    if name is not None:
        return {
            id(t.target)
            for inner in statements(node.body)
            if isinstance(inner, cst.Assign)
            for t in inner.targets
            if isinstance(t.target, cst.Name) and t.target.value == name
        }
    attr = _none_tested(node.test)
    if attr is None:
        return set()
    out: set[int] = set()
    for inner in statements(node.body):
        targets: list[cst.BaseExpression] = []
        if isinstance(inner, cst.Assign):
            targets = [t.target for t in inner.targets]
        elif isinstance(inner, cst.AnnAssign):
            targets = [inner.target]
        for t in targets:
            if (
                isinstance(t, cst.Attribute)
                and isinstance(t.value, cst.Name)
                and t.value.value == "self"
                and t.attr.value == attr
            ):
                out.add(id(t))
    return out


def _is_test(test: cst.BaseExpression) -> tuple[cst.BaseExpression, str] | None:
    """Return (x, NAME) for a test `x is NAME` (`x is None`, `x is SENTINEL`)."""
    if (
        isinstance(test, cst.Comparison)
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, cst.Is)
        and isinstance(test.comparisons[0].comparator, cst.Name)
    ):
        return test.left, test.comparisons[0].comparator.value
    return None


def _name_tested(test: cst.BaseExpression) -> str | None:
    """Return ``x`` for a test `x is None` or `x is SENTINEL` of a plain name."""
    found = _is_test(test)
    if found is None or not isinstance(found[0], cst.Name):
        return None
    return found[0].value


def _none_tested(test: cst.BaseExpression) -> str | None:
    """Return ``x`` for a test `self.x is None`."""
    found = _is_test(test)
    if found is None or found[1] != "None":
        return None
    left = found[0]
    if isinstance(left, cst.Attribute) and isinstance(left.value, cst.Name):
        return left.attr.value if left.value.value == "self" else None
    return None


DATACLASS = frozenset({"dataclasses.dataclass", "dataclass"})


def dataclass_options(cls: cst.ClassDef, ctx: RuleContext) -> dict[str, str] | None:
    """Return the literal options of ``cls``'s `@dataclass` decorator, or None if it has none."""
    for dec in cls.decorators:
        expr = dec.decorator
        func = expr.func if isinstance(expr, cst.Call) else expr
        if ctx.qualname(func) not in DATACLASS:
            continue
        args = expr.args if isinstance(expr, cst.Call) else ()
        return {
            a.keyword.value: a.value.value
            for a in args
            if a.keyword is not None and isinstance(a.value, cst.Name)
        }
    return None


def jitted_by(func: cst.BaseExpression, ctx: RuleContext, transform: str) -> bool:
    """Tell whether the jitted callable ``func`` was made by ``transform`` (a qualified name,
    `flax.nnx.jit`): a decorator of the function it names (`@partial(nnx.jit, ...)` too), a
    name bound to `transform(f, ...)`, or a call of it on the spot."""
    made: list[cst.BaseExpression] = []
    if type(func) is cst.Name:
        bound = ctx.bound_jit_call(func.value)
        if bound is not None:
            made.append(bound.func)
    if type(func) is cst.Call:
        made.append(func.func)
    resolved = None if made else ctx.resolve_function(func)
    if resolved is not None and isinstance(resolved.fn, cst.FunctionDef):
        made.extend(d.decorator for d in resolved.fn.decorators)
    for expr in made:
        t = ctx.transform(expr)
        if t is not None and t.qualname == transform:
            return True
    return False


def equinox_module(cls: cst.ClassDef, ctx: RuleContext) -> bool:
    """Tell whether ``cls`` subclasses `eqx.Module`: a frozen dataclass hashing its fields."""
    return any(ctx.qualname(base.value) == "equinox.Module" for base in cls.bases)


# Methods that run once per object, as it is made.
SETUP_METHODS = frozenset({"__init__", "__post_init__", "setup"})


def _is_self_name(node: cst.BaseExpression) -> bool:
    return type(node) is cst.Name and node.value == "self"


def changed_attributes(stmt: cst.CSTNode) -> list[cst.Attribute]:
    """Return the attributes ``stmt`` changes: assigned (`o.a = v`, `o.a += v`), written
    through (`o.a[k] = v`, `del o.a[k]`) or mutated by a container method whose result is
    unused (`o.a.append(v)`)."""
    targets: list[cst.BaseExpression] = []
    if type(stmt) is cst.Assign:
        targets = [t.target for t in stmt.targets]
    elif type(stmt) is cst.AugAssign or type(stmt) is cst.AnnAssign or type(stmt) is cst.Del:
        targets = [stmt.target]
    elif (
        type(stmt) is cst.Expr
        and isinstance(stmt.value, cst.Call)
        and isinstance(stmt.value.func, cst.Attribute)
        and stmt.value.func.attr.value in MUTATING_METHODS
    ):
        targets = [stmt.value.func.value]
    out: list[cst.Attribute] = []
    while targets:
        t = targets.pop(0)
        if isinstance(t, cst.Tuple | cst.List) and not isinstance(stmt, cst.Expr):
            # `_, self.key = jax.random.split(self.key)`: each element is assigned
            targets.extend(e.value for e in t.elements)
            continue
        if isinstance(t, cst.Subscript) and not isinstance(stmt, cst.Expr):
            t = t.value
        if isinstance(t, cst.Attribute):
            out.append(t)
    return out


def writer_methods(cls: cst.ClassDef, ctx: RuleContext) -> dict[str, set[str]]:
    """Map each attribute a class's methods other than its constructors change on `self` to
    the names of those methods."""
    found: dict[int, dict[str, set[str]]] = state(ctx, "writer-methods", dict)
    if id(cls) not in found:
        out: dict[str, set[str]] = {}
        for method in suite_statements(cls.body):
            if not isinstance(method, cst.FunctionDef) or method.name.value in SETUP_METHODS:
                continue
            for n in statements(method):
                for t in changed_attributes(n):
                    if _is_self_name(t.value):
                        out.setdefault(t.attr.value, set()).add(method.name.value)
        found[id(cls)] = out
    return found[id(cls)]


_LOOPS = (cst.For, cst.While)


def writes_elsewhere(
    cls: cst.ClassDef, ctx: RuleContext, *, in_functions: bool = False
) -> frozenset[str]:
    """Return the attributes the module changes outside ``cls``'s own methods (on any
    object) and outside constructors; with ``in_functions``, only those changed inside a
    function or a loop (not by module-level code that runs once: `g.key = key(0)`)."""
    found: dict[int, tuple[frozenset[str], frozenset[str]]] = state(ctx, "writes-elsewhere", dict)
    if id(cls) not in found:
        writes: set[str] = set()
        in_defs: set[str] = set()

        def collect(node: cst.CSTNode, in_setup: bool, in_def: bool) -> None:
            for child in statement_children(node):
                if child is cls:
                    continue
                if isinstance(child, cst.FunctionDef):
                    collect(child, child.name.value in SETUP_METHODS, True)
                    continue
                for t in changed_attributes(child):
                    if not (in_setup and _is_self_name(t.value)):
                        writes.add(t.attr.value)
                        if in_def:
                            in_defs.add(t.attr.value)
                collect(child, in_setup, in_def or type(child) in _LOOPS)

        collect(ctx.module, False, False)
        found[id(cls)] = (frozenset(writes), frozenset(in_defs))
    return found[id(cls)][1 if in_functions else 0]


def constant_args(call: cst.Call) -> bool:
    """Tell whether every argument of ``call`` is a Python literal (`PRNGKey(0)`,
    `np.random.seed(17)`)."""
    return all(literal(a.value, NOT_LITERAL) is not NOT_LITERAL for a in call.args)


# The values `x OP c` admits, as an interval (low, low included, high, high included).
_Interval = tuple[float, bool, float, bool]
_INF = float("inf")


def _admitted(op: cst.BaseCompOp, value: float) -> _Interval | None:
    kind = type(op)
    if kind is cst.Equal:
        return (value, True, value, True)
    if kind is cst.LessThan or kind is cst.LessThanEqual:
        return (-_INF, False, value, kind is cst.LessThanEqual)
    if kind is cst.GreaterThan or kind is cst.GreaterThanEqual:
        return (value, kind is cst.GreaterThanEqual, _INF, False)
    return None


_FLIPPED: dict[type, type] = {
    cst.LessThan: cst.GreaterThan,
    cst.LessThanEqual: cst.GreaterThanEqual,
    cst.GreaterThan: cst.LessThan,
    cst.GreaterThanEqual: cst.LessThanEqual,
}


def _condition(test: cst.BaseExpression) -> tuple[str, str, object] | None:
    """Return (subject, kind, value) for a test on one subject against a constant:
    `x == 1`, `1 < x` (flipped to `x > 1`), `x is None`, `mode == "eval"`, `x`, `not x`."""
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        inner = _condition(test.expression)
        return None if inner is None or inner[1] != "true" else (inner[0], "false", None)
    if type(test) is cst.Name or type(test) is cst.Attribute:
        return (code(test), "true", None)
    if type(test) is not cst.Comparison or len(test.comparisons) != 1:
        return None
    [target] = test.comparisons
    left, op, right = test.left, target.operator, target.comparator
    value = literal(right, NOT_LITERAL)
    if value is NOT_LITERAL:
        value = literal(left, NOT_LITERAL)
        if value is NOT_LITERAL or type(op) not in (*_FLIPPED, cst.Equal, cst.NotEqual):
            return None
        left = right
        op = _FLIPPED.get(type(op), type(op))()
    subject = code(left)
    if type(op) is cst.Is or type(op) is cst.IsNot:
        return (subject, "is" if type(op) is cst.Is else "is not", value) if value is None else None
    if type(op) is cst.NotEqual:
        return (subject, "!=", value)
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    if isinstance(value, str):
        return (subject, "==", value) if type(op) is cst.Equal else None
    admitted = _admitted(op, float(value))
    return None if admitted is None else (subject, "in", admitted)


def exclusive_tests(a: cst.BaseExpression, b: cst.BaseExpression) -> bool:
    """Tell whether ``a`` and ``b`` cannot both hold of one value: `n == 1` and `n > 1`,
    `mode == "train"` and `mode == "eval"`, `x is None` and `x is not None`, `x` and `not
    x`. (The subject must keep its value between the two tests: the caller's to check.)"""
    ca, cb = _condition(a), _condition(b)
    if ca is None or cb is None or ca[0] != cb[0]:
        return False
    kinds = {ca[1], cb[1]}
    if kinds == {"true", "false"} or kinds == {"is", "is not"}:
        return True
    if "!=" in kinds:
        other = cb if ca[1] == "!=" else ca
        value = ca[2] if ca[1] == "!=" else cb[2]
        if other[1] == "==":
            return other[2] == value
        if other[1] == "in" and isinstance(value, int | float) and not isinstance(value, bool):
            return other[2] == (value, True, value, True)
        return False
    if kinds == {"=="}:
        return ca[2] != cb[2]
    if kinds == {"in"}:
        lo_a, lo_in_a, hi_a, hi_in_a = cast(_Interval, ca[2])
        lo_b, lo_in_b, hi_b, hi_in_b = cast(_Interval, cb[2])
        return (hi_a < lo_b or (hi_a == lo_b and not (hi_in_a and lo_in_b))) or (
            hi_b < lo_a or (hi_b == lo_a and not (hi_in_b and lo_in_a))
        )
    return False
