"""Re-analyse only the top-level statements an edit can affect; replay the findings of the rest.

The analysis walks the module's top-level statements in order. Between two versions of a
document in a ``Session``, unchanged statements keep their node objects, so the raw findings
of a statement's walk stay valid as long as everything that walk could read is the same.
What a walk can read, and how this module bounds it:

- **Other statements, by name.** Resolution (helpers, classes, instances, partials, module
  bindings in the module frame) always starts from an identifier in the code being walked.
  A statement *depends on* each statement that mentions one of its identifiers in its
  module-scope code (where module-level bindings happen). Statements that hold code another
  walk may analyse (a ``def`` or a ``lambda``), or depend on one, are *linked* to it: linked
  statements form a *group*, and walks share analysis state (summaries, findings, marks)
  only within a group. A group is reused only when it has exactly the same statement
  objects, in the same order, as a group of the previous version.
- **Module-wide facts.** ``ModuleInfo`` (imports, assignments, mutations, ...), the facts
  rules compute from the whole module (functions called in loops, attributes written, the
  module-level constants, imports and bindings, donations) and the order and text of the
  module-level code all go into a position-independent *fingerprint*: the text of every
  top-level statement with the bodies of functions and methods left out, plus the facts
  that do look into bodies. When it changes, every group is walked again.
- Statements in no group (imports, constants that name no function) are always walked: they
  are cheap, and they keep the module frame exactly as a full walk leaves it.

Replaying a walk re-inserts its findings in order (first report of a node wins, as in a full
walk), after checking that no other walk reported the same node differently; any mismatch,
and the analysis bound, fall back to a walk of everything. Tests compare the result with a
full ``lint_source`` over random edit sequences of real files.
"""

from __future__ import annotations

import dataclasses
import itertools
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

import libcst as cst

from jitlint.analysis.analyzer import MAX_ANALYSES, Analysis, RawFinding
from jitlint.analysis.context import Reporter, RuleContext
from jitlint.analysis.cst_util import children
from jitlint.analysis.module_info import ModuleInfo
from jitlint.analysis.scopes import suite_statements
from jitlint.fixes.model import NodeFix
from jitlint.model import Fix
from jitlint.rules import helpers
from jitlint.rules.jit201_stale_global import attribute_write_sites, writes_outside
from jitlint.rules.jit301_jit_in_loop import _called_in_loops

_EMPTY = cst.Module([])
_Key = tuple[str, int]  # a finding's key in Analysis.findings: (code, id(node))


def _code(node: cst.CSTNode) -> str:
    return _EMPTY.code_for_node(node)


@dataclass(frozen=True)
class _Facts:
    """What the grouping needs to know about one top-level statement."""

    names: frozenset[str]  # every identifier in it
    binds: frozenset[str]  # identifiers in its module-scope code: what it may bind there
    has_code: bool  # holds a def or a lambda, which another statement's walk may analyse
    skeleton: object  # its module-level text, function bodies left out
    attribute_writes: frozenset[tuple[str, str]]  # JIT201's module-wide fact, this part


def _scan(node: cst.CSTNode, module_scope: bool, names: set[str], binds: set[str]) -> bool:
    """Collect identifiers, and the names module-scope code binds; return whether ``node``
    holds a def or a lambda."""
    if isinstance(node, cst.Name):
        names.add(node.value)
        return False
    if isinstance(node, cst.FunctionDef | cst.ClassDef):
        names.add(node.name.value)
        if module_scope:
            binds.add(node.name.value)
        heads: list[cst.CSTNode] = [*node.decorators]
        if isinstance(node, cst.FunctionDef):
            heads.extend(children(node.params))  # defaults and annotations run here
            if node.returns is not None:
                heads.append(node.returns)
        else:
            heads.extend((*node.bases, *node.keywords))
        for part in heads:
            _scan(part, module_scope, names, binds)
        in_body = _scan(node.body, False, names, binds)
        return in_body or isinstance(node, cst.FunctionDef)
    if isinstance(node, cst.Param):
        names.add(node.name.value)  # a binding of the function's scope, not this one
        for value in (node.annotation, node.default):
            if value is not None:
                _scan(value, module_scope, names, binds)
        return False
    if isinstance(node, cst.Lambda):
        _scan(node.params, False, names, binds)
        _scan(node.body, False, names, binds)
        return True
    if module_scope:
        _stores(node, binds)
    found = False
    for child in children(node):
        found = _scan(child, module_scope, names, binds) or found
    return found


