"""Find the names a function scope binds, without descending into nested scopes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import libcst as cst

from jitlint.analysis.cst_util import descendants, statement_children, statements


@dataclass
class ScopeNames:
    """List what one scope binds: local names, local function definitions, outer names."""

    locals: set[str] = field(default_factory=set)
    defs: dict[str, cst.FunctionDef] = field(default_factory=dict)
    declared_outer: set[str] = field(default_factory=set)
    # Names bound once, to a lambda (`step = lambda s: lax.scan(body, s, xs)`).
    lambdas: dict[str, cst.Lambda] = field(default_factory=dict)
    # Names bound once, to a call of a name (`ddpm = DDPM(T=100)`).
    constructions: dict[str, cst.Call] = field(default_factory=dict)
    # Names bound once, unpacked from a call (`init, apply = GraphConvolution(16)`): the call
    # and the name's position.
    unpacked: dict[str, tuple[cst.Call, int]] = field(default_factory=dict)
    rebound: set[str] = field(default_factory=set)


def param_names(params: cst.Parameters) -> list[str]:
    """Return every parameter name, positional ones first."""
    names = [p.name.value for p in (*params.posonly_params, *params.params)]
    if type(params.star_arg) is cst.Param:
        names.append(params.star_arg.name.value)
    names.extend(p.name.value for p in params.kwonly_params)
    if params.star_kwarg is not None:
        names.append(params.star_kwarg.name.value)
    return names


def target_names(target: cst.BaseExpression) -> list[str]:
    """Return the names an assignment target binds."""
    if type(target) is cst.Name:
        return [target.value]
    if type(target) is cst.Tuple or type(target) is cst.List:
        return [n for el in target.elements for n in target_names(el.value)]
    if type(target) is cst.StarredElement:
        return target_names(target.value)
    return []


def suite_statements(suite: cst.BaseSuite) -> Sequence[cst.BaseStatement | cst.BaseSmallStatement]:
    """Return the statements of an indented block or a one-line suite."""
    if isinstance(suite, cst.IndentedBlock):
        return suite.body
    if isinstance(suite, cst.SimpleStatementSuite):
        return suite.body
    return ()


def scope_names(
    body: cst.BaseSuite | Sequence[cst.BaseStatement], params: cst.Parameters | None = None
) -> ScopeNames:
    """Collect the bindings of one scope's body (a fresh copy: callers may change it)."""
    names = _collected(body)
    out = ScopeNames(
        set(names.locals),
        dict(names.defs),
        set(names.declared_outer),
        names.lambdas,
        names.constructions,
        names.unpacked,
    )
    if params is not None:
        out.locals.update(param_names(params))
    out.locals -= out.declared_outer
    return out


def unpacked_calls(body: cst.BaseSuite) -> Mapping[str, tuple[cst.Call, int]]:
    """Return the names one scope's body binds once by unpacking a call (`init, apply =
    Dense(16)`), each with the call and its position: read from the cached collection."""
    return _collected(body).unpacked


def constructions(body: cst.BaseSuite) -> Mapping[str, cst.Call]:
    """Return the names one scope's body binds once, to a call of a name (`ddpm =
    DDPM(T)`): read from the cached collection, not copied (do not change it)."""
    return _collected(body).constructions


def _collected(body: cst.BaseSuite | Sequence[cst.BaseStatement]) -> ScopeNames:
    found = _SCOPES.get(id(body))
    if found is None or found[0] is not body:
        body_names = ScopeNames()
        stmts = suite_statements(body) if isinstance(body, cst.BaseSuite) else body
        _collect(stmts, body_names)
        if len(_SCOPES) >= _SCOPES_BOUND:
            _SCOPES.clear()
        # The node is kept with the answer, so its id cannot be reused meanwhile.
        found = _SCOPES[id(body)] = (body, body_names)
    return found[1]


# Asked again for the same body on every analysis of its function: collected once. The
# entries keep their nodes alive (libcst's nodes take no weak references), so each lint
# empties the cache when it ends (``forget_scopes``) and a bound caps it meanwhile.
_SCOPES: dict[int, tuple[object, ScopeNames]] = {}
_SCOPES_BOUND = 50_000


def forget_scopes() -> None:
    """Drop the cached bindings, and the trees they keep alive (at the end of a lint)."""
    _SCOPES.clear()


def return_statements(fn: cst.FunctionDef) -> list[cst.Return]:
    """Return the ``return`` statements of ``fn`` itself (not of the functions it defines)."""
    found: list[cst.Return] = []
    pending: list[cst.CSTNode] = list(suite_statements(fn.body))
    while pending:
        node = pending.pop()
        kind = type(node)
        if kind is cst.FunctionDef or kind is cst.ClassDef or kind is cst.Lambda:
            continue  # their returns are their own
        if type(node) is cst.Return:
            found.append(node)
            continue
        pending.extend(statement_children(node))  # a `return` is a statement: no expressions
    return found


def returned_def(
    fn: cst.FunctionDef, *, every_path: bool = True, index: int | None = None
) -> cst.FunctionDef | None:
    """Return the local function ``fn`` returns on every path (a closure factory), if any;
    with ``every_path=False``, the one local function it returns on some paths (others may
    return something else: `if size is None: return fun`). With ``index``, the function at
    that position of the tuple it returns (`return init_fun, apply_fun`)."""
    defs = scope_names(fn.body, fn.params).defs
    found: set[str] = set()
    for node in return_statements(fn):
        value = node.value
        if index is not None:
            elements = value.elements if isinstance(value, cst.Tuple) else ()
            value = elements[index].value if index < len(elements) else None
        if not isinstance(value, cst.Name) or value.value not in defs:
            if every_path:
                return None
            continue
        found.add(value.value)
    if len(found) != 1:
        return None
    return defs[found.pop()]


