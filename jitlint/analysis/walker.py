"""Walk statements and expressions in order, keeping the traced-value state as it goes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, cast

import libcst as cst

from jitlint.analysis.context import Reporter
from jitlint.analysis.cst_util import (
    NOT_LITERAL,
    SMALL_STATEMENTS,
    children,
    constant_sweep,
    literal,
    statements,
)
from jitlint.analysis.kinds import ARRAYS, Kind, namespace_of
from jitlint.analysis.knowledge import ARRAY_MODULES, ZIPS
from jitlint.analysis.module_info import MUTABLE_CONSTRUCTORS, ModuleInfo
from jitlint.analysis.scopes import scope_names, suite_statements, target_names
from jitlint.analysis.taint import (
    Evaluator,
    Frame,
    concrete_by_type,
    containers_by_type,
    guarded_names,
    is_guard,
    join,
    mixed_record,
    runs_untraced,
)
from jitlint.model import Mode, Taint

# Context managers inside which JAX evaluates operations on non-tracers eagerly.
_EAGER_CONTEXTS = frozenset({"jax.ensure_compile_time_eval", "jax.core.eval_context"})
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)
_UNHASHABLE = frozenset({cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp})
_EXPR_PARTS = (
    cst.BaseExpression,
    cst.BaseElement,
    cst.BaseDictElement,
    cst.SubscriptElement,
    cst.BaseSlice,
    cst.ComparisonTarget,
    cst.Arg,
    cst.FormattedStringExpression,
)

# How ``visit_expr`` treats a node, by its type (``isinstance`` on libcst's ABCs is slow).
_LEAF, _ATTRIBUTE, _IFEXP, _CALL, _COMPREHENSION, _OTHER = range(6)
_EXPR_KINDS: dict[type, int] = {}
_IS_PART: dict[type, bool] = {}


def _expr_kind(kind: type) -> int:
    if issubclass(kind, cst.Name | cst.Lambda | cst.BaseNumber | cst.SimpleString):
        found = _LEAF
    elif issubclass(kind, cst.Attribute):
        found = _ATTRIBUTE
    elif issubclass(kind, cst.IfExp):
        found = _IFEXP
    elif issubclass(kind, cst.Call):
        found = _CALL
    elif issubclass(kind, _COMPREHENSIONS):
        found = _COMPREHENSION
    else:
        found = _OTHER
    _EXPR_KINDS[kind] = found
    return found


Handler = Callable[[Any, Any], None]
Spec = tuple[frozenset[int], frozenset[str]]


class Walker:
    """Walk code in source order, dispatching rule hooks; subclasses resolve and analyse."""

    info: ModuleInfo
    _eval: Evaluator

    def __init__(self, rules: Sequence[Reporter]) -> None:
        self.stack: list[Frame] = []
        self.loops: list[set[str]] = []  # per enclosing loop: functions defined inside it
        self.sweeps: list[bool] = []  # per enclosing loop: over a few constants only
        self._conditions: set[int] = set()
        self._statement_calls: set[int] = set()  # calls whose result is discarded
        self._write_roots: set[int] = set()  # names that are the object of a mutating call
        self._kept_calls: set[int] = set()  # calls whose result is assigned or returned
        # Finding codes the enclosing `try` statements handle (`except ConcretizationTypeError`)
        self.caught: list[frozenset[str]] = []
        self._handlers: dict[type, list[tuple[Reporter, Handler]]] = {}
        # Enclosing `if` statements whose test is a traced value in staged code: JAX raises
        # at the test, so their branches never run as written.
        self._after_raise = 0
        # Set when a statement known to run always leaves the block (`if isinstance(v,
        # Tracer): return` under a trace): the rest of the block does not run.
        self._left_block = False
        # What call targets resolved to within the statement being walked (see Analysis).
        self._resolutions: dict[tuple[int, bytes | None], tuple[Any, ...]] = {}
        for rule in rules:
            for node_type, method in rule.hooks():
                self._handlers.setdefault(node_type, []).append((rule, method))

    def _new_facts(self) -> None:
        """Forget the answers cached for the statement: a binding, a frame or a narrowing
        changed what its names mean."""
        self._eval.cache.clear()
        self._resolutions.clear()

    # Provided by the analysis -----------------------------------------------------
    def qualname(self, expr: cst.BaseExpression) -> str | None:
        """Resolve a dotted name through imports (see Analysis)."""
        raise NotImplementedError

    def _on_call(self, call: cst.Call) -> None:
        raise NotImplementedError

    def _on_attribute(self, node: cst.Attribute) -> None:
        """Follow an attribute read that runs code (a property; see Analysis)."""

    def _under_shard_map(self) -> bool:
        """Tell whether the code being walked is traced by `shard_map`, where (jax 0.10.2)
        `ensure_compile_time_eval` leaves constant computations staged."""
        return False

    def _on_subscript(self, node: cst.Subscript) -> None:
        """Follow an item read that runs code (a `__getitem__`; see Analysis)."""

    def _on_lambda(self, node: cst.Lambda) -> None:
        """Walk the body of a lambda met outside any trace (see Analysis)."""

    def _walk_def(self, fn: cst.FunctionDef) -> None:
        raise NotImplementedError

    def _call_spec(self, call: cst.Call) -> Spec | None:
        raise NotImplementedError

    def note_function_binding(
        self, name: str, value: cst.BaseExpression | cst.FunctionDef | None
    ) -> None:
        """Follow what a name means as bindings happen (see Analysis)."""
        raise NotImplementedError

    def attribute_kind(self, node: cst.Attribute) -> Kind | None:
        """Return what `self.x` evidently holds, from the class's one binding of it (see
        Analysis)."""
        return None

    def helper_kind(self, call: cst.Call) -> Kind | None:
        """Return what a call of a project function evidently returns, as its walks found
        (see Analysis)."""
        raise NotImplementedError

    def returned_kinds(self, call: cst.Call, count: int) -> list[Kind | None] | None:
        """Return the kinds of the ``count`` elements ``call`` returns, as its function's
        return annotation says (`-> tuple[list[dict], dict]`), or None (see Analysis)."""
        raise NotImplementedError

    def returned_taints(self, call: cst.Call, count: int) -> list[Taint] | None:
        """Return how traced each of the ``count`` elements ``call`` returned is, when its
        function's walk for this call returned a tuple of that length everywhere."""
        raise NotImplementedError

    def _note_return_parts(self, value: cst.BaseExpression) -> None:
        frame = self.frame
        if frame.return_mixed:
            return
        if type(value) is not cst.Tuple or any(
            type(e) is cst.StarredElement for e in value.elements
        ):
            frame.return_mixed = True
            return
        parts = [self.value(e.value) for e in value.elements]
        if frame.return_parts is None:
            frame.return_parts = parts
        elif len(frame.return_parts) != len(parts):
            frame.return_mixed = True
        else:
            frame.return_parts = [
                join(a, b) for a, b in zip(frame.return_parts, parts, strict=True)
            ]

    # State ------------------------------------------------------------------------
    @property
    def frame(self) -> Frame:
        """Return the scope being walked."""
        return self.stack[-1]

    @property
    def mode(self) -> Mode:
        """Return how the current function is traced."""
        return self.stack[-1].mode

    @property
    def staged(self) -> bool:
        """Tell whether the current code is staged out to a jaxpr (``RuleContext``)."""
        return self.mode is not Mode.NONE and self.frame.style.staged

    @property
    def after_raise(self) -> bool:
        """Tell whether the code being walked is a branch of an `if` on a traced value in
        staged code (``RuleContext``): JAX raises at the test, before the branch runs."""
        return self._after_raise > 0

    def value(self, expr: cst.BaseExpression) -> Taint:
        """Return the taint of ``expr`` at this point of the walk."""
        if self.mode is Mode.NONE:
            return Taint.UNKNOWN
        return self._eval.value(expr)

    def taint(self, expr: cst.BaseExpression) -> Taint:
        """Return how traced ``expr`` is at this point of the walk (``RuleContext``)."""
        return self.value(expr)

    def is_traced(self, expr: cst.BaseExpression) -> bool:
        """Tell whether ``expr`` certainly holds a traced value (as a condition: is one)."""
        if self.mode is not Mode.NONE and self.in_condition(expr):
            return self._eval.truth(expr) is Taint.TRACED
        return self.value(expr) is Taint.TRACED

    def kind_of(self, expr: cst.BaseExpression) -> Kind | None:
        """Return what ``expr`` evidently holds at this point: a JAX array, a mask, NumPy..."""
        return self._eval.kind(expr)

    def name_kind(self, name: str) -> Kind | None:
        """Return what the name ``name`` holds here, if a binding made it evident."""
        current = self.frame
        for frame in reversed(self.stack):
            if type(frame.node) is cst.ClassDef and frame is not current:
                continue
            if name in frame.kinds:
                module = type(frame.node) is cst.Module
                if module and frame is not current and len(self.info.assigned.get(name, ())) > 1:
                    return None  # a global bound twice may hold either when a function runs
                return frame.kinds[name]
            if name in frame.env or name in frame.locals:
                return None
        return None

    def is_statement_call(self, node: cst.CSTNode) -> bool:
        """Tell whether ``node`` is a call used as a statement (its result discarded)."""
        return id(node) in self._statement_calls

    def is_write_root(self, node: cst.CSTNode) -> bool:
        """Tell whether ``node`` is the name a mutating method call (``x.append``) writes to."""
        return id(node) in self._write_roots

    def is_field_truthiness(self, test: cst.BaseExpression) -> bool:
        """Tell whether ``test`` only asks if a pytree field is set (`if state.ema:`).

        Such fields are usually Optional sub-trees (None or an object), whose truthiness is
        a Python value; an array field would be compared, not tested bare.
        """
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            return self.is_field_truthiness(test.expression)
        if isinstance(test, cst.Attribute):
            # Not a field some record of the module declares as an array (`is_full: Array`):
            # that is a leaf, traced with its record.
            return not any(test.attr.value in f for f in self.info.array_fields.values())
        if not isinstance(test, cst.Name):
            return False
        return test.value in self.frame.fields or self.is_record_param(test.value)

    def is_record_param(self, name: str) -> bool:
        """Tell whether ``name`` is a parameter annotated with a record class of the project
        (`state: Optional[State]`): its truth value is the object's, a Python value."""
        return False

    def in_condition(self, node: cst.CSTNode) -> bool:
        """Tell whether ``node`` is (part of) the test of an if/while/ternary/assert."""
        return id(node) in self._conditions

    def comprehension_value(self, e: cst.BaseExpression) -> Taint:
        """Return the taint of a comprehension's elements."""
        assert isinstance(e, _COMPREHENSIONS)
        saved = self._bind_comprehension(e.for_in, visit=False)
        try:
            if isinstance(e, cst.DictComp):
                return self._eval.value(e.value)
            return self._eval.value(e.elt)
        finally:
            self.frame.env.update(saved[0])
            for name in saved[1]:
                self.frame.env.pop(name, None)

    # Statements ----------------------------------------------------------------
    def walk_suite(self, suite: cst.BaseSuite) -> None:
        """Walk an indented block or a one-line suite."""
        self.walk_block(suite_statements(suite))

    def walk_block(self, stmts: Sequence[cst.BaseStatement | cst.BaseSmallStatement]) -> None:
        """Walk statements in order."""
        for stmt in stmts:
            self._new_facts()
            # libcst's node classes are final, so `type(n) is C` answers isinstance without
            # the abstract base classes' slow check (this loop runs for every statement).
            if type(stmt) is cst.If or type(stmt) is cst.While:
                self.mark_condition(stmt.test)  # rules judge its truth value, not its value
            self.dispatch(stmt)
            if type(stmt) is cst.SimpleStatementLine:
                self.walk_block(stmt.body)
            elif type(stmt) in SMALL_STATEMENTS:
                self._small(cast(cst.BaseSmallStatement, stmt))
            else:
                self._compound(cast(cst.BaseStatement, stmt))
                if self._left_block:
                    self._left_block = False
                    break

    def _small(self, s: cst.BaseSmallStatement) -> None:
        value = getattr(s, "value", None)
        if type(value) is cst.Call and type(s) is not cst.Expr:
            self._kept_calls.add(id(value))
        if type(s) is cst.Assign:
            self.visit_expr(s.value)
            v = self._bind_value(s.value)
            for t in s.targets:
                self._visit_target(t.target)
                self.bind(t.target, s.value, v)
                self._note_binding(t.target, s.value)
        elif type(s) is cst.AnnAssign and s.value is not None:
            self.visit_expr(s.value)
            self._visit_target(s.target)
            self.bind(s.target, s.value, self._bind_value(s.value))
            self._note_binding(s.target, s.value)
        elif type(s) is cst.AugAssign:
            self._visit_target(s.target)
            self.visit_expr(s.value)
            old = self._eval.name(s.target.value) if type(s.target) is cst.Name else None
            v = join(old or Taint.STATIC, self._bind_value(s.value))
            self.bind(s.target, None, v, augmented=True)
        elif type(s) is cst.Expr:
            if type(s.value) is cst.Call:
                self._statement_calls.add(id(s.value))
            self.visit_expr(s.value)
        elif type(s) is cst.Return and s.value is not None:
            self.visit_expr(s.value)
            self.frame.returns = join(self.frame.returns, self.value(s.value))
            self.frame.return_kinds.add(self._eval.kind(s.value))
            self._note_return_parts(s.value)
        elif type(s) is cst.Assert:
            self.mark_condition(s.test)
            self.visit_expr(s.test)
            if s.msg is not None:
                self.visit_expr(s.msg)
        elif type(s) is cst.Raise:
            for part in (s.exc, s.cause.item if s.cause else None):
                if part is not None:
                    self.visit_expr(part)
        elif type(s) is cst.Del:
            self._visit_target(s.target)

    def _compound(self, s: cst.BaseStatement) -> None:
        if type(s) is cst.If:
            self._walk_if(s)
        elif type(s) is cst.For or type(s) is cst.While:
            self._walk_loop(s)
        elif type(s) is cst.With:
            eager = False
            for item in s.items:
                self.visit_expr(item.item)
                if item.asname is not None:
                    self.bind(item.asname.name, None, self._bind_value(item.item))
                called = item.item.func if type(item.item) is cst.Call else item.item
                eager = eager or self.qualname(called) in _EAGER_CONTEXTS
            frame = self.frame
            style = frame.style
            if eager and style.staged and not self._under_shard_map():
                # `with jax.ensure_compile_time_eval():` operations on values that are not
                # tracers run eagerly again, inside jit too: constants stay concrete
                frame.style = replace(style, staged=False)
                self._new_facts()
            try:
                self.walk_suite(s.body)
            finally:
                if frame.style is not style:
                    frame.style = style
                    self._new_facts()
        elif type(s) is cst.Try or type(s) is cst.TryStar:
            handled = frozenset(
                code
                for h in s.handlers
                if h.type is not None
                for t in _caught_types(h.type)
                for code in _HANDLES.get((self.qualname(t) or "").rsplit(".", 1)[-1], ())
            )
            self.caught.append(handled)
            try:
                self.walk_suite(s.body)
            finally:
                self.caught.pop()
            for h in s.handlers:
                if h.type is not None:
                    self.visit_expr(h.type)
                if h.name is not None:
                    self.bind(h.name.name, None, Taint.STATIC)
                self.walk_suite(h.body)
            for extra in (s.orelse, s.finalbody):
                if extra is not None:
                    self.walk_suite(extra.body)
        elif type(s) is cst.FunctionDef:
            self._walk_def(s)
        elif type(s) is cst.ClassDef:
            self._walk_class(s)
        elif type(s) is cst.Match:
            self.visit_expr(s.subject)
            for case in s.cases:
                self.walk_suite(case.body)

    def _walk_if(self, s: cst.If) -> None:
        self.visit_expr(s.test)  # marked as a condition by walk_block
        known = self._known_truth(s.test, s)
        if known is not None:
            # `if verbose:` with `verbose` left at `False` by every call: one branch runs
            if known:
                self.walk_suite(s.body)
                self._left_block = _exits(s.body)
            elif isinstance(s.orelse, cst.If):
                self.walk_block([s.orelse])
            elif s.orelse is not None:
                self.walk_suite(s.orelse.body)
            return
        env = self.frame.env
        before = dict(env)
        if self.mode is not Mode.NONE and is_guard(s.test, self.qualname):
            for name in guarded_names(s.test):
                # Concrete inside `if not_jax_tracer(x):`, but still what it was: a concrete
                # JAX array's `x <= 0` is a tracer again in staged code.
                self.frame.kinds[name] = self.name_kind(name)
                env[name] = Taint.UNKNOWN
        if self.mode is not Mode.NONE:
            for name in concrete_by_type(s.test, self.qualname):
                env[name] = Taint.STATIC  # `if isinstance(x, np.ndarray):` x is no tracer here
        frame, mode = self.frame, self.frame.mode
        containers = containers_by_type(s.test, self.qualname)
        kinds_before = {name: (name in frame.kinds, frame.kinds.get(name)) for name in containers}
        frame.kinds.update(containers)  # `if isinstance(args, tuple):` args is a tuple here
        raises = self.staged and self.value(s.test) is Taint.TRACED
        if mode is not Mode.NONE and runs_untraced(s.test, self.qualname):
            frame.mode = Mode.NONE  # `if not _is_under_jax_transform():` never runs traced
        self._after_raise += raises
        jitted_before, calls_before = dict(frame.jitted), dict(frame.jit_calls)
        try:
            self.walk_suite(s.body)
        finally:
            frame.mode = mode
            for name, (present, kind) in kinds_before.items():
                if present:
                    frame.kinds[name] = kind
                else:
                    frame.kinds.pop(name, None)
            self._after_raise -= raises
        after_body = self.frame.env
        jitted_body, calls_body = frame.jitted, frame.jit_calls
        frame.jitted, frame.jit_calls = jitted_before, calls_before
        self.frame.env = dict(before)
        self._after_raise += raises
        try:
            if type(s.orelse) is cst.If:
                self.walk_block([s.orelse])
            elif s.orelse is not None:
                self.walk_suite(s.orelse.body)
        finally:
            self._after_raise -= raises
        self.frame.env = _merge(after_body, self.frame.env)
        # A name jitted on one branch only (`if jit: fun = jax.jit(fun, ...)`) may hold
        # either function below: what it holds is known only where both branches agree.
        frame.jitted = {k: v for k, v in frame.jitted.items() if jitted_body.get(k) == v}
        frame.jit_calls = {k: v for k, v in frame.jit_calls.items() if calls_body.get(k) is v}
        negated = type(s.test) is cst.UnaryOperation and isinstance(s.test.operator, cst.Not)
        if negated and s.orelse is None and _exits(s.body):
            # `if not isinstance(args, tuple): return ...`: below, args is a tuple
            assert isinstance(s.test, cst.UnaryOperation)
            frame.kinds.update(containers_by_type(s.test.expression, self.qualname))
            if self.mode is not Mode.NONE:
                for name in concrete_by_type(s.test.expression, self.qualname):
                    self.frame.env[name] = Taint.STATIC

    def _known_truth(self, test: cst.BaseExpression, branch: cst.If | None = None) -> bool | None:
        """Return the truth of ``test`` when it is a parameter every call leaves at its
        literal default (`verbose`, `not debug`), or, for the `if` ``branch``, an `is None`
        test of a parameter given a tracer (`_none_test`); else None."""
        negated = False
        while type(test) is cst.UnaryOperation and isinstance(test.operator, cst.Not):
            negated, test = not negated, test.expression
        if type(test) is cst.Comparison:
            absent = None if branch is None else self._none_test(test, branch)
            return None if absent is None else absent != negated
        if type(test) is cst.Call:
            tracer = self._tracer_test(test)
            return None if tracer is None else tracer != negated
        if type(test) is not cst.Name or test.value not in self.frame.constants:
            return None
        value = literal(self.frame.constants[test.value], NOT_LITERAL)
        if value is NOT_LITERAL or not isinstance(value, bool | int | float | str | None):
            return None
        return bool(value) != negated

    def _tracer_test(self, test: cst.Call) -> bool | None:
        """Return True for `isinstance(x, jax.core.Tracer)` of a name this trace holds a
        tracer in: `if not isinstance(v, Tracer): log.append(float(v))` never runs under
        the trace. Else None."""
        if (
            self.mode is Mode.NONE
            or len(test.args) != 2
            or self.qualname(test.func) != "isinstance"
        ):
            return None
        value, kind = test.args[0].value, test.args[1].value
        if type(value) is not cst.Name or self.frame.env.get(value.value) is not Taint.TRACED:
            return None
        q = self.qualname(kind) or ""
        return True if q.rsplit(".", 1)[-1] == "Tracer" and q.startswith("jax") else None

    def _none_test(self, test: cst.Comparison, branch: cst.If) -> bool | None:
        """Return the truth of `p is None` (`p is not None`) for a parameter ``p`` the caller
        of a helper gave a traced value, which no statement of the function rebinds outside
        the branch: a tracer is never None (JAX_GP's `if params is None: params =
        self.param_values`)."""
        if len(test.comparisons) != 1:
            return None
        op = test.comparisons[0].operator
        sides = (test.left, test.comparisons[0].comparator)
        if not isinstance(op, cst.Is | cst.IsNot) or not any(
            type(side) is cst.Name and side.value == "None" for side in sides
        ):
            return None
        name = next((s.value for s in sides if type(s) is cst.Name and s.value != "None"), None)
        fn = self.frame.node
        if name is None or self.frame.env.get(name) is not Taint.TRACED or self.frame.root:
            return None  # an entry point's parameter may be left at None: an empty pytree
        if not isinstance(fn, cst.FunctionDef) or not any(
            p.name.value == name
            for p in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params)
        ):
            return None
        if name in scope_names(fn.body).locals and not self._rebound_only_in(name, fn, branch):
            return None  # rebound elsewhere: it may hold None there
        return isinstance(op, cst.IsNot)

    @staticmethod
    def _rebound_only_in(name: str, fn: cst.FunctionDef, branch: cst.If) -> bool:
        """Tell whether every statement of ``fn`` that binds ``name`` is inside ``branch``
        (`if params is None: params = default`)."""
        inside = {id(st) for st in statements(branch)}
        for st in statements(fn.body):
            if id(st) in inside:
                continue
            if type(st) is cst.Assign:
                targets = [t.target for t in st.targets]
            elif type(st) is cst.AugAssign or type(st) is cst.AnnAssign or type(st) is cst.For:
                targets = [st.target]
            elif isinstance(st, cst.FunctionDef | cst.ClassDef):
                targets = [st.name]
            elif isinstance(st, cst.With | cst.Try | cst.Global | cst.Nonlocal | cst.Del):
                return False  # `as` names, handlers, declarations: not followed here
            else:
                continue
            if any(name in target_names(t) for t in targets):
                return False
        return True

    def _walk_loop(self, s: cst.For | cst.While) -> None:
        if isinstance(s, cst.For):
            self.visit_expr(s.iter)
        else:
            self.visit_expr(s.test)  # marked as a condition by walk_block
        self.loops.append(set(scope_names(s.body).defs))
        self.sweeps.append(constant_sweep(s))
        # A second pass lets values traced late in the body reach its start.
        passes = 2 if self.mode is not Mode.NONE and len(self.loops) <= 2 else 1
        for i in range(passes):
            if i:
                self._new_facts()
                self.dispatch(s)
            if isinstance(s, cst.For):
                self._bind_iteration(s.target, s.iter)
            self.walk_suite(s.body)
        self.loops.pop()
        self.sweeps.pop()
        if s.orelse is not None:
            self.walk_suite(s.orelse.body)

    def _walk_class(self, c: cst.ClassDef) -> None:
        for dec in c.decorators:
            self.visit_expr(dec.decorator)
        for base in c.bases:
            self.visit_expr(base.value)
        self.frame.env[c.name.value] = Taint.STATIC
        names = scope_names(c.body)
        frame = Frame(c, self.mode, locals=names.locals, defs=names.defs, cls=c)
        self.stack.append(frame)
        try:
            self.walk_suite(c.body)
        finally:
            self.stack.pop()

    # Bindings ------------------------------------------------------------------
    def _bind_value(self, expr: cst.BaseExpression) -> Taint:
        if self.mode is Mode.NONE:
            # Module-level values are concrete Python objects; locals of ordinary functions
            # may be anything.
            module_level = type(self.frame.node) is cst.Module
            literal = type(expr) is cst.Integer or type(expr) is cst.SimpleString
            return Taint.STATIC if module_level or literal else Taint.UNKNOWN
        return self._eval.value(expr)

    def bind(
        self,
        target: cst.BaseExpression,
        value: cst.BaseExpression | None,
        v: Taint,
        *,
        augmented: bool = False,
    ) -> None:
        """Bind an assignment target; unpack literal tuples element by element."""
        self._resolutions.clear()
        env = self.frame.env
        if type(target) is cst.Name:
            if not augmented:  # `x += 1` keeps what x is
                self._bind_kind(target.value, value)
                self.note_function_binding(target.value, value)
            env[target.value] = v
            parts = None if value is None or augmented else self.tuple_parts(value)
            if parts is None:
                self.frame.parts.pop(target.value, None)
            else:
                self.frame.parts[target.value] = parts
        elif isinstance(target, cst.Tuple | cst.List):
            if (
                (type(value) is cst.Tuple or type(value) is cst.List)
                and len(value.elements) == len(target.elements)
                and not any(isinstance(e, cst.StarredElement) for e in value.elements)
            ):
                for t, e in zip(target.elements, value.elements, strict=True):
                    self.bind(t.value, e.value, self._bind_value(e.value))
            else:
                for t in target.elements:
                    self.bind(t.value, None, v)
                held = self._parts_of(value) if type(value) is cst.Name else None
                if held is not None and len(held) == len(target.elements):
                    # `inputs, seed, _, use_probs = operands`, given `(*ops, True)`
                    for t, part in zip(target.elements, held, strict=True):
                        if isinstance(t.value, cst.Name):
                            env[t.value.value] = part
                if isinstance(value, cst.Call):
                    kinds = self.returned_kinds(value, len(target.elements))
                    for t, kind in zip(target.elements, kinds or (), strict=False):
                        if isinstance(t.value, cst.Name) and kind is not None:
                            self.frame.kinds[t.value.value] = kind
                    # `logits, size = prefill(x)` where `prefill` returns `zeros(...), 4`
                    parts = self.returned_taints(value, len(target.elements))
                    for t, part in zip(target.elements, parts or (), strict=False):
                        if isinstance(t.value, cst.Name):
                            env[t.value.value] = part
        elif isinstance(target, cst.StarredElement):
            self.bind(target.value, None, v)
        elif isinstance(target, cst.Subscript | cst.Attribute):
            if (
                type(target) is cst.Attribute
                and type(target.value) is cst.Name
                and target.value.value == "self"
            ):
                self.frame.self_stores.add(target.attr.value)
            root = target.value
            while isinstance(root, cst.Subscript | cst.Attribute):
                root = root.value
            # Storing a traced value into a local container makes the container traced;
            # an attribute of a static `self` is read as what was stored in it, and its other
            # attributes stay what they were.
            if (
                isinstance(root, cst.Name)
                and root.value in env
                and v is Taint.TRACED
                and not (value is not None and mixed_record(value, self.value))
            ):
                if root.value == "self" and env["self"] is not Taint.TRACED:
                    # (an object whose other attributes stay what they were, whether its
                    # own taint is known or not: `self.key = split(self.key)[0]` under a
                    # trace leaves `self.n_steps` a Python int)
                    if type(target) is cst.Attribute and target.value is root:
                        env[f"self.{target.attr.value}"] = Taint.TRACED
                    return
                env[root.value] = Taint.TRACED

    def tuple_parts(self, value: cst.BaseExpression) -> list[Taint] | None:
        """Return how traced each element of a tuple display is, a starred name that holds
        a tuple of known parts spelled out (`(*operands, True)`), or of the tuple a name
        holds; None for anything else."""
        if type(value) is cst.Name:
            return self._parts_of(value)  # `multinomial(operands)`, handed on as it is
        if type(value) is not cst.Tuple:
            return None
        parts: list[Taint] = []
        for e in value.elements:
            if type(e) is cst.StarredElement:
                held = self._parts_of(e.value) if type(e.value) is cst.Name else None
                if held is None:
                    return None
                parts.extend(held)
            else:
                parts.append(self.value(e.value))
        return parts

    def _parts_of(self, name: cst.Name) -> list[Taint] | None:
        """Return the parts of the tuple ``name`` holds here, if known."""
        for frame in reversed(self.stack):
            if name.value in frame.parts:
                return frame.parts[name.value]
            if name.value in frame.env or name.value in frame.locals:
                return None
        return None

    def _bind_kind(self, name: str, value: cst.BaseExpression | None) -> None:
        frame = self.frame
        frame.kinds[name] = None if value is None else self._eval.kind(value)
        namespace = None if value is None else namespace_of(self._eval, value)
        if namespace is None:
            frame.namespaces.pop(name, None)
        else:
            frame.namespaces[name] = namespace

    def _note_binding(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        if type(target) is not cst.Name:
            return
        name, frame = target.value, self.frame
        frame.jitted.pop(name, None)
        frame.jit_calls.pop(name, None)
        if type(value) is cst.Attribute:
            frame.fields.add(name)
        else:
            frame.fields.discard(name)
        if self._names_array_fn(value):
            frame.array_fns.add(name)
        else:
            frame.array_fns.discard(name)
        is_container = type(value) is cst.Call and (
            self.qualname(value.func) in MUTABLE_CONSTRUCTORS
        )
        if type(value) in _UNHASHABLE or is_container:
            frame.unhashable.add(name)
        else:
            frame.unhashable.discard(name)
        if type(value) is cst.Call and (
            type(value.func) is cst.Name or type(value.func) is cst.Attribute
        ):
            frame.instances[name] = value.func
            frame.constructions[name] = value
            frame.built.add(name)
        else:
            frame.instances.pop(name, None)
            frame.constructions.pop(name, None)
            frame.built.discard(name)
        if type(value) is cst.Call:
            spec = self._call_spec(value)
            if spec is not None:
                frame.jitted[name] = spec
                frame.jit_calls[name] = value

    def _names_array_fn(self, value: cst.BaseExpression) -> bool:
        if type(value) is cst.IfExp:
            return self._names_array_fn(value.body) and self._names_array_fn(value.orelse)
        if type(value) is cst.Name or type(value) is cst.Attribute:
            return (self.qualname(value) or "").startswith(ARRAY_MODULES)
        return False

    def _bind_iteration(self, target: cst.BaseExpression, it: cst.BaseExpression) -> None:
        if self.mode is Mode.NONE:
            self.bind(target, None, Taint.UNKNOWN)
            return
        if isinstance(it, cst.Call):
            q = self.qualname(it.func)
            args = [a.value for a in it.args if a.keyword is None]
            elements = target.elements if isinstance(target, cst.Tuple | cst.List) else None
            if q in _SAME_ELEMENTS and len(args) == 1 and len(it.args) == 1:
                # `reversed(list(enumerate(xs)))` yields what `enumerate(xs)` yields
                self._bind_iteration(target, args[0])
                return
            if q == "enumerate" and args and elements is not None and len(elements) == 2:
                self.bind(elements[0].value, None, Taint.STATIC)
                self._bind_iteration(elements[1].value, args[0])
                return
            if q in ZIPS and elements is not None and len(elements) == len(args):
                for t, a in zip(elements, args, strict=True):
                    self._bind_iteration(t.value, a)
                return
            if q == "range":
                v = self._eval.args(it)
                self.bind(target, None, Taint.STATIC if v is Taint.STATIC else Taint.UNKNOWN)
                return
            if isinstance(it.func, cst.Attribute) and it.func.attr.value in {"items", "keys"}:
                receiver = self._eval.value(it.func.value)
                if it.func.attr.value == "keys":
                    self.bind(target, None, Taint.STATIC)
                elif isinstance(target, cst.Tuple) and len(target.elements) == 2:
                    self.bind(target.elements[0].value, None, Taint.STATIC)
                    self.bind(target.elements[1].value, None, receiver)
                else:
                    self.bind(target, None, receiver)
                return
        if self._eval.kind(it) is Kind.MAPPING:
            self.bind(target, None, Taint.STATIC)  # a dict's keys: `for k in kwargs`
            return
        self.bind(target, None, self._eval.value(it))
        if isinstance(target, cst.Name):
            kind = self._eval.kind(it)
            if kind in ARRAYS or kind is Kind.NUMPY:
                # the rows of an array are arrays of its kind: `for x in np.indices(shape)`
                self.frame.kinds[target.value] = kind

    def _bind_comprehension(
        self, comp: cst.CompFor, *, visit: bool
    ) -> tuple[dict[str, Taint], set[str]]:
        """Bind a comprehension's targets in place; return what to restore afterwards."""
        env = self.frame.env
        saved: dict[str, Taint] = {}
        added: set[str] = set()
        node: cst.CompFor | None = comp
        while node is not None:
            if visit:
                self.visit_expr(node.iter)
                self.dispatch(node)
            for name in target_names(node.target):
                if name in env:
                    saved.setdefault(name, env[name])
                else:
                    added.add(name)
            self._bind_iteration(node.target, node.iter)
            for cond in node.ifs:
                if visit:
                    self.mark_condition(cond.test)
                    self.dispatch(cond)
                    self.visit_expr(cond.test)
            node = node.inner_for_in
        return saved, added

    # Expressions ---------------------------------------------------------------
    def dispatch(self, node: cst.CSTNode) -> None:
        """Call every rule hook registered for this node type."""
        handlers = self._handlers.get(type(node))
        if handlers:
            mode = self.stack[-1].mode
            for rule, method in handlers:
                if mode in rule.modes:
                    method(node, self)

    def visit_expr(self, e: cst.CSTNode) -> None:
        """Visit an expression tree, dispatching rule hooks and finding transforms."""
        self.dispatch(e)
        kind = _EXPR_KINDS.get(type(e))
        if kind is None:
            kind = _expr_kind(type(e))
        if kind == _LEAF:
            if type(e) is cst.Lambda:
                self._on_lambda(e)
            return
        if kind == _ATTRIBUTE:
            assert isinstance(e, cst.Attribute)
            self.visit_expr(e.value)
            self._on_attribute(e)
            return
        if kind == _IFEXP:
            assert isinstance(e, cst.IfExp)
            self.mark_condition(e.test)  # its truth value is asked, like an `if`'s
            concrete = concrete_by_type(e.test, self.qualname) if self.mode is not Mode.NONE else []
            if concrete:
                self._visit_narrowed_ifexp(e, concrete)
                return
        if kind == _CALL:
            assert isinstance(e, cst.Call)
            self._on_call(e)
            self.visit_expr(e.func)
            for arg in e.args:
                self.visit_expr(arg.value)
            return
        if kind == _COMPREHENSION:
            self._visit_comprehension(e)  # type: ignore[arg-type]
            return
        for child in children(e):
            part = _IS_PART.get(type(child))
            if part is None:
                part = _IS_PART[type(child)] = issubclass(type(child), _EXPR_PARTS)
            if part:
                self.visit_expr(child)
        if type(e) is cst.Subscript:
            self._on_subscript(e)

    def _visit_narrowed_ifexp(self, e: cst.IfExp, concrete: list[str]) -> None:
        """Visit `a if isinstance(x, int) else b`: in `a`, x is no tracer."""
        self.visit_expr(e.test)
        env = self.frame.env
        saved = {name: env.get(name) for name in concrete}
        env.update(dict.fromkeys(concrete, Taint.STATIC))
        self._new_facts()
        try:
            self.visit_expr(e.body)
        finally:
            for name, taint in saved.items():
                if taint is None:
                    env.pop(name, None)
                else:
                    env[name] = taint
            self._new_facts()
        self.visit_expr(e.orelse)

    def _visit_comprehension(self, e: cst.BaseExpression) -> None:
        assert isinstance(e, _COMPREHENSIONS)
        self.loops.append(set())
        self.sweeps.append(constant_sweep(e))
        saved = self._bind_comprehension(e.for_in, visit=True)
        try:
            if isinstance(e, cst.DictComp):
                self.visit_expr(e.key)
                self.visit_expr(e.value)
            else:
                self.visit_expr(e.elt)
        finally:
            self.loops.pop()
            self.sweeps.pop()
            self.frame.env.update(saved[0])
            for name in saved[1]:
                self.frame.env.pop(name, None)

    def _visit_target(self, target: cst.BaseExpression) -> None:
        # The written-to root name is not a read; its subscripts and bases are.
        if type(target) is cst.Subscript:
            self.dispatch(target)
            self._visit_target(target.value)
            for part in target.slice:
                self.visit_expr(part)
        elif type(target) is cst.Attribute:
            self.dispatch(target)
            self._visit_target(target.value)
        elif type(target) is cst.Tuple or type(target) is cst.List:
            for el in target.elements:
                self._visit_target(el.value)
        elif type(target) is cst.StarredElement:
            self._visit_target(target.value)
        elif type(target) is not cst.Name:
            self.visit_expr(target)

    def mark_condition(self, test: cst.BaseExpression) -> None:
        """Mark ``test`` (and the and/or/not operands inside it) as a condition."""
        self._conditions.add(id(test))
        if type(test) is cst.BooleanOperation:
            self.mark_condition(test.left)
            self.mark_condition(test.right)
        elif type(test) is cst.UnaryOperation and isinstance(test.operator, cst.Not):
            self.mark_condition(test.expression)


# JAX's errors, and the findings that predict them: a `try` catching one handles those.
_CONVERSION = ("JIT101", "JIT102", "JIT103", "JIT104", "JIT401", "JIT404")
_HANDLES: dict[str, tuple[str, ...]] = {
    "ConcretizationTypeError": _CONVERSION,
    "TracerBoolConversionError": ("JIT101", "JIT102", "JIT103"),
    "TracerIntegerConversionError": ("JIT104", "JIT401", "JIT404"),
    "TracerArrayConversionError": ("JIT402",),
}

# Builtins whose iteration yields the elements of their one argument.
_SAME_ELEMENTS = frozenset({"reversed", "list", "tuple", "sorted", "iter"})


def _caught_types(expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    """Return the exception types an `except` clause names (one, or a tuple of them)."""
    if isinstance(expr, cst.Tuple):
        return [el.value for el in expr.elements]
    return [expr]


def _exits(body: cst.BaseSuite) -> bool:
    """Tell whether a block always leaves its enclosing block (return, raise, continue,
    break as its last statement)."""
    stmts = suite_statements(body)
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, cst.SimpleStatementLine):
        return bool(last.body) and isinstance(
            last.body[-1], cst.Return | cst.Raise | cst.Continue | cst.Break
        )
    return isinstance(last, cst.Return | cst.Raise | cst.Continue | cst.Break)


def _merge(a: dict[str, Taint], b: dict[str, Taint]) -> dict[str, Taint]:
    out = dict(a)
    for k, v in b.items():
        out[k] = max(out.get(k, v), v)
    return out