def _stores(node: cst.CSTNode, binds: set[str]) -> None:
    """Add the names ``node`` binds (or writes into) in the scope it runs in."""
    targets: list[cst.BaseExpression] = []
    if isinstance(node, cst.Assign):
        targets = [t.target for t in node.targets]
    elif isinstance(
        node, cst.AnnAssign | cst.AugAssign | cst.For | cst.CompFor | cst.NamedExpr | cst.Del
    ):
        targets = [node.target]
    elif isinstance(node, cst.AsName):
        targets = [node.name]
    elif isinstance(node, cst.Import | cst.ImportFrom) and not isinstance(
        node.names, cst.ImportStar
    ):
        for alias in node.names:
            name: cst.BaseExpression = alias.name
            if alias.asname is not None:
                name = alias.asname.name
            elif isinstance(node, cst.Import):
                while isinstance(name, cst.Attribute):
                    name = name.value  # `import a.b` binds `a`
            targets.append(name)
    elif isinstance(node, cst.Global | cst.Nonlocal):
        binds.update(n.name.value for n in node.names)
    elif isinstance(node, cst.MatchAs | cst.MatchStar) and node.name is not None:
        targets = [node.name]
    while targets:
        t = targets.pop()
        if isinstance(t, cst.Name):
            binds.add(t.value)
        elif isinstance(t, cst.Tuple | cst.List):
            targets.extend(e.value for e in t.elements)
        elif isinstance(t, cst.StarredElement):
            targets.append(t.value)
        elif isinstance(t, cst.Attribute | cst.Subscript):
            targets.append(t.value)  # a write into the object the root name holds


def _def_skeleton(fn: cst.FunctionDef) -> object:
    return ("def", fn.name.value, tuple(_code(d) for d in fn.decorators))


def _skeleton(stmt: cst.BaseStatement) -> object:
    """Return ``stmt``'s module-level text with the bodies of functions and methods left out."""
    if isinstance(stmt, cst.FunctionDef):
        return _def_skeleton(stmt)
    if isinstance(stmt, cst.ClassDef):
        header = stmt.with_changes(body=cst.IndentedBlock([cst.SimpleStatementLine([cst.Pass()])]))
        body = tuple(
            _def_skeleton(s) if isinstance(s, cst.FunctionDef) else _code(s)
            for s in suite_statements(stmt.body)
        )
        return ("class", _code(header), body)
    return _code(stmt)


def _facts(stmt: cst.BaseStatement) -> _Facts:
    names: set[str] = set()
    binds: set[str] = set()
    has_code = _scan(stmt, True, names, binds)
    alone = cst.Module([stmt])  # type: ignore[list-item]
    return _Facts(
        frozenset(names),
        frozenset(binds),
        has_code,
        _skeleton(stmt),
        attribute_write_sites(alone),
    )


def _canon(value: object) -> object:
    """Return a position-independent, comparable form of a ModuleInfo field."""
    if isinstance(value, cst.FunctionDef | cst.ClassDef):
        return type(value).__name__  # found by name; its statement is grouped with its users
    if isinstance(value, cst.CSTNode):
        return _code(value)
    if isinstance(value, dict):
        return tuple(sorted((k, _canon(v)) for k, v in value.items()))
    if isinstance(value, set | frozenset):
        return tuple(sorted(_canon(v) for v in value))  # type: ignore[type-var]
    if isinstance(value, list | tuple):
        return tuple(_canon(v) for v in value)
    return value