def returned_call(fn: cst.FunctionDef) -> cst.Call | None:
    """Return the call ``fn`` returns when it has one ``return`` and it returns a call
    (`return GradientTransformation(init_fn, update_fn)`)."""
    found = return_statements(fn)
    if len(found) != 1 or not isinstance(found[0].value, cst.Call):
        return None
    return found[0].value


def annotated_fields(cls: cst.ClassDef) -> list[tuple[str, cst.AnnAssign]]:
    """Return the annotated fields in ``cls``'s body (`w: jax.Array`), by name, in order."""
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
    return [
        (small.target.value, small)
        for stmt in body
        if type(stmt) is cst.SimpleStatementLine
        for small in stmt.body
        if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name)
    ]


def _bind(names: list[str], out: ScopeNames) -> None:
    for name in names:
        if name in out.locals:
            out.rebound.add(name)  # bound again: no longer one lambda or one construction
            out.lambdas.pop(name, None)
            out.constructions.pop(name, None)
            out.unpacked.pop(name, None)
        out.locals.add(name)


def _collect(stmts: Iterable[cst.CSTNode], out: ScopeNames) -> None:
    for stmt in stmts:
        if type(stmt) is cst.SimpleStatementLine:
            _collect(stmt.body, out)
        elif type(stmt) is cst.Assign:
            for t in stmt.targets:
                _bind(target_names(t.target), out)
            target = stmt.targets[0].target
            if (
                len(stmt.targets) == 1
                and type(target) is cst.Name
                and type(stmt.value) is cst.Lambda
                and target.value not in out.rebound
            ):
                out.lambdas[target.value] = stmt.value
            if (
                len(stmt.targets) == 1
                and type(target) is cst.Name
                and type(stmt.value) is cst.Call
                and type(stmt.value.func) in (cst.Name, cst.Attribute)
                and target.value not in out.rebound
            ):
                out.constructions[target.value] = stmt.value
            if (
                len(stmt.targets) == 1
                and type(target) is cst.Tuple
                and type(stmt.value) is cst.Call
                and type(stmt.value.func) in (cst.Name, cst.Attribute)
            ):
                for k, el in enumerate(target.elements):
                    name = el.value
                    if (
                        type(el) is cst.Element
                        and type(name) is cst.Name
                        and name.value not in out.rebound
                    ):
                        out.unpacked[name.value] = (stmt.value, k)
        elif type(stmt) is cst.AnnAssign or type(stmt) is cst.AugAssign:
            _bind(target_names(stmt.target), out)
        elif type(stmt) is cst.Global or type(stmt) is cst.Nonlocal:
            out.declared_outer.update(n.name.value for n in stmt.names)
        elif type(stmt) is cst.FunctionDef:
            out.locals.add(stmt.name.value)
            out.defs[stmt.name.value] = stmt
        elif type(stmt) is cst.ClassDef:
            out.locals.add(stmt.name.value)
        elif type(stmt) is cst.If:
            _collect(suite_statements(stmt.body), out)
            if stmt.orelse is not None:
                orelse = stmt.orelse
                _collect([orelse] if type(orelse) is cst.If else suite_statements(orelse.body), out)
        elif type(stmt) is cst.For or type(stmt) is cst.While:
            if type(stmt) is cst.For:
                _bind(target_names(stmt.target), out)
            _collect(suite_statements(stmt.body), out)
            if stmt.orelse is not None:
                _collect(suite_statements(stmt.orelse.body), out)
        elif type(stmt) is cst.With:
            for item in stmt.items:
                if item.asname is not None:
                    out.locals.update(target_names(item.asname.name))
            _collect(suite_statements(stmt.body), out)
        elif type(stmt) is cst.Try or type(stmt) is cst.TryStar:
            _collect(suite_statements(stmt.body), out)
            for h in stmt.handlers:
                if h.name is not None and type(h.name.name) is cst.Name:
                    out.locals.add(h.name.name.value)
                _collect(suite_statements(h.body), out)
            for extra in (stmt.orelse, stmt.finalbody):
                if extra is not None:
                    _collect(suite_statements(extra.body), out)
        elif type(stmt) is cst.Match:
            for case in stmt.cases:
                _collect(suite_statements(case.body), out)


def self_attribute_stores(
    cls: cst.ClassDef, only: frozenset[str] | None = None
) -> list[tuple[str, cst.BaseExpression | None]]:
    """List every ``self.attr = value`` of a class's methods (those named in ``only``, when
    given) as (attr, value); an augmented or unpacking store has no single value (None)."""
    stores: list[tuple[str, cst.BaseExpression | None]] = []
    for method in cls.body.body:
        if not isinstance(method, cst.FunctionDef):
            continue
        if only is not None and method.name.value not in only:
            continue
        for node in statements(method.body):
            if not isinstance(node, cst.Assign | cst.AnnAssign | cst.AugAssign):
                continue
            targets = (
                [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            )
            value = None if isinstance(node, cst.AugAssign) else node.value
            for target in targets:
                for element in descendants(target):
                    if (
                        type(element) is cst.Attribute
                        and isinstance(element.value, cst.Name)
                        and element.value.value == "self"
                    ):
                        stores.append((element.attr.value, value if element is target else None))
    return stores
