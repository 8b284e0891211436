"""Walk a module once: find traced functions, track traced values, and run the rules."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import libcst as cst

from jitlint import transforms
from jitlint.applications import Application, all_unknown, from_keywords, seed_params
from jitlint.applications import static_params as _static_params
from jitlint.dataflow import Evaluator, Frame, FunctionNode, Style, guarded_names, is_guard, join
from jitlint.model import TRACED_MODES, Fix, Mode, Taint
from jitlint.module_info import MUTATING_METHODS, ModuleInfo
from jitlint.scopes import scope_names, suite_statements, target_names

if TYPE_CHECKING:
    from jitlint.fixes import NodeFix
    from jitlint.rules.base import Rule

_MAX_ANALYSES = 3000  # bound the work one pathological file can cause
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)
_UNHASHABLE = (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp)
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

Handler = Callable[[Any, "Analysis"], None]


@dataclass(frozen=True)
class Resolved:
    """A function definition a name refers to, with the scopes it closes over."""

    fn: cst.FunctionDef
    closure: list[Frame]
    cls: cst.ClassDef | None
    is_method: bool = False


@dataclass
class RawFinding:
    """A finding before positions are known."""

    rule: Rule
    node: cst.CSTNode
    message: str
    fix: Fix | NodeFix | None


class Analysis:
    """Analyse one module with a set of rules; the context every rule hook receives."""

    def __init__(
        self, module: cst.Module, info: ModuleInfo, rules: Sequence[Rule], wrappers: frozenset[str]
    ) -> None:
        self.module = module
        self.info = info
        self.wrappers = wrappers
        self.stack: list[Frame] = []
        self.loops: list[set[str]] = []  # per enclosing loop: functions defined inside it
        self.findings: dict[tuple[str, int], RawFinding] = {}
        self._eval = Evaluator(self)
        self._memo: dict[tuple[Any, ...], Taint] = {}
        self._active: set[int] = set()
        self._conditions: set[int] = set()
        self._statement_calls: set[int] = set()  # calls whose result is discarded
        self._write_roots: set[int] = set()  # names that are the object of a mutating call
        self._analyses = 0
        self._class_methods: dict[int, dict[str, cst.FunctionDef]] = {}
        self._handlers: dict[type, list[tuple[Rule, Handler]]] = {}
        for rule in rules:
            for node_type, method in rule.hooks():
                self._handlers.setdefault(node_type, []).append((rule, method))

    # Context API for rules ------------------------------------------------------
    @property
    def frame(self) -> Frame:
        """Return the scope being walked."""
        return self.stack[-1]

    @property
    def mode(self) -> Mode:
        """Return how the current function is traced."""
        return self.stack[-1].mode

    def value(self, expr: cst.BaseExpression) -> Taint:
        """Return the taint of ``expr`` at this point of the walk."""
        if self.mode is Mode.NONE:
            return Taint.UNKNOWN
        return self._eval.value(expr)

    def is_traced(self, expr: cst.BaseExpression) -> bool:
        """Tell whether ``expr`` certainly holds a traced value."""
        return self.value(expr) is Taint.TRACED

    def qualname(self, expr: cst.BaseExpression) -> str | None:
        """Resolve a dotted name through imports, unless a local shadows its head."""
        head = expr
        while isinstance(head, cst.Attribute):
            head = head.value
        if isinstance(head, cst.Name) and self._shadowed(head.value):
            return None
        return self.info.qualname(expr)

    def transform(self, expr: cst.BaseExpression) -> transforms.Transform | None:
        """Return the transform ``expr`` names (a name, or ``partial(transform, ...)``)."""
        if isinstance(expr, cst.Call) and self.qualname(expr.func) in transforms.PARTIAL:
            if expr.args and expr.args[0].keyword is None:
                return self.transform(expr.args[0].value)
            return None
        if isinstance(expr, cst.Call):
            expr = expr.func  # decorator factory: @jax.jit(static_argnames=...)
        return transforms.lookup(self.qualname(expr), self.wrappers)

    def is_statement_call(self, node: cst.CSTNode) -> bool:
        """Tell whether ``node`` is a call used as a statement (its result discarded)."""
        return id(node) in self._statement_calls

    def is_write_root(self, node: cst.CSTNode) -> bool:
        """Tell whether ``node`` is the name a mutating method call (``x.append``) writes to."""
        return id(node) in self._write_roots

    def in_condition(self, node: cst.CSTNode) -> bool:
        """Tell whether ``node`` is (part of) the test of an if/while/ternary/assert."""
        return id(node) in self._conditions

    def is_outer(self, name: str) -> bool:
        """Tell whether ``name`` refers to state outside the traced computation."""
        for frame in reversed(self.stack):
            if name in frame.declared_outer:
                return True
            if name in frame.env or name in frame.locals:
                return False
            if frame.root:
                return True
        return True

    def is_module_global(self, name: str) -> bool:
        """Tell whether ``name`` read here refers to a module-level binding."""
        for frame in self.stack[1:]:
            if name in frame.env or name in frame.locals or name in frame.declared_outer:
                return False
        return name in self.info.assigned and not self._shadowed(name)

    def report(
        self, rule: Rule, node: cst.CSTNode, message: str, fix: Fix | NodeFix | None = None
    ) -> None:
        """Record a finding of ``rule`` at ``node`` (once per node)."""
        self.findings.setdefault((rule.code, id(node)), RawFinding(rule, node, message, fix))

    def jit_spec(self, func: cst.BaseExpression) -> tuple[frozenset[int], frozenset[str]] | None:
        """Return the static positions and names of the jitted callable ``func``, if known."""
        if isinstance(func, cst.Name):
            for frame in reversed(self.stack):
                if func.value in frame.jitted:
                    return frame.jitted[func.value]
            resolved = self.resolve_function(func)
            if resolved is None:
                return None
            app = self._decorators(resolved.fn)
            if app is None or not app.caches:
                return None
            return _static_params(resolved.fn, app)
        if isinstance(func, cst.Call):
            return self._call_spec(func)
        return None

    def _call_spec(self, call: cst.Call) -> tuple[frozenset[int], frozenset[str]] | None:
        t = transforms.lookup(self.qualname(call.func), self.wrappers)
        if t is None or not t.caches or not call.args or call.args[0].keyword is not None:
            return None
        app = from_keywords(t, call.args)
        target = self.resolve_function(call.args[0].value)
        if target is not None:
            return _static_params(target.fn, app)
        return frozenset(p for p in app.static_pos if p >= 0), app.static_names

    # Name resolution -----------------------------------------------------------
    def _shadowed(self, name: str) -> bool:
        return any(name in f.env or name in f.locals for f in self.stack[1:])

    def resolve_function(self, expr: cst.BaseExpression) -> Resolved | None:
        """Return the definition a call target refers to, if it is in this module."""
        if isinstance(expr, cst.Name):
            for k in range(len(self.stack) - 1, -1, -1):
                frame = self.stack[k]
                if isinstance(frame.node, cst.ClassDef) and k != len(self.stack) - 1:
                    continue
                if expr.value in frame.defs:
                    cls = frame.node if isinstance(frame.node, cst.ClassDef) else None
                    return Resolved(frame.defs[expr.value], self.stack[: k + 1], cls, False)
                if expr.value in frame.env or expr.value in frame.locals:
                    return None
            fn = self.info.functions.get(expr.value)
            return None if fn is None else Resolved(fn, self.stack[:1], None)
        if (
            isinstance(expr, cst.Attribute)
            and isinstance(expr.value, cst.Name)
            and expr.value.value in {"self", "cls"}
            and self.frame.cls is not None
        ):
            method = self._methods(self.frame.cls).get(expr.attr.value)
            if method is not None:
                return Resolved(method, self.stack[:1], self.frame.cls, True)
        return None

    def _methods(self, cls: cst.ClassDef) -> dict[str, cst.FunctionDef]:
        methods = self._class_methods.get(id(cls))
        if methods is None:
            methods = self._class_methods[id(cls)] = scope_names(cls.body).defs
        return methods

    # Function analysis ---------------------------------------------------------
    def analyse(
        self,
        fn: FunctionNode,
        env: dict[str, Taint],
        mode: Mode,
        closure: list[Frame],
        *,
        root: bool,
        cls: cst.ClassDef | None,
        style: Style,
    ) -> Taint:
        """Walk ``fn`` with parameters seeded from ``env``; return the taint it returns."""
        key = (id(fn), mode, root, style, tuple(sorted(env.items())))
        if key in self._memo:
            return self._memo[key]
        if id(fn) in self._active or self._analyses >= _MAX_ANALYSES:
            return Taint.UNKNOWN
        self._analyses += 1
        if isinstance(fn, cst.FunctionDef):
            names = scope_names(fn.body, fn.params)
        else:
            names = scope_names([], fn.params)
        frame = Frame(
            fn,
            mode,
            dict(env),
            names.locals,
            names.defs,
            cls,
            root,
            declared_outer=names.declared_outer,
            style=style,
        )
        saved_stack, saved_loops = self.stack, self.loops
        self.stack, self.loops = [*closure, frame], []
        self._active.add(id(fn))
        self._eval.cache.clear()
        try:
            if isinstance(fn, cst.Lambda):
                self.visit_expr(fn.body)
                frame.returns = self.value(fn.body)
            else:
                self.walk_suite(fn.body)
        finally:
            self._active.discard(id(fn))
            self.stack, self.loops = saved_stack, saved_loops
            self._eval.cache.clear()
        self._memo[key] = frame.returns
        return frame.returns

    def call_helper(self, target: Resolved, call: cst.Call) -> Taint:
        """Analyse a same-module function called from traced code with these arguments."""
        if self.mode not in TRACED_MODES and self.mode is not Mode.GRAD:
            return Taint.UNKNOWN
        fn = target.fn
        positional = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
        env = all_unknown(fn)
        offset = 1 if target.is_method else 0
        if target.is_method and positional and isinstance(call.func, cst.Attribute):
            env[positional[0]] = self.value(call.func.value)  # `self` as the caller sees it
        for i, arg in enumerate(call.args):
            if arg.star:
                break
            if arg.keyword is not None:
                if arg.keyword.value in env:
                    env[arg.keyword.value] = self.value(arg.value)
            elif i + offset < len(positional):
                env[positional[i + offset]] = self.value(arg.value)
        closes_over = len(target.closure) > 1 and not isinstance(
            target.closure[-1].node, cst.ClassDef
        )
        if Taint.TRACED not in env.values() and not closes_over:
            return Taint.UNKNOWN
        return self.analyse(
            fn,
            env,
            self.mode,
            target.closure,
            root=False,
            cls=target.cls,
            style=self.frame.style,
        )

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

    # Transforms ----------------------------------------------------------------
    def _decorators(self, fn: cst.FunctionDef) -> Application | None:
        app: Application | None = None
        for dec in fn.decorators:
            expr = dec.decorator
            t = self.transform(expr)
            if t is None:
                continue
            args: Sequence[cst.Arg] = expr.args if isinstance(expr, cst.Call) else ()
            this = from_keywords(t, args)
            app = this if app is None else app.combine(this)
        return app

    def trace_target(self, expr: cst.BaseExpression, app: Application) -> None:
        """Analyse the function ``expr`` denotes as traced by ``app``."""
        mode = max(self.mode, app.mode)
        style = self.frame.style.under(app.filter_style, app.stateful)
        if isinstance(expr, cst.Lambda):
            self.analyse(
                expr,
                seed_params(expr, app),
                mode,
                list(self.stack),
                root=True,
                cls=self.frame.cls,
                style=style,
            )
            return
        if isinstance(expr, cst.List | cst.Tuple):
            for el in expr.elements:
                self.trace_target(el.value, app)
            return
        if isinstance(expr, cst.Call) and expr.args and expr.args[0].keyword is None:
            q = self.qualname(expr.func)
            if q in transforms.PARTIAL:
                self.trace_target(expr.args[0].value, app.with_partial(expr))
                return
            inner = transforms.lookup(q, self.wrappers)
            if inner is not None:
                inner_app = app.combine(from_keywords(inner, expr.args))
                for target in _fn_args(inner, expr):
                    self.trace_target(target, inner_app)
            return
        resolved = self.resolve_function(expr)
        if resolved is not None:
            fn = resolved.fn
            if resolved.is_method:
                app = app.combine(Application(mode=app.mode, bound_pos=1))
            self.analyse(
                fn,
                seed_params(fn, app),
                mode,
                resolved.closure,
                root=True,
                cls=resolved.cls,
                style=style,
            )

    def _on_call(self, call: cst.Call) -> None:
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in MUTATING_METHODS:
            root = func.value
            while isinstance(root, cst.Attribute | cst.Subscript):
                root = root.value
            self._write_roots.add(id(root))
        t = transforms.lookup(self.qualname(call.func), self.wrappers)
        if t is not None:
            app = from_keywords(t, call.args)
            for target in _fn_args(t, call):
                self.trace_target(target, app)
        elif self.mode is not Mode.NONE and self.resolve_function(call.func) is not None:
            self.value(call)  # analyses the helper with these arguments

    # Statements ----------------------------------------------------------------
    def run(self) -> None:
        """Walk the whole module."""
        frame = Frame(self.module, Mode.NONE, defs=dict(self.info.functions))
        self.stack = [frame]
        self.walk_block(self.module.body)

    def walk_suite(self, suite: cst.BaseSuite) -> None:
        """Walk an indented block or a one-line suite."""
        self.walk_block(suite_statements(suite))

    def walk_block(self, stmts: Sequence[cst.BaseStatement | cst.BaseSmallStatement]) -> None:
        """Walk statements in order."""
        for stmt in stmts:
            self._eval.cache.clear()
            self.dispatch(stmt)
            if isinstance(stmt, cst.SimpleStatementLine):
                self.walk_block(stmt.body)
            elif isinstance(stmt, cst.BaseSmallStatement):
                self._small(stmt)
            else:
                self._compound(stmt)

    def _small(self, s: cst.BaseSmallStatement) -> None:
        if isinstance(s, cst.Assign):
            self.visit_expr(s.value)
            v = self._bind_value(s.value)
            for t in s.targets:
                self._visit_target(t.target)
                self.bind(t.target, s.value, v)
                self._note_binding(t.target, s.value)
        elif isinstance(s, cst.AnnAssign) and s.value is not None:
            self.visit_expr(s.value)
            self._visit_target(s.target)
            self.bind(s.target, s.value, self._bind_value(s.value))
            self._note_binding(s.target, s.value)
        elif isinstance(s, cst.AugAssign):
            self._visit_target(s.target)
            self.visit_expr(s.value)
            old = self._eval.name(s.target.value) if isinstance(s.target, cst.Name) else None
            self.bind(s.target, None, join(old or Taint.STATIC, self._bind_value(s.value)))
        elif isinstance(s, cst.Expr):
            if isinstance(s.value, cst.Call):
                self._statement_calls.add(id(s.value))
            self.visit_expr(s.value)
        elif isinstance(s, cst.Return) and s.value is not None:
            self.visit_expr(s.value)
            self.frame.returns = join(self.frame.returns, self.value(s.value))
        elif isinstance(s, cst.Assert):
            self.mark_condition(s.test)
            self.visit_expr(s.test)
            if s.msg is not None:
                self.visit_expr(s.msg)
        elif isinstance(s, cst.Raise):
            for part in (s.exc, s.cause.item if s.cause else None):
                if part is not None:
                    self.visit_expr(part)
        elif isinstance(s, cst.Del):
            self._visit_target(s.target)

    def _compound(self, s: cst.BaseStatement) -> None:
        if isinstance(s, cst.If):
            self._walk_if(s)
        elif isinstance(s, cst.For | cst.While):
            self._walk_loop(s)
        elif isinstance(s, cst.With):
            for item in s.items:
                self.visit_expr(item.item)
                if item.asname is not None:
                    self.bind(item.asname.name, None, self._bind_value(item.item))
            self.walk_suite(s.body)
        elif isinstance(s, cst.Try | cst.TryStar):
            self.walk_suite(s.body)
            for h in s.handlers:
                if h.type is not None:
                    self.visit_expr(h.type)
                if h.name is not None:
                    self.bind(h.name.name, None, Taint.STATIC)
                self.walk_suite(h.body)
            for extra in (s.orelse, s.finalbody):
                if extra is not None:
                    self.walk_suite(extra.body)
        elif isinstance(s, cst.FunctionDef):
            self._walk_def(s)
        elif isinstance(s, cst.ClassDef):
            self._walk_class(s)
        elif isinstance(s, cst.Match):
            self.visit_expr(s.subject)
            for case in s.cases:
                self.walk_suite(case.body)

    def _walk_if(self, s: cst.If) -> None:
        self.mark_condition(s.test)
        self.visit_expr(s.test)
        env = self.frame.env
        before = dict(env)
        if self.mode is not Mode.NONE and is_guard(s.test, self):
            for name in guarded_names(s.test):
                env[name] = Taint.UNKNOWN  # concrete inside `if not_jax_tracer(x):`
        self.walk_suite(s.body)
        after_body = self.frame.env
        self.frame.env = dict(before)
        if isinstance(s.orelse, cst.If):
            self.walk_block([s.orelse])
        elif s.orelse is not None:
            self.walk_suite(s.orelse.body)
        self.frame.env = _merge(after_body, self.frame.env)

    def _walk_loop(self, s: cst.For | cst.While) -> None:
        if isinstance(s, cst.For):
            self.visit_expr(s.iter)
        else:
            self.mark_condition(s.test)
            self.visit_expr(s.test)
        self.loops.append(set(scope_names(s.body).defs))
        # A second pass lets values traced late in the body reach its start.
        passes = 2 if self.mode is not Mode.NONE and len(self.loops) <= 2 else 1
        for i in range(passes):
            if i:
                self._eval.cache.clear()
                self.dispatch(s)
            if isinstance(s, cst.For):
                self._bind_iteration(s.target, s.iter)
            self.walk_suite(s.body)
        self.loops.pop()
        if s.orelse is not None:
            self.walk_suite(s.orelse.body)

    def _walk_def(self, fn: cst.FunctionDef) -> None:
        for dec in fn.decorators:
            self.visit_expr(dec.decorator)
        self.frame.env[fn.name.value] = Taint.STATIC
        cls = self.frame.node if isinstance(self.frame.node, cst.ClassDef) else None
        app = self._decorators(fn)
        if app is not None:
            if cls is not None and cls.name.value in self.info.pytree_classes:
                app = app.combine(Application(mode=app.mode, self_traced=True))
            style = self.frame.style.under(app.filter_style, app.stateful)
            self.analyse(
                fn,
                seed_params(fn, app),
                max(self.mode, app.mode),
                list(self.stack),
                root=True,
                cls=cls,
                style=style,
            )
        elif self.mode is Mode.NONE:
            self.analyse(
                fn,
                all_unknown(fn),
                Mode.NONE,
                list(self.stack),
                root=False,
                cls=cls,
                style=self.frame.style,
            )

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
            return (
                Taint.STATIC
                if isinstance(expr, cst.Integer | cst.SimpleString)
                else (Taint.UNKNOWN)
            )
        return self._eval.value(expr)

    def bind(self, target: cst.BaseExpression, value: cst.BaseExpression | None, v: Taint) -> None:
        """Bind an assignment target; unpack literal tuples element by element."""
        env = self.frame.env
        if isinstance(target, cst.Name):
            env[target.value] = v
        elif isinstance(target, cst.Tuple | cst.List):
            if (
                isinstance(value, cst.Tuple | cst.List)
                and len(value.elements) == len(target.elements)
                and not any(isinstance(e, cst.StarredElement) for e in value.elements)
            ):
                for t, e in zip(target.elements, value.elements, strict=True):
                    self.bind(t.value, e.value, self._bind_value(e.value))
            else:
                for t in target.elements:
                    self.bind(t.value, None, v)
        elif isinstance(target, cst.StarredElement):
            self.bind(target.value, None, v)
        elif isinstance(target, cst.Subscript | cst.Attribute):
            root = target.value
            while isinstance(root, cst.Subscript | cst.Attribute):
                root = root.value
            # Storing a traced value into a local container makes the container traced.
            if isinstance(root, cst.Name) and root.value in env and v is Taint.TRACED:
                env[root.value] = Taint.TRACED

    def _note_binding(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        if not isinstance(target, cst.Name):
            return
        name, frame = target.value, self.frame
        frame.jitted.pop(name, None)
        if isinstance(value, _UNHASHABLE):
            frame.unhashable.add(name)
        else:
            frame.unhashable.discard(name)
        if isinstance(value, cst.Call):
            spec = self._call_spec(value)
            if spec is not None:
                frame.jitted[name] = spec

    def _bind_iteration(self, target: cst.BaseExpression, it: cst.BaseExpression) -> None:
        if self.mode is Mode.NONE:
            self.bind(target, None, Taint.UNKNOWN)
            return
        if isinstance(it, cst.Call):
            q = self.qualname(it.func)
            args = [a.value for a in it.args if a.keyword is None]
            elements = target.elements if isinstance(target, cst.Tuple | cst.List) else None
            if q == "enumerate" and args and elements is not None and len(elements) == 2:
                self.bind(elements[0].value, None, Taint.STATIC)
                self._bind_iteration(elements[1].value, args[0])
                return
            if q == "zip" and elements is not None and len(elements) == len(args):
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
        self.bind(target, None, self._eval.value(it))

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
            mode = self.mode
            for rule, method in handlers:
                if mode in rule.modes:
                    method(node, self)

    def visit_expr(self, e: cst.CSTNode) -> None:
        """Visit an expression tree, dispatching rule hooks and finding transforms."""
        self.dispatch(e)
        if isinstance(e, cst.Name | cst.Lambda | cst.BaseNumber | cst.SimpleString):
            return
        if isinstance(e, cst.Attribute):
            self.visit_expr(e.value)
            return
        if isinstance(e, cst.Call):
            self._on_call(e)
            self.visit_expr(e.func)
            for arg in e.args:
                self.visit_expr(arg.value)
            return
        if isinstance(e, _COMPREHENSIONS):
            self._visit_comprehension(e)
            return
        for child in e.children:
            if isinstance(child, _EXPR_PARTS):
                self.visit_expr(child)

    def _visit_comprehension(self, e: cst.BaseExpression) -> None:
        assert isinstance(e, _COMPREHENSIONS)
        self.loops.append(set())
        saved = self._bind_comprehension(e.for_in, visit=True)
        try:
            if isinstance(e, cst.DictComp):
                self.visit_expr(e.key)
                self.visit_expr(e.value)
            else:
                self.visit_expr(e.elt)
        finally:
            self.loops.pop()
            self.frame.env.update(saved[0])
            for name in saved[1]:
                self.frame.env.pop(name, None)

    def _visit_target(self, target: cst.BaseExpression) -> None:
        # The written-to root name is not a read; its subscripts and bases are.
        if isinstance(target, cst.Subscript):
            self.dispatch(target)
            self._visit_target(target.value)
            for part in target.slice:
                self.visit_expr(part)
        elif isinstance(target, cst.Attribute):
            self.dispatch(target)
            self._visit_target(target.value)
        elif isinstance(target, cst.Tuple | cst.List):
            for el in target.elements:
                self._visit_target(el.value)
        elif isinstance(target, cst.StarredElement):
            self._visit_target(target.value)
        elif not isinstance(target, cst.Name):
            self.visit_expr(target)

    def mark_condition(self, test: cst.BaseExpression) -> None:
        """Mark ``test`` (and the and/or/not operands inside it) as a condition."""
        self._conditions.add(id(test))
        if isinstance(test, cst.BooleanOperation):
            self.mark_condition(test.left)
            self.mark_condition(test.right)
        elif isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            self.mark_condition(test.expression)


def _fn_args(t: transforms.Transform, call: cst.Call) -> list[cst.BaseExpression]:
    out: list[cst.BaseExpression] = []
    positional = [a for a in call.args if a.keyword is None and not a.star]
    for i in t.fn_positions:
        if i < len(positional):
            out.append(positional[i].value)
    out.extend(
        a.value for a in call.args if a.keyword is not None and a.keyword.value in t.fn_keywords
    )
    return out


def _merge(a: dict[str, Taint], b: dict[str, Taint]) -> dict[str, Taint]:
    out = dict(a)
    for k, v in b.items():
        out[k] = max(out.get(k, v), v)
    return out