def _info_digest(info: ModuleInfo) -> object:
    """Return ``info`` without positions: branch paths number their statements in order."""
    numbers: dict[int, int] = {}

    def path(p: tuple[tuple[int, str], ...]) -> object:
        return tuple((numbers.setdefault(i, len(numbers)), label) for i, label in p)

    out: list[object] = []
    for f in dataclasses.fields(info):
        value = getattr(info, f.name)
        if f.name in {"text", "called"}:
            continue  # read only to skip walks whose answers the fingerprint holds
        if f.name == "assigned":
            out.append(tuple((k, tuple(path(p) for p in value[k])) for k in sorted(value)))
        elif f.name == "_def_paths":
            out.append(tuple((k, path(value[k])) for k in sorted(value)))
        else:
            out.append((f.name, _canon(value)))
    return tuple(out)


@dataclass
class _Walk:
    """What walking one top-level statement did to the shared analysis state."""

    statement: cst.BaseStatement  # kept alive: ids of its nodes are keys
    inserted: list[tuple[_Key, RawFinding]]  # findings it added, in order
    present: list[_Key]  # findings it reported that an earlier walk had added
    analyses: int  # function analyses it counted towards the bound
    coupled: bool  # a rule kept per-file state while at module scope (shared by every walk)


class _Stale(Exception):
    """A replayed walk does not fit the state of this walk: analyse everything."""


