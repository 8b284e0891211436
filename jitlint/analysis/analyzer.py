"""Walk a module once: find traced functions, track traced values, and run the rules."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import libcst as cst

from jitlint.analysis import transforms
from jitlint.analysis.applications import (
    Application,
    all_unknown,
    container_kind,
    from_keywords,
    seed_params,
)
from jitlint.analysis.applications import static_params as _static_params
from jitlint.analysis.context import Reporter
from jitlint.analysis.cst_util import descendants
from jitlint.analysis.module_info import MUTATING_METHODS, ModuleInfo
from jitlint.analysis.rule_queries import RuleQueries
from jitlint.analysis.scopes import scope_names, suite_statements
from jitlint.analysis.taint import Evaluator, Frame, FunctionNode, Style
from jitlint.analysis.walker import Spec, Walker
from jitlint.model import TRACED_MODES, Fix, Mode, Taint

if TYPE_CHECKING:
    from jitlint.fixes.model import NodeFix

MAX_ANALYSES = 3000  # bound the work one pathological file can cause


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

    rule: Reporter
    node: cst.CSTNode
    message: str
    fix: Fix | NodeFix | None


class Analysis(RuleQueries, Walker):
    """Analyse one module with a set of rules; the context every rule hook receives.

    Rule hooks get this object as ``ctx``: the walking state and the taint queries come from
    ``Walker``; resolution, transforms and function analysis live here.
    """

    def __init__(
        self,
        module: cst.Module,
        info: ModuleInfo,
        rules: Sequence[Reporter],
        wrappers: frozenset[str],
    ) -> None:
        super().__init__(rules)
        self.module = module
        self.info = info
        self.wrappers = wrappers
        self.findings: dict[tuple[str, int], RawFinding] = {}
        self._eval = Evaluator(self)
        self._memo: dict[tuple[Any, ...], Taint] = {}
        self._active: set[int] = set()
        self._analyses = 0
        self.limit_reached = False  # the analysis bound cut work short: findings may be missing
        self._class_methods: dict[int, dict[str, cst.FunctionDef]] = {}
        self._traced_calls: set[int] = set()  # inner transform calls already traced

    # Context API for rules ------------------------------------------------------
    def qualname(self, expr: cst.BaseExpression) -> str | None:
        """Resolve a dotted name through imports, unless a local shadows its head."""
        head = expr
        while isinstance(head, cst.Attribute):
            head = head.value
        if isinstance(head, cst.Name) and self._shadowed(head.value):
            namespace = self._namespace(head.value)
            if namespace is None:
                return None
            text = self.info.qualname(expr) or ""
            return namespace + text[len(head.value) :]  # `xp.sum` with `xp = jnp`
        return self.info.qualname(expr)

    def _namespace(self, name: str) -> str | None:
        """Return the module a local name is bound to (`xp = jnp`), if it is one here."""
        for frame in reversed(self.stack[1:]):
            if name in frame.namespaces:
                return frame.namespaces[name]
            if name in frame.env or name in frame.locals:
                return None
        return None

    def transform(self, expr: cst.BaseExpression) -> transforms.Transform | None:
        """Return the transform ``expr`` names (a name, or ``partial(transform, ...)``)."""
        if isinstance(expr, cst.Call) and self.qualname(expr.func) in transforms.PARTIAL:
            if expr.args and expr.args[0].keyword is None:
                return self.transform(expr.args[0].value)
            return None
        if isinstance(expr, cst.Call):
            expr = expr.func  # decorator factory: @jax.jit(static_argnames=...)
        return transforms.lookup(self.qualname(expr), self.wrappers)

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

    def rebound_after_trace(self, name: str) -> bool:
        """Tell whether ``name`` is an enclosing function's local, closed over by the traced
        function and rebound by that function after the statement that made the traced one.

        jit caches by function identity: the trace keeps the value the name had then.
        """
        crossed, inner = False, None
        for frame in reversed(self.stack[1:]):
            if name in frame.env or name in frame.locals or name in frame.declared_outer:
                outside = frame.mode is Mode.NONE  # a traced enclosing function runs per trace
                fn = frame.node
                if not (crossed and outside and inner is not None):
                    return False
                if not isinstance(fn, cst.FunctionDef):
                    return False
                return _rebinds_after(fn, inner, name)
            crossed = crossed or frame.root
            inner = frame.node
        return False

    def is_module_global(self, name: str) -> bool:
        """Tell whether ``name`` read here refers to a module-level binding."""
        for frame in self.stack[1:]:
            if name in frame.env or name in frame.locals or name in frame.declared_outer:
                return False
        known = name in self.info.assigned or name in self.info.classes
        return known and not self._shadowed(name)

    def report(
        self, rule: Reporter, node: cst.CSTNode, message: str, fix: Fix | NodeFix | None = None
    ) -> None:
        """Record a finding of ``rule`` at ``node`` (once per node)."""
        self.findings.setdefault((rule.code, id(node)), RawFinding(rule, node, message, fix))

    def jit_spec(self, func: cst.BaseExpression) -> Spec | None:
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

    def is_jitted(self, func: cst.BaseExpression) -> bool:
        """Tell whether calling ``func`` calls a jitted function (its result is an array)."""
        return self.jit_spec(func) is not None

    def _call_spec(self, call: cst.Call) -> Spec | None:
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
                cls = frame.node if isinstance(frame.node, cst.ClassDef) else None
                if k == len(self.stack) - 1 and expr.value in frame.bound_defs:
                    # Code runs in order: here the name means its latest binding so far.
                    bound = frame.bound_defs[expr.value]
                    return None if bound is None else Resolved(bound, self.stack, cls, False)
                if expr.value in frame.defs:
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
        if id(fn) in self._active:
            return Taint.UNKNOWN
        if self._analyses >= MAX_ANALYSES:
            self.limit_reached = True
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
        params = fn.params
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            kind = container_kind(param)  # a list or dict of values, each maybe traced
            if kind is not None:
                frame.kinds[param.name.value] = kind
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
        # Analysed even without traced arguments: its side effects happen at trace time too.
        return self.analyse(
            fn,
            env,
            self.mode,
            target.closure,
            root=False,
            cls=target.cls,
            style=self.frame.style,
        )

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
        style = self.frame.style.under(app.filter_style, app.stateful, app.staged)
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
                self.trace_target(expr.args[0].value, self._with_partial(app, expr))
                return
            inner = transforms.lookup(q, self.wrappers)
            if inner is not None:
                self._traced_calls.add(id(expr))  # traced here, with the outer statics
                inner_app = app.combine(from_keywords(inner, expr.args))
                for target in _fn_args(inner, expr):
                    self.trace_target(target, inner_app)
            return
        if isinstance(expr, cst.Name) and expr.value in self.frame.partials:
            # `f = partial(f, flag=True)` earlier in this scope: trace what it bound.
            call, bound = self.frame.partials[expr.value]
            app = self._with_partial(app, call)
            resolved: Resolved | None = bound
        else:
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

    def _with_partial(self, app: Application, call: cst.Call) -> Application:
        """Return ``app`` for ``partial(f, ...)``: bound arguments as traced as they are here."""
        return app.with_partial(call, [self._bound_taint(a.value) for a in call.args[1:]])

    def _bound_taint(self, expr: cst.BaseExpression) -> Taint:
        if self.mode is not Mode.NONE:
            return self.value(expr)
        # Outside traced code a bound literal is a Python constant closed over by the trace.
        literal = isinstance(expr, cst.BaseNumber | cst.BaseString) or (
            isinstance(expr, cst.Name) and expr.value in {"True", "False", "None"}
        )
        return Taint.STATIC if literal else Taint.UNKNOWN

    def note_function_binding(
        self, name: str, value: cst.BaseExpression | cst.FunctionDef | None
    ) -> None:
        """Follow what a name of this scope means as bindings happen in order."""
        frame = self.frame
        frame.partials.pop(name, None)
        if isinstance(value, cst.FunctionDef):
            frame.bound_defs[name] = value
            return
        frame.bound_defs[name] = None
        if (
            isinstance(value, cst.Call)
            and value.args
            and value.args[0].keyword is None
            and self.qualname(value.func) in transforms.PARTIAL
        ):
            target = value.args[0].value
            if isinstance(target, cst.Name) and target.value in frame.partials:
                return  # a partial of a partial: not followed
            bound = self.resolve_function(target)
            if bound is not None:
                frame.partials[name] = (value, bound)

    def _on_call(self, call: cst.Call) -> None:
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in MUTATING_METHODS:
            root = func.value
            while isinstance(root, cst.Attribute | cst.Subscript):
                root = root.value
            self._write_roots.add(id(root))
        t = transforms.lookup(self.qualname(call.func), self.wrappers)
        if t is not None and id(call) not in self._traced_calls:
            app = from_keywords(t, call.args)
            for target in _fn_args(t, call):
                self.trace_target(target, app)
        elif self.mode is not Mode.NONE and self.resolve_function(call.func) is not None:
            self.value(call)  # analyses the helper with these arguments
        elif self.mode is not Mode.NONE and self.qualname(call.func) in transforms.TREE_MAPS:
            self.tree_map_value(call)

    def tree_map_value(self, call: cst.Call) -> Taint | None:
        """Analyse the lambda given to a tree map; return the taint of what it returns.

        The lambda runs at trace time, once per leaf, on the leaves of the trees that follow
        it, so its leaf parameters are as traced as those trees. Named callbacks are left
        alone (None): they are often Python-level pytree bookkeeping.
        """
        lead = transforms.TREE_MAPS.get(self.qualname(call.func) or "")
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        if lead is None or not positional or any(a.star for a in call.args):
            return None
        fn, trees = positional[0], positional[1:]
        if not isinstance(fn, cst.Lambda):
            return None
        env = all_unknown(fn)
        params = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
        for name in params[:lead]:
            env[name] = Taint.STATIC  # the key path
        for name, tree in zip(params[lead:], trees, strict=False):
            env[name] = self.value(tree)
        style = self.frame.style
        return self.analyse(
            fn, env, self.mode, list(self.stack), root=False, cls=self.frame.cls, style=style
        )

    # Statements ----------------------------------------------------------------
    def run(self) -> None:
        """Walk the whole module."""
        frame = Frame(self.module, Mode.NONE, defs=dict(self.info.functions))
        self.stack = [frame]
        self.walk_block(self.module.body)

    def _walk_def(self, fn: cst.FunctionDef) -> None:
        for dec in fn.decorators:
            self.visit_expr(dec.decorator)
        self.frame.env[fn.name.value] = Taint.STATIC
        if not fn.decorators:  # a decorated name may be bound to a wrapper
            self.note_function_binding(fn.name.value, fn)
        cls = self.frame.node if isinstance(self.frame.node, cst.ClassDef) else None
        app = self._decorators(fn)
        if app is not None:
            if cls is not None and cls.name.value in self.info.pytree_classes:
                app = app.combine(Application(mode=app.mode, self_traced=True))
            style = self.frame.style.under(app.filter_style, app.stateful, app.staged)
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


def _rebinds_after(fn: cst.FunctionDef, inner: cst.CSTNode, name: str) -> bool:
    """Tell whether ``fn`` binds ``name`` in a statement after the one holding ``inner``."""
    body = list(suite_statements(fn.body))
    for i, stmt in enumerate(body):
        if any(node is inner for node in descendants(stmt)):
            later = [s for s in body[i + 1 :] if isinstance(s, cst.BaseStatement)]
            return name in scope_names(later).locals
    return False