class _Replaying(Analysis):
    """Walk the module, replaying the recorded walks of statements in reusable groups."""

    def __init__(self, *args: Any, plan: dict[int, _Walk], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.plan = plan
        self.walks: list[_Walk] = []
        self.walked = 0
        self._mine: set[_Key] = set()
        self._present: list[_Key] = []
        self.coupled = False
        helpers.state_slot(cast(RuleContext, self), _Slot(self))  # rules see the analysis

    def walk_module(self, body: Sequence[cst.BaseStatement]) -> None:
        findings = self.findings
        for stmt in body:
            walk = self.plan.get(id(stmt))
            if walk is not None:
                if any(k not in findings for k in walk.present):
                    raise _Stale
                inserted = []
                for key, raw in walk.inserted:
                    if key in findings:
                        raise _Stale
                    if raw.trace:
                        # The trace path names the analysis of the version it was found in:
                        # point it at this one, or every version would keep the one before.
                        raw = replace(raw, trace=tuple((self, *ref[1:]) for ref in raw.trace))
                    findings[key] = raw
                    inserted.append((key, raw))
                self._analyses += walk.analyses
                self.walks.append(replace(walk, inserted=inserted))
                continue
            count, analyses = len(findings), self._analyses
            self._mine, self._present, self.coupled = set(), [], False
            self.walk_block([stmt])
            self.walked += 1
            inserted = list(itertools.islice(findings.items(), count, None))
            analyses = self._analyses - analyses
            self.walks.append(_Walk(stmt, inserted, self._present, analyses, self.coupled))

    def report(
        self, rule: Reporter, node: cst.CSTNode, message: str, fix: Fix | NodeFix | None = None
    ) -> None:
        key = (rule.code, id(node))
        if key not in self.findings:
            self._mine.add(key)
        elif key not in self._mine:
            self._present.append(key)
        super().report(rule, node, message, fix)


# Rule state (``rules.helpers.state``) that is a pure function of what the fingerprint holds
# (the module-level text, or a fact of its own), or a cache keyed by the node it describes.
# Other state (marks: names seen, scopes whose flow ran, targets noted) kept at module scope
# is shared by the walks of every top-level statement.
_SAFE_STATE = frozenset(
    {
        "JIT201.attribute-writes",  # attribute_writes
        "JIT301.called-in-loops",  # called_in_loops
        "JIT301.called-in-counting-loops",  # likewise, counting loops only
        "JIT301.returned",  # likewise: the functions the module's functions return
        "JIT301.local-defs",  # per scope
        # per loop, noted by the walk of the loop around it, in the same statement
        "JIT303.outer-trips",
        "JIT301.sweeps",  # likewise: the calls loops hold, by name
        # A call graph by simple names: a caller mentions its callee's name, so the two
        # are linked, walked again together when either changes.
        "JIT301.eager",
        "JIT501.loop-carries",  # a loop call mentions its body's name
        # The module-level calls of a class's methods mention the object or the class.
        "JIT201.module-order",
        "JIT303.constants",  # module-level assignments (skeleton)
        "JIT302.static-methods",  # methods' decorators (skeleton)
        "JIT302.indexed",  # per function, like the helpers: the caller names it
        "JIT301.kept",  # per node, noted by its own statement's walk
        "JIT201.rewritten",  # likewise: reads in the statement that writes the field
        # per function: every statement naming the cache mentions it, linked by the name
        "JIT201.memo-caches",
        "JIT504.donors",  # decorators, module-level assignments (skeleton)
        "JIT504.module",  # module-level assignments (skeleton)
        "JIT502.module-keys",  # module-level assignments (skeleton)
        "assigned-values",  # per scope; the module's: its module-level text (skeleton)
        "JIT201.attrs",  # per class
        "writer-methods",  # per class
        # per class and its bases (linked by name); other writes are in attribute_writes
        "JIT201.all-writers",
        "JIT201.run-once",  # per class and its bases (linked by name)
        # where a global is changed in place: each such statement mentions the global,
        # which the function reads, so both are linked to it and walked again with it
        "JIT201.module-mutations",
        "JIT303.tracing-calls",  # likewise: `jax.jit(f)(x)` mentions `f`
        "module-assignments",  # module-level assignments (skeleton)
        # what module-level statements name and bind, in source order (the skeletons'
        # order, or within one statement, walked again when it changes): a statement using
        # the function mentions its name, one rebinding the global mentions the global,
        # which the function reads, so both are linked to it and walked again with it
        "JIT201.module-uses",
        "writes-elsewhere",  # per class, and attribute_writes
        "JIT204.lazy",  # per scope
        "JIT502.ignored-keys",  # per function
        "JIT301.range-targets",  # per scope
        "self-assignments",  # per class
        "JIT501.containers",  # per function
        "JIT502.helpers",  # per function
        "JIT502.overwritten",  # per function
        "JIT502.returns",  # per function, like the helpers: the caller names it
        "JIT502.spenders",  # filled with JIT502.returns, per function
        "JIT502.models",  # per function: its own calls of numpyro.sample
        "JIT502.self-writers",  # per method; the methods it calls are named in it
        "JIT202.lazy-inits",  # per function
        "JIT202.restored",  # per function
        "trace-guards",  # per function
        "JIT503.blocks",  # per function
        "JIT303.loop-variables",  # per loop, like JIT303.outer-trips
        "JIT303.augmented",  # per function
        "JIT502.stored-attributes",  # per class and its bases (linked by name)
        # per method, read by the methods of its class (the same statement) that call it
        "JIT502.leaves-used",
        "JIT502.made-keys",  # per scope
        "JIT502.local-functions",  # per function
        "JIT502.derived-only",  # per function, like the helpers: the caller names it
    }
)


class _Slot(dict[str, object]):
    """The rules' per-file state, noting the use of shared state at module scope: a group
    whose walk used it is walked again."""

    def __init__(self, analysis: Analysis) -> None:
        super().__init__()
        # A weak reference: the analysis holds the slot, and a strong one back would make a
        # cycle that keeps every version's analysis alive until the cycle collector runs.
        self.analysis = weakref.ref(analysis)

    def __contains__(self, key: object) -> bool:
        analysis = self.analysis()
        if (
            analysis is not None
            and key not in _SAFE_STATE
            and isinstance(analysis.frame.node, cst.Module)
        ):
            analysis.coupled = True  # type: ignore[attr-defined]
        return super().__contains__(key)


class Reanalysis:
    """Keep the walks of one document's last version; analyse the next one reusing them."""

    def __init__(self) -> None:
        self._facts: dict[int, tuple[cst.BaseStatement, _Facts]] = {}
        self._groups: dict[tuple[int, ...], list[_Walk]] = {}
        self._fingerprint: object = None
        self.walked = 0  # top-level statements walked in the latest analysis
        self.replayed = 0  # top-level statements whose walk was replayed in it

    def run(
        self,
        module: cst.Module,
        info: ModuleInfo,
        rules: Sequence[Reporter],
        wrappers: frozenset[str],
    ) -> Analysis:
        """Return the finished analysis of ``module``; its findings equal a full walk's."""
        body = list(module.body)
        facts = [self._statement_facts(s) for s in body]
        self._facts = {id(s): (s, f) for s, f in zip(body, facts, strict=True)}
        # JIT301's functions called in loops follow calls and aliases across statements
        # (`self._fn = self._initialize()` in a class, `calc.calculate()` in a loop of the
        # script): a union of per-statement parts would miss them, so read the module.
        called_in_loops = frozenset(_called_in_loops(module))
        attribute_writes = writes_outside(
            frozenset().union(*(f.attribute_writes for f in facts)), module
        )
        fingerprint = (
            tuple(r.code for r in rules),
            wrappers,
            _info_digest(info),
            tuple(f.skeleton for f in facts),
            called_in_loops,
            attribute_writes,
        )
        groups = _groups(facts)
        plan: dict[int, _Walk] = {}
        if fingerprint == self._fingerprint:
            for members in groups:
                old = self._groups.get(tuple(id(body[i]) for i in members))
                if old is not None and not any(w.coupled for w in old):
                    plan.update((id(w.statement), w) for w in old)
        self._groups, self._fingerprint = {}, None  # until this analysis succeeds
        # The rules' module-wide facts: known already.
        seeds: dict[str, object] = {
            "JIT301.called-in-loops": set(called_in_loops),
            "JIT201.attribute-writes": attribute_writes,
        }
        analysis = self._analyse(module, info, rules, wrappers, plan, seeds)
        if plan and (analysis is None or analysis.limit_reached):
            plan = {}
            analysis = self._analyse(module, info, rules, wrappers, plan, seeds)
        assert analysis is not None
        analysis.plan = {}  # the walks of the version before: they name its analysis
        self.walked, self.replayed = analysis.walked, len(body) - analysis.walked
        if not analysis.limit_reached and analysis._analyses < MAX_ANALYSES:
            walks = {id(w.statement): w for w in analysis.walks}
            self._groups = {
                tuple(id(body[i]) for i in members): [walks[id(body[i])] for i in members]
                for members in groups
            }
            self._fingerprint = fingerprint
        return analysis

    def _statement_facts(self, stmt: cst.BaseStatement) -> _Facts:
        known = self._facts.get(id(stmt))
        if known is not None and known[0] is stmt:
            return known[1]
        return _facts(stmt)

    @staticmethod
    def _analyse(
        module: cst.Module,
        info: ModuleInfo,
        rules: Sequence[Reporter],
        wrappers: frozenset[str],
        plan: dict[int, _Walk],
        seeds: dict[str, object],
    ) -> _Replaying | None:
        analysis = _Replaying(module, info, rules, wrappers, plan=plan)
        helpers.state_slot(cast(RuleContext, analysis)).update(seeds)
        try:
            analysis.run()
        except _Stale:
            return None
        return analysis


def _groups(facts: Sequence[_Facts]) -> list[list[int]]:
    """Return the groups of linked statements (indices in module order); see the module doc."""
    binders: dict[str, list[int]] = {}
    for i, f in enumerate(facts):
        for name in f.binds:
            binders.setdefault(name, []).append(i)
    edges: list[set[int]] = []
    for i, f in enumerate(facts):
        out: set[int] = set()
        for name in f.names:
            out.update(binders.get(name, ()))
        out.discard(i)
        edges.append(out)
    # Statements that hold code, or depend (transitively) on one that does.
    reverse: list[list[int]] = [[] for _ in facts]
    for i, out in enumerate(edges):
        for j in out:
            reverse[j].append(i)
    linked = [f.has_code for f in facts]
    todo = [i for i, f in enumerate(facts) if f.has_code]
    while todo:
        j = todo.pop()
        for i in reverse[j]:
            if not linked[i]:
                linked[i] = True
                todo.append(i)
    parent = list(range(len(facts)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, out in enumerate(edges):
        if linked[i]:
            for j in out:
                if linked[j]:
                    parent[root(i)] = root(j)
    groups: dict[int, list[int]] = {}
    for i in range(len(facts)):
        if linked[i]:
            groups.setdefault(root(i), []).append(i)
    return list(groups.values())
