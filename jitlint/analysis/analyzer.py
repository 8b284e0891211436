"""Walk a module once: find traced functions, track traced values, and run the rules."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeVar, cast

import libcst as cst

from jitlint.analysis import transforms
from jitlint.analysis.applications import (
    Application,
    all_unknown,
    array_annotation,
    container_kind,
    defaults_in_force,
    from_keywords,
    optional_parts,
    python_scalar_annotation,
    seed_params,
)
from jitlint.analysis.applications import static_params as _static_params
from jitlint.analysis.call_sites import (
    CallSites,
    Site,
    module_calls,
    module_method_calls,
    passed_anywhere,
    passed_by,
    python_value,
)
from jitlint.analysis.context import ProjectGlobal, Reporter
from jitlint.analysis.cst_util import (
    NOT_LITERAL,
    descendants,
    is_main_guard,
    is_stub,
    literal,
    only_called,
    passed_to,
    statements,
    variable_names,
)
from jitlint.analysis.kinds import CONTAINERS, NAMESPACES, Kind
from jitlint.analysis.knowledge import FLAX_RUNNERS, HAIKU_TRANSFORMS
from jitlint.analysis.module_info import (
    MUTATING_METHODS,
    RETURNS_NONE_METHODS,
    ModuleInfo,
    dotted,
    module_bases,
)
from jitlint.analysis.rule_queries import RuleQueries
from jitlint.analysis.scopes import (
    annotated_fields,
    constructions,
    param_names,
    return_statements,
    returned_call,
    returned_def,
    scope_names,
    self_attribute_stores,
    suite_statements,
    target_names,
    unpacked_calls,
)
from jitlint.analysis.taint import Evaluator, Frame, FunctionNode, Style, join, mixed_record
from jitlint.analysis.walker import Spec, Walker
from jitlint.model import TRACED_MODES, Fix, Mode, Taint

if TYPE_CHECKING:
    from jitlint.analysis.project import Definition, Project
    from jitlint.fixes.model import NodeFix

MAX_ANALYSES = 3000  # bound the work one pathological file can cause
_MAX_DEPTH = 12  # functions on one path from an entry point, when crossing modules


_ASSIGNMENTS = frozenset({cst.Assign, cst.AnnAssign, cst.AugAssign})
# What an argument of a call outside any trace evidently holds that changes the walk of the
# function it calls: arrays (hashed where a jit holds them static), lists, dicts.
_REWALKED_KINDS = frozenset({Kind.NUMPY, Kind.JAX, *CONTAINERS})


_R = TypeVar("_R")  # what a read of a call returns


@dataclass(frozen=True)
class Resolved:
    """A function definition a name refers to, with the scopes it closes over."""

    fn: cst.FunctionDef | cst.Lambda  # a lambda when a name bound to one is called
    closure: list[Frame]
    cls: cst.ClassDef | None
    is_method: bool = False
    owner: Analysis | None = None  # the module the definition is in, when not this one
    skip: int = 0  # leading call arguments the function does not receive (Module.apply)
    receiver: cst.BaseExpression | None = None  # what `self` is bound to at the call
    bound: cst.Call | None = None  # `partial(fn, ...)`: the arguments it binds come first
    # `self.hook(x)` that only subclasses define: their other definitions, run as well
    others: tuple[Resolved, ...] = ()

    @property
    def defined_here(self) -> bool:
        """Tell whether the function is defined in the module being linted."""
        return self.owner is None

    def import_qualname(self, expr: cst.BaseExpression) -> str | None:
        """Resolve a dotted name through the defining module's imports (None: this module)."""
        return None if self.owner is None else self.owner.info.qualname(expr)


# One step of the path from a traced entry point: the module, the function, its name, and
# the transform that starts the trace there (None for a function called from traced code).
TraceRef = tuple["Analysis", cst.CSTNode, str, str | None]


@dataclass
class RawFinding:
    """A finding before positions are known."""

    rule: Reporter
    node: cst.CSTNode
    message: str
    fix: Fix | NodeFix | None
    trace: tuple[TraceRef, ...] = ()


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
        *,
        project: Project | None = None,
        filename: str = "",
        name: str = "",
    ) -> None:
        super().__init__(rules)
        self.module = module
        self.info = info
        self.wrappers = wrappers
        self.project = project
        self.filename = filename
        self.name = name
        self.trace: list[TraceRef] = project.trace if project is not None else []
        self._module_frame: Frame | None = None
        self.findings: dict[tuple[str, int], RawFinding] = {}
        self._eval = Evaluator(self)
        self._memo: dict[tuple[Any, ...], Taint] = {}
        self._memo_findings: dict[tuple[Any, ...], frozenset[str]] = {}
        # Per-element taints of the tuple a walk returned, per walk and per call that ran it.
        self._memo_parts: dict[tuple[Any, ...], list[Taint] | None] = {}
        self._memo_self_stores: dict[tuple[Any, ...], frozenset[str]] = {}
        self._call_parts: dict[int, list[Taint]] = {}
        self._hooks: dict[tuple[int, str], list[Resolved]] = {}  # per class and method name
        self._method_attrs: dict[tuple[int, str], list[Resolved]] = {}  # likewise
        # calls `_factory_class` and `_closure_of_call` are reading: a name bound to a call
        # of itself (`model = model(training=True)`) resolves through that very call
        self._factories_open: set[int] = set()
        # per class: each attribute's `self.attr = value` stores in its methods
        self._attribute_stores: dict[int, dict[str, list[cst.BaseExpression | None]]] = {}
        self.last_parts: list[Taint] | None = None  # of the walk `analyse` just did
        self.last_self_stores: frozenset[str] = frozenset()  # likewise: its `self` stores
        self._active: set[int] = set()
        self._analyses = 0
        self.limit_reached = False  # the analysis bound cut work short: findings may be missing
        self._class_methods: dict[int, dict[str, cst.FunctionDef]] = {}
        self._class_members: dict[int, dict[str, cst.BaseExpression]] = {}
        self._traced_calls: set[int] = set()  # inner transform calls already traced
        self._called_at_once: dict[int, cst.Call] = {}  # transform call -> the call of it
        # a call given as an argument -> the call it is given to, and its position there
        self._handed: dict[int, tuple[cst.Call, int]] = {}
        self._call_sites = CallSites()
        self._calls_by_name: dict[str, list[Site]] | None = None
        self._partials: dict[str, list[cst.Call]] | None = None
        self._method_calls: dict[str, list[tuple[str, cst.Call]]] | None = None
        self._records_active: set[int] = set()
        self._decorating: set[int] = set()  # definitions whose decorator is being resolved
        self.helper_kinds: dict[int, Kind | None] = {}  # id(function) -> returned kind
        self._attribute_kinds: dict[int, dict[str, Kind]] = {}  # id(class) -> attr -> kind
        # id(function) -> its dicts of functions bound once (`metrics = {"a": lambda: ...}`)
        self._tables: dict[int, dict[str, cst.Dict]] = {}
        self._transformed: dict[str, list[str]] = {}
        self._flag_names: dict[int, frozenset[str]] = {}  # id(function) -> names it tests

    # Context API for rules ------------------------------------------------------
    def qualname(self, expr: cst.BaseExpression) -> str | None:
        """Resolve a dotted name through imports, unless a local shadows its head."""
        head = expr
        while type(head) is cst.Attribute:  # libcst's classes are final: faster than isinstance
            head = head.value
        if type(head) is cst.Name and self._shadowed(head.value):
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
        if type(expr) is cst.Call and self.qualname(expr.func) in transforms.PARTIAL:
            if expr.args and expr.args[0].keyword is None:
                return self.transform(expr.args[0].value)
            return None
        if type(expr) is cst.Call:
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
        if any(rule.code in handled for handled in self.caught):
            return  # `try: ... except jax.errors.ConcretizationTypeError:` handles it
        key = (rule.code, id(node))
        if self.project is not None:
            self.project.note_finding(self.filename)
        if key not in self.findings:
            trace = tuple(self.trace) if self.mode is not Mode.NONE else ()
            self.findings[key] = RawFinding(rule, node, message, fix, trace)

    def bound_jit_call(self, name: str) -> cst.Call | None:
        """Return the jit call a name of the current scope holds at this point of the walk
        (`fast = jax.jit(f)`, the latest binding when the name is rebound); None otherwise."""
        return self.stack[-1].jit_calls.get(name)

    def jit_spec(self, func: cst.BaseExpression) -> Spec | None:
        """Return the static positions and names of the jitted callable ``func``, if known."""
        if type(func) is cst.Name:
            for frame in reversed(self.stack):
                if func.value in frame.jitted:
                    return frame.jitted[func.value]
                if func.value in frame.products:
                    # `run = make_runner(step)`: the jitted function the factory returns
                    made = self._factory_product(frame.products[func.value])
                    if made is None or not isinstance(made.fn, cst.FunctionDef):
                        return None
                    app = self._decorators(made.fn)
                    if app is None or not app.caches:
                        return None
                    return _static_params(made.fn, app)
            resolved = self.resolve_function(func)
            if resolved is None or isinstance(resolved.fn, cst.Lambda):
                return None
            app = self._decorators(resolved.fn)
            if app is None or not app.caches:
                return None
            return _static_params(resolved.fn, app)
        if type(func) is cst.Call:
            return self._call_spec(func)
        if type(func) is cst.Attribute and type(func.value) is cst.Name:
            # `Policy.call` of a jitted static method (or a method called through its
            # class, `self` given explicitly): the call's arguments are the function's own
            resolved = self.resolve_function(func)
            if (
                resolved is None
                or not isinstance(resolved.fn, cst.FunctionDef)
                or resolved.cls is None
                or func.value.value != resolved.cls.name.value
            ):
                return None
            app = self._decorators(resolved.fn)
            if app is None or not app.caches:
                return None
            return _static_params(resolved.fn, app)
        return None

    def def_spec(self, fn: cst.FunctionDef) -> Spec | None:
        """Return the static parameters of a definition its decorators jit."""
        app = self._decorators(fn)
        if app is None or not app.caches:
            return None
        return _static_params(fn, app)

    def is_jitted(self, func: cst.BaseExpression) -> bool:
        """Tell whether calling ``func`` calls a jitted function (its result is an array)."""
        return self.jit_spec(func) is not None

    def _call_spec(self, call: cst.Call) -> Spec | None:
        t = transforms.lookup(self.qualname(call.func), self.wrappers)
        if t is None or not t.caches or not call.args or call.args[0].keyword is not None:
            return None
        app = from_keywords(t, call.args)
        target = self.resolve_function(call.args[0].value)
        if target is not None and isinstance(target.fn, cst.FunctionDef):
            # `jax.jit(model.generate, static_argnums=3)`: JAX counts after the bound `self`
            return _static_params(target.fn, app, int(target.is_method))
        return frozenset(p for p in app.static_pos if p >= 0), app.static_names

    @property
    def in_branch(self) -> bool:
        """Tell whether the code being walked is (called from) a branch `lax.cond` or
        `lax.switch` traces: every branch is traced, whichever one a call selects."""
        return self.mode is not Mode.NONE and any(via in _BRANCHES for _, _, _, via in self.trace)

    @property
    def repeats(self) -> bool:
        """Tell whether the code being walked runs many times per run of its caller: in a
        Python loop, or in (a function called from) a body a `lax` loop calls."""
        if self.loops:
            return True
        return self.mode is not Mode.NONE and any(
            via in _LOOP_BODIES for _, _, _, via in self.trace
        )

    @property
    def batched(self) -> bool:
        """Tell whether the code being walked is (called from) a function a `vmap` maps
        over a batch: it runs once per element, what it does not take from its batched
        arguments is the same for all of them."""
        return self.mode is not Mode.NONE and any(via in _BATCHING for _, _, _, via in self.trace)

    @property
    def loop_body(self) -> str | None:
        """Return the `lax` loop that calls the function being walked as its body."""
        if self.mode is Mode.NONE or not self.trace:
            return None
        _, fn, _, via = self.trace[-1]
        return via if via in _LOOP_BODIES and fn is self.scope else None

    # Name resolution -----------------------------------------------------------
    def _shadowed(self, name: str) -> bool:
        stack = self.stack
        for k in range(1, len(stack)):
            frame = stack[k]
            if name in frame.env or name in frame.locals:
                return True
        return False

    def applied_method(self, call: cst.Call) -> Resolved | None:
        """Resolve flax's `model.apply(variables, x, method=model.generate)` (or
        `method="generate"`, and `init`) to the method it runs: `generate(x)`, its
        variables (or key) not among its arguments."""
        func = call.func
        if type(func) is not cst.Attribute or func.attr.value not in FLAX_RUNNERS:
            return None
        chosen = next(
            (a.value for a in call.args if a.keyword is not None and a.keyword.value == "method"),
            None,
        )
        if type(chosen) is cst.SimpleString:
            name = chosen.evaluated_value
            if not isinstance(name, str) or not name.isidentifier():
                return None
            chosen = cst.Attribute(value=func.value, attr=cst.Name(name))
        if type(chosen) is not cst.Attribute:
            return None
        found = self.resolve_function(chosen)
        if found is None or not found.is_method or type(found.fn) is not cst.FunctionDef:
            return None
        return replace(found, skip=found.skip + 1)

    def resolve_function(
        self, expr: cst.BaseExpression, needle: bytes | None = None
    ) -> Resolved | None:
        """Return the definition a call target refers to, in this module or the project.

        ``needle``: follow into a module not read yet only if its text contains it.
        Several rules ask about one call: the answer is kept until the statement, the
        frame or a binding changes.
        """
        key = (id(expr), needle)
        known = self._resolutions.get(key)
        top = self.stack[-1] if self.stack else None
        depth = len(self.stack)
        if known is not None and known[0] is expr and known[1] is top and known[2] == depth:
            return cast("Resolved | None", known[3])
        found = self._resolve_uncached(expr, needle)
        self._resolutions[key] = (expr, top, depth, found)
        return found

    def _resolve_uncached(self, expr: cst.BaseExpression, needle: bytes | None) -> Resolved | None:
        found = self._resolve_function(expr, needle)
        if found is None or type(found.fn) is not cst.FunctionDef or not found.fn.decorators:
            return found
        if found.closure and found.closure[-1].decorated is found.fn:
            return found  # the decorator's own call of the function it wraps
        return self._through_decorator(found)

    def _through_decorator(self, found: Resolved) -> Resolved:
        """Resolve a call of ``@validate_sample def log_prob(...)`` to the wrapper the project
        decorator returns: that wrapper runs, and calls the decorated function through the
        decorator's parameter (bound here to it)."""
        fn = cast(cst.FunctionDef, found.fn)
        if len(fn.decorators) != 1 or id(fn) in self._decorating:
            return found
        expr = fn.decorators[0].decorator
        if type(expr) is not cst.Name and type(expr) is not cst.Attribute:
            return found
        self._decorating.add(id(fn))
        try:
            deco = self._resolve_function(expr, None)
        finally:
            self._decorating.discard(id(fn))
        if deco is None or type(deco.fn) is not cst.FunctionDef or deco.cls is not None:
            return found
        params = [p.name.value for p in (*deco.fn.params.posonly_params, *deco.fn.params.params)]
        wrapper = returned_def(deco.fn, every_path=False)
        if wrapper is None or len(params) != 1:
            return found
        names = scope_names(deco.fn.body, deco.fn.params)
        frame = Frame(deco.fn, Mode.NONE, all_unknown(deco.fn), names.locals, names.defs, None)
        frame.bound_defs[params[0]] = fn
        frame.decorated = fn
        return replace(found, fn=wrapper, closure=[*deco.closure, frame], owner=deco.owner)

    def _resolve_function(
        self, expr: cst.BaseExpression, needle: bytes | None = None
    ) -> Resolved | None:
        if type(expr) is cst.Name:
            for k in range(len(self.stack) - 1, -1, -1):
                frame = self.stack[k]
                in_class = type(frame.node) is cst.ClassDef
                if in_class and k != len(self.stack) - 1:
                    continue
                cls = cast(cst.ClassDef, frame.node) if in_class else None
                if k == len(self.stack) - 1 and expr.value in frame.lambdas:
                    # `h = lambda y: y * g` then `h(x)`: the lambda runs here, in the trace
                    return Resolved(frame.lambdas[expr.value], self.stack, cls, False)
                if k == len(self.stack) - 1 and expr.value in frame.partials:
                    # `g = partial(f, a)` then `g(x)`: `f(a, x)` runs here, in the trace
                    call, partial_of = frame.partials[expr.value]
                    others = tuple(replace(o, bound=call) for o in partial_of.others)
                    return replace(partial_of, bound=call, others=others)
                if k == len(self.stack) - 1 and expr.value in frame.bound_defs:
                    # Code runs in order: here the name means its latest binding so far.
                    bound = frame.bound_defs[expr.value]
                    if bound is None:  # `blk = Block(4)` then `blk(x)`: its `__call__`
                        made = frame.products.get(expr.value)
                        return self._instance_call(expr, expr, None) or (
                            None if made is None else self._closure_of_call(made, anywhere=True)
                        )
                    others = tuple(
                        Resolved(o, self.stack[:1], None)
                        for o in frame.alternatives.get(expr.value, ())
                    )
                    return Resolved(bound, self.stack, cls, False, others=others)
                bound = _function_given(frame, expr.value)
                if bound is not None:
                    # an enclosing function's parameter given a function by its caller
                    # (`while_loop(cond_fun=check, ...)`), never rebound there
                    return Resolved(bound, self.stack[: k + 1], cls, False)
                if expr.value in frame.defs:
                    defined = frame.defs[expr.value]
                    so_far = frame.bound_defs.get(expr.value) if k == 0 else None
                    if type(so_far) is cst.FunctionDef:
                        # a module function redefined later: code that runs now (a function
                        # called or traced as the module is run) reads the binding so far
                        defined = so_far
                    return Resolved(defined, self.stack[: k + 1], cls, False)
                if k < len(self.stack) - 1 and (
                    expr.value in frame.locals or type(frame.node) is cst.Module
                ):
                    # an enclosing function's `step = lambda s: lax.scan(body, s, xs)`, bound
                    # once: called here, it runs here
                    lam = _scope_lambda(frame.node, expr.value)
                    if lam is not None:
                        return Resolved(lam, self.stack[: k + 1], cls, False)
                    if type(frame.node) is cst.FunctionDef:
                        # `update = self.get_update()`, bound once: the function it returns
                        made = constructions(frame.node.body).get(expr.value)
                        returned = (
                            None if made is None else self._closure_of_call(made, anywhere=True)
                        )
                        if returned is None and made is None:
                            # `gc_init, gc_apply = GraphConvolution(16)`: the one it returns there
                            part = unpacked_calls(frame.node.body).get(expr.value)
                            if part is not None:
                                returned = self._closure_of_call(
                                    part[0], anywhere=True, index=part[1]
                                )
                        if returned is not None:
                            return returned
                if expr.value in frame.env or expr.value in frame.locals:
                    return self._instance_call(expr, expr, None)
            fn = self.info.functions.get(expr.value)
            if fn is not None:
                return Resolved(fn, self.stack[:1], None)
            return self._instance_call(expr, expr, None) or self._project_function(expr, needle)
        if (
            isinstance(expr, cst.Attribute)
            and isinstance(expr.value, cst.Name)
            and expr.value.value in {"self", "cls"}
            and (owner_cls := self.self_class(expr.value.value)) is not None
        ):
            method = self._methods(owner_cls).get(expr.attr.value) or self._inherited(
                owner_cls, expr.attr.value
            )
            if method is not None and not is_stub(method):
                return Resolved(method, self.stack[:1], owner_cls, _binds_first(method, True))
            hooks = self._subclass_hooks(owner_cls, expr.attr.value) or self._method_attribute(
                owner_cls, expr.attr.value
            )
            if hooks:
                return replace(hooks[0], others=tuple(hooks[1:]))
            if method is not None:
                return Resolved(method, self.stack[:1], owner_cls, _binds_first(method, True))
        if type(expr) is cst.Call:
            return self._constructed_call(expr) or self._closure_of_call(expr)
        if type(expr) is cst.Lambda:
            # `jax.vmap(lambda k: sample(k))(keys)`: the lambda runs here, in this scope
            return Resolved(expr, list(self.stack), self.frame.cls, False)
        if type(expr) is cst.Subscript and type(expr.value) is cst.Name:
            return self._table_entry(expr.value.value)
        if isinstance(expr, cst.Attribute):
            if self._foreign(expr):
                return None  # `jnp.sum`, `optax.adam`: no definition of the project
            return (
                self._super_call(expr)
                or self._class_member(expr)
                or self._haiku_method(expr)
                or self._record_member(expr)
                or self._instance_call(expr.value, expr, expr.attr.value)
                or self._instance_call(expr, expr, None)  # `self.encoder(x)`: its `__call__`
                or self._project_function(expr, needle)
            )
        return None

    def _filled(self, name: cst.Name | None, call: cst.Call) -> None:
        """`digits.append(index % base)` in traced code: the function's own list now holds a
        tracer, as `[a, b]` of tracers does (`np.stack(digits)` then converts one)."""
        frame = self.frame
        if (
            name is None
            or self.mode is Mode.NONE
            or frame.env.get(name.value) is Taint.TRACED
            or frame.kinds.get(name.value) is not Kind.SEQUENCE
            or name.value not in frame.locals
        ):
            return
        if any(
            self.value(a.value) is Taint.TRACED and not mixed_record(a.value, self.value)
            for a in call.args
        ):
            frame.env[name.value] = Taint.TRACED

    def _table_entry(self, name: str) -> Resolved | None:
        """Resolve `metrics[key]()` of a dict of functions the function walked binds once
        (`metrics = {"sharpe": lambda: ..., "drawdown": lambda: f(x)}`): the call runs one of
        them, each walked as run here (lambdas, and functions named there)."""
        frame = self.frame
        fn = frame.node
        if type(fn) is not cst.FunctionDef:
            return None
        tables = self._tables.get(id(fn))
        if tables is None:
            tables = self._tables[id(fn)] = _function_tables(fn)
        table = tables.get(name)
        if table is None:
            return None
        found: list[Resolved] = []
        for element in table.elements:
            value = element.value
            if type(value) is cst.Lambda:
                found.append(Resolved(value, self.stack, None, False))
            elif type(value) is cst.Name:
                resolved = self._resolve_function(value)
                if resolved is not None:
                    found.append(replace(resolved, others=()))
        if not found:
            return None
        return replace(found[0], others=tuple(found[1:]))

    def _foreign(self, expr: cst.Attribute) -> bool:
        """Tell whether ``expr`` (``mod.f``, ``mod.Cls.m``) starts at an import of a module
        outside the project: nothing there is resolved, so every other lookup is skipped."""
        head: cst.BaseExpression = expr
        while type(head) is cst.Attribute:
            head = head.value
        if not isinstance(head, cst.Name):
            return False
        target = self.info.imports.get(head.value)
        if target is None or self._shadowed(head.value):
            return False
        if self.project is None:
            return True  # per-file: other modules are not read
        root = target.partition(".")[0]
        return not self.project.is_module(root, self.filename)

    def project_global(self, expr: cst.BaseExpression) -> ProjectGlobal | None:
        """Return the global ``expr`` reads when it is ``mod.NAME...`` of a project module."""
        found = self.module_global(expr)
        if found is None:
            return None
        owner, name = found
        info = owner.info
        changes = None
        if info.is_stale_prone(name):
            changes = "mutated" if name in info.mutated else "reassigned"
        elif owner.project is not None and owner.project.rebound_elsewhere(owner, name):
            changes = "reassigned"
        shown = cst.Module([]).code_for_node(expr)
        return ProjectGlobal(shown, name, changes, name in info.mutable_globals)

    def module_global(self, expr: cst.BaseExpression) -> tuple[Analysis, str] | None:
        """Return (module, NAME) when ``expr`` reads ``mod.NAME...`` of another project module.

        ``mod`` is an imported project module (any spelling: ``import a.b``, ``from a import
        b``); ``NAME`` must be bound at that module's top level.
        """
        if self.project is None:
            return None
        chain: list[str] = []
        head = expr
        while isinstance(head, cst.Attribute):
            chain.append(head.attr.value)
            head = head.value
        if not isinstance(head, cst.Name) or head.value not in self.info.imports:
            return None
        if self._shadowed(head.value):
            return None
        parts = [*self.info.imports[head.value].split("."), *reversed(chain)]
        for k in range(len(parts) - 1, 0, -1):
            owner = self.project.module(".".join(parts[:k]), self.filename)
            if owner is not None:
                return (owner, parts[k]) if parts[k] in owner.info.assigned else None
        return None

    # Calls into other modules and into methods ----------------------------------------
    def module_frame(self) -> Frame:
        """Return the frame of this module's top level (for functions analysed from outside)."""
        if self.stack and isinstance(self.stack[0].node, cst.Module):
            return self.stack[0]
        if self._module_frame is None:
            self._module_frame = Frame(self.module, Mode.NONE, defs=dict(self.info.functions))
        return self._module_frame

    def _resolved(self, found: Definition, **kwargs: Any) -> Resolved | None:
        if found.fn is None:
            return None
        if found.cls is not None:
            kwargs["is_method"] = _binds_first(found.fn, kwargs.get("is_method", False))
        owner = None if found.owner is self else found.owner
        closure = [found.owner.module_frame()]
        return Resolved(found.fn, closure, found.cls, owner=owner, **kwargs)

    def _project_function(
        self, expr: cst.BaseExpression, needle: bytes | None = None
    ) -> Resolved | None:
        """Resolve ``pkg.mod.f`` / an imported ``f`` / ``Cls.method`` to a project function."""
        if self.project is None:
            return None
        q = self.qualname(expr)
        if q is None:
            return None
        if "." in q:
            found = self.project.resolve(q, self.filename, needle=needle)
        elif self.info.star_imports and q not in self.info.assigned:
            found = self.project.member(self, [q], needle=needle)  # `from .models import *`
        else:
            found = None
        return None if found is None else self._resolved(found)

    def _class_def(self, callee: cst.BaseExpression) -> Definition | None:
        from jitlint.analysis.project import Definition

        name = callee.value if type(callee) is cst.Name else ""
        if name in self.info.classes and not self._shadowed(name):
            return Definition(self, cls=self.info.classes[name])
        if self.project is None:
            return None
        return self.project.class_of(self, callee) if self.qualname(callee) else None

    def project_class(self, expr: cst.BaseExpression) -> cst.ClassDef | None:
        """Return the project class ``expr`` names (defined here or imported), if it does."""
        if not isinstance(expr, cst.Name | cst.Attribute):
            return None
        found = self._class_def(expr)
        return None if found is None else found.cls

    def is_record_param(self, name: str) -> bool:
        """A parameter annotated `Optional[State]` with `State` a project class that defines
        no `__bool__` or `__len__`: `if not state:` asks whether it was given."""
        fn = self.frame.node
        if type(fn) is not cst.FunctionDef or name in self.frame.fields:
            return False
        params = fn.params
        for p in (*params.posonly_params, *params.params, *params.kwonly_params):
            if p.name.value != name or p.annotation is None:
                continue
            parts = optional_parts(p.annotation.annotation)
            classes = [self.project_class(part) for part in parts]
            return bool(classes) and all(
                cls is not None and not {"__bool__", "__len__"} & scope_names(cls.body).defs.keys()
                for cls in classes
            )
        return False

    def self_class(self, name: str = "self") -> cst.ClassDef | None:
        """Return the class whose instance ``self`` (or ``cls``) names here: in a method, or
        in a function nested in one that does not bind the name itself."""
        for frame in reversed(self.stack):
            if frame.cls is not None:
                return frame.cls
            if isinstance(frame.node, cst.Module | cst.ClassDef):
                return None
            if name in frame.locals or name in frame.env:
                return None  # a parameter or variable of its own
        return None

    def nnx_param(self, name: str) -> str | None:
        """Say which flax nnx object a parameter of the function a transform traces holds,
        when its annotation or its callers show one: "optimizer" (`nnx.Optimizer`),
        "module" (another nnx object: a module, a project class deriving from one)."""
        frame = self.stack[-1]
        fn = frame.node
        if not frame.root or type(fn) is not cst.FunctionDef or name not in frame.instances:
            return None
        if name not in param_names(fn.params):
            return None
        built = frame.instances[name]
        q = self.qualname(built) or ""
        if q.startswith("flax.nnx."):
            return "optimizer" if q.endswith("Optimizer") else "module"
        found = self._class_def(built)
        if found is not None and found.cls is not None and self._derives_module(found, "flax.nnx."):
            return "module"
        return None

    def instance_class(self, expr: cst.BaseExpression) -> Definition | None:
        """Return the class of the object ``expr`` names, when a binding shows it."""
        if (
            type(expr) is cst.Attribute
            and type(expr.value) is cst.Name
            and expr.value.value == "self"
            and (owner_cls := self.self_class("self")) is not None
        ):
            # `self.encoder = Encoder(...)` in `setup`/`__init__`, or a field `encoder: Encoder`
            member = self._members(owner_cls).get(expr.attr.value)
            return None if member is None else self._class_def(member)
        if type(expr) is cst.Attribute and type(expr.value) is cst.Attribute:
            # `self.ac.pi`: the member `pi` of the class `self.ac` holds (bounded by the
            # dotted chain's length)
            owner = self.instance_class(expr.value)
            if owner is None or owner.cls is None:
                return None
            member = owner.owner._members(owner.cls).get(expr.attr.value)
            return None if member is None else owner.owner._class_def(member)
        if type(expr) is cst.Call:
            found = self._class_def(expr.func)  # `Nonbonded(...).to_reference()`
            if found is not None and found.cls is not None:
                return found
            return self._factory_class(expr)
        if type(expr) is not cst.Name:
            return None
        for frame in reversed(self.stack):
            if expr.value in frame.instances:
                found = self._class_def(frame.instances[expr.value])
                made = frame.constructions.get(expr.value)
                if (found is None or found.cls is None) and made is not None:
                    # `vae = StableVAE.create()`, `model = make_model()`: what it returns
                    return self._factory_class(made)
                return found
            bound = expr.value in frame.env or expr.value in frame.locals
            if bound and type(frame.node) is cst.FunctionDef:
                # not bound yet where the walk is (a rule reading the whole function
                # first): the one construction the function binds the name to
                made = constructions(frame.node.body).get(expr.value)
                if made is None or expr.value in param_names(frame.node.params):
                    return None
                return self._class_def(made.func)
            if bound and type(frame.node) is not cst.Module:
                return None
        callee = self.info.instances.get(expr.value)
        if callee is None or len(self.info.assigned.get(expr.value, ())) != 1:
            return None
        return self._class_def(callee)

    def _factory_class(self, call: cst.Call) -> Definition | None:
        """Return the project class a project function called here builds and returns on
        every path (`def model(): return VAE(latents=FLAGS.latents)`, then `model().init`)."""
        return self._unless_open(call, self._factory_class_of)

    def _unless_open(self, call: cst.Call, read: Callable[[cst.Call], _R]) -> _R | None:
        """Return ``read(call)``, or None while ``call`` is already being read: a name
        bound to a call of itself (`model = model(training=True)`) resolves through that
        very call, which would read it again without end."""
        if id(call) in self._factories_open:
            return None
        self._factories_open.add(id(call))
        try:
            return read(call)
        finally:
            self._factories_open.discard(id(call))

    def _factory_class_of(self, call: cst.Call) -> Definition | None:
        if type(call.func) is cst.Attribute:
            # `StableVAE.create()`: a classmethod of a project class returning `cls(...)`
            owner = self._class_def(call.func.value)
            if owner is None or owner.cls is None:
                return None
            made = self.resolve_function(call.func)
            if made is None or type(made.fn) is not cst.FunctionDef:
                return None
            returned = returned_call(made.fn)
            params = param_names(made.fn.params)
            if (
                returned is not None
                and type(returned.func) is cst.Name
                and params
                and returned.func.value == params[0]
                and any(
                    type(d.decorator) is cst.Name and d.decorator.value == "classmethod"
                    for d in made.fn.decorators
                )
            ):
                return owner
            return None
        if type(call.func) is not cst.Name:
            return None
        made = self.resolve_function(call.func)
        if made is None or type(made.fn) is not cst.FunctionDef or made.is_method:
            return None
        returned = returned_call(made.fn)
        if returned is None or not isinstance(returned.func, cst.Name | cst.Attribute):
            return None
        found = (made.owner or self)._class_def(returned.func)
        return found if found is not None and found.cls is not None else None

    def _instance_call(
        self, obj: cst.BaseExpression, func: cst.BaseExpression, attr: str | None
    ) -> Resolved | None:
        """Resolve ``obj(...)`` (its ``__call__``), ``obj.m(...)`` and ``obj.apply(v, ...)``."""
        found = self.instance_class(obj)
        if found is None or found.cls is None:
            return None
        skip = 0
        method = self._find_method(found, attr or "__call__")
        if method is None and attr == "apply" and self._is_flax_module(found):
            method, skip = self._find_method(found, "__call__"), 1
        if method is None:
            return None
        return self._resolved(method, is_method=True, skip=skip, receiver=obj)

    def _haiku_method(self, expr: cst.Attribute) -> Resolved | None:
        """Resolve ``net.apply`` / ``net.init`` of ``net = hk.transform(f)`` to ``f``.

        ``init(rng, *args)`` and ``apply(params, [state,] [rng,] *args)`` call ``f(*args)``:
        the leading arguments are haiku's own.
        """
        if not isinstance(expr.value, cst.Name) or expr.attr.value not in {"apply", "init"}:
            return None
        call = self._product(expr.value.value)
        with_rng = True
        if call is not None and self.qualname(call.func) == "haiku.without_apply_rng":
            with_rng = False
            inner = call.args[0].value if call.args else None
            if isinstance(inner, cst.Name):
                call = self._product(inner.value)
            else:
                call = inner if isinstance(inner, cst.Call) else None
        if call is None or not call.args or call.args[0].keyword is not None:
            return None
        q = self.qualname(call.func)
        if q not in HAIKU_TRANSFORMS:
            return None
        if expr.attr.value == "init":
            skip = 1
        else:
            skip = 1 + (q == "haiku.transform_with_state") + with_rng
        target = call.args[0].value
        if isinstance(target, cst.Lambda):
            return Resolved(target, list(self.stack), self.frame.cls, skip=skip)
        found = self.resolve_function(target)
        if found is None and isinstance(target, cst.Name) and target.value == expr.value.value:
            found = self._def_named(target.value)  # `f = hk.transform(f)`: the `def f` before
        return None if found is None else replace(found, skip=found.skip + skip)

    def _def_named(self, name: str) -> Resolved | None:
        """Return the nearest `def name` of the scopes being walked, rebound or not."""
        for k in range(len(self.stack) - 1, -1, -1):
            frame = self.stack[k]
            if isinstance(frame.node, cst.ClassDef):
                continue
            if name in frame.defs:
                return Resolved(frame.defs[name], self.stack[: k + 1], None, False)
        fn = self.info.functions.get(name)
        return None if fn is None else Resolved(fn, self.stack[:1], None)

    def attribute_kind(self, node: cst.Attribute) -> Kind | None:
        """Return the container kind of `self.x` when the class binds `x` once, in a method,
        to a list, tuple or dict display, or to a parameter whose default or annotation is
        one (`self.sizes = sizes` with `sizes=(32, 64)`): its length and truth value are
        Python values, and indexing it with a tracer fails."""
        cls = self.frame.cls
        if not (isinstance(node.value, cst.Name) and node.value.value == "self" and cls):
            return None
        kinds = self._attribute_kinds.get(id(cls))
        if kinds is None:
            kinds = self._attribute_kinds[id(cls)] = _container_attributes(self._methods(cls))
            for name in self.array_fields(cls):  # annotated as arrays, not kept static
                kinds.setdefault(name, Kind.JAX)
        kind = kinds.get(node.attr.value)
        if kind is Kind.JAX:
            # a field annotated as an array: one leaf of a traced (pytree) `self`
            return Kind.JAX if self.frame.env.get("self") is Taint.TRACED else None
        return kind

    def helper_kind(self, call: cst.Call) -> Kind | None:
        """Return what a project function called here returns on every walk so far."""
        found = self.resolve_function(call.func)
        if found is None or found.is_method:
            return None
        return (found.owner or self).helper_kinds.get(id(found.fn))

    def returned_taints(self, call: cst.Call, count: int) -> list[Taint] | None:
        """Return how traced each of the ``count`` elements ``call`` returned is, when its
        function's walk for this call returned a tuple of that length everywhere."""
        parts = self._call_parts.get(id(call))
        return parts if parts is not None and len(parts) == count else None

    def returned_kinds(self, call: cst.Call, count: int) -> list[Kind | None] | None:
        """Return the kinds a project function's `-> tuple[...]` annotation gives the
        ``count`` elements it returns: `dict[...]` a mapping, `list[...]` a sequence.
        Without an annotation, what its `return a, b` statements evidently build."""
        found = self.resolve_function(call.func)
        if found is None or not isinstance(found.fn, cst.FunctionDef):
            return None
        returns = found.fn.returns
        if returns is None:
            return _displayed_kinds(found.fn, count)
        ann = returns.annotation
        if not isinstance(ann, cst.Subscript) or _hint_head(ann.value) not in {"tuple", "Tuple"}:
            return None
        if len(ann.slice) != count:
            return None
        out: list[Kind | None] = []
        for element in ann.slice:
            index = element.slice
            head = (
                _hint_head(
                    index.value.value if isinstance(index.value, cst.Subscript) else index.value
                )
                if isinstance(index, cst.Index)
                else None
            )
            out.append(_HINT_KINDS.get(head or ""))
        return out

    def _record_member(self, expr: cst.Attribute) -> Resolved | None:
        """Resolve ``opt.update`` of ``opt = momo()`` (or of ``opt = Record(f, g)``) where the
        factory returns a record of functions, an optax ``GradientTransformation(init_fn,
        update_fn)`` or a project ``NamedTuple`` or dataclass: the function given for the
        field."""
        if not isinstance(expr.value, cst.Name):
            return None
        call = self._product(expr.value.value)
        if call is None or id(call) in self._records_active:
            return None  # `x = x.step()`: the product's own callee is being resolved
        self._records_active.add(id(call))
        try:
            return self._record_field(expr, call)
        finally:
            self._records_active.discard(id(call))

    def _record_field(self, expr: cst.Attribute, call: cst.Call) -> Resolved | None:
        q = self.qualname(call.func)
        if q in _OPTAX_CHAINS:
            return self._chained_field(expr, call)
        if q == "types.SimpleNamespace":  # `utils = SimpleNamespace(sampling=sampling)`
            given = next(
                (a.value for a in call.args if a.keyword and a.keyword.value == expr.attr.value),
                None,
            )
            return None if given is None else self.resolve_function(given)
        fields = self._record_fields(call.func)
        if fields is not None:  # `opt = Record(f, g)` here
            target = _field_argument(call, fields, expr.attr.value)
            return None if target is None else self.resolve_function(target)
        made = self._factory(call)
        if made is None:
            return None
        factory, scope = made
        record = returned_call(scope.fn)
        fields = None if record is None else (factory.owner or self)._record_fields(record.func)
        if record is None or fields is None:
            return None
        target = _field_argument(record, fields, expr.attr.value)
        if not isinstance(target, cst.Name) or target.value not in scope.defs:
            return None
        return Resolved(scope.defs[target.value], scope.closure, None, owner=factory.owner)

    def _chained_field(self, expr: cst.Attribute, call: cst.Call) -> Resolved | None:
        """Resolve ``tx.update`` of ``tx = optax.chain(clip(1.0), optax.sgd(lr))``: the chain
        runs every transformation's ``update`` in turn, each one of the project followed."""
        found: list[Resolved] = []
        for a in call.args:
            part = a.value
            if isinstance(part, cst.Tuple) and len(part.elements) == 2:
                part = part.elements[1].value  # `named_chain(("clip", clip(1.0)), ...)`
            if isinstance(part, cst.Name):
                made = self._product(part.value)
                if made is None:
                    continue
                part = made
            if isinstance(part, cst.Call) and id(part) not in self._records_active:
                self._records_active.add(id(part))
                try:
                    resolved = self._record_field(expr, part)
                finally:
                    self._records_active.discard(id(part))
                if resolved is not None:
                    found.extend((replace(resolved, others=()), *resolved.others))
        if not found:
            return None
        return replace(found[0], others=tuple(found[1:]))

    def _record_fields(self, callee: cst.BaseExpression) -> tuple[str, ...] | None:
        """Return the field names of a record class of functions, in order, or None."""
        q = self.qualname(callee) or ""
        if q.startswith("optax.") and q.rsplit(".", 1)[-1] in _OPTAX_RECORDS:
            return ("init", "update")
        found = self._class_def(callee) if isinstance(callee, cst.Name | cst.Attribute) else None
        if found is None or found.cls is None:
            return None
        if "__init__" in self._methods(found.cls):
            return None  # its own constructor: arguments need not be the fields
        return tuple(name for name, _ in annotated_fields(found.cls)) or None

    def _product(self, name: str) -> cst.Call | None:
        """Return the call whose result ``name`` holds here, when its binding shows one."""
        for frame in reversed(self.stack):
            if name in frame.products:
                return frame.products[name]
            if name in frame.env or name in frame.locals:
                return None
        return None

    def _constructor(self, build: cst.Call) -> Resolved | None:
        """Resolve ``Conv(3, key=key)`` to the `__init__` of the project equinox module it
        builds: equinox modules are made inside transforms (`eqx.filter_vmap(make)(keys)`),
        so their `__init__` runs in the trace."""
        if not isinstance(build.func, cst.Name | cst.Attribute):
            return None
        found = self._class_def(build.func)
        if found is None or found.cls is None or not self._is_equinox_module(found):
            return None
        method = self._find_method(found, "__init__")
        if method is None:
            return None
        return self._resolved(method, is_method=True, receiver=build)

    def _constructed_call(self, build: cst.Call) -> Resolved | None:
        """Resolve ``Block(4)(x)``: an instance of a project class built and called at once."""
        if not isinstance(build.func, cst.Name | cst.Attribute):
            return None
        found = self._class_def(build.func)
        if found is None or found.cls is None:
            return None
        method = self._find_method(found, "__call__")
        if method is None:
            return None
        return self._resolved(method, is_method=True, receiver=build)

    def _subclass_hooks(self, cls: cst.ClassDef, name: str) -> list[Resolved]:
        """Return the definitions of method ``name`` in this module's subclasses of ``cls``,
        when neither ``cls`` nor a base of it here defines one, or only an abstract stub: a
        template method (`self.ask_strategy(...)` in a base class, written by each strategy;
        `self.adapt(...)` of an `@abstractmethod` that MAML defines)."""
        from jitlint.analysis.project import Definition

        found = self._hooks.get((id(cls), name))
        if found is not None:
            return found
        out: list[Resolved] = []
        defined = (
            self._find_method(Definition(self, cls=cls), name)
            if len(self.info.classes) > 1
            else None
        )
        if len(self.info.classes) > 1 and (
            defined is None or (defined.fn is not None and is_stub(defined.fn))
        ):
            module = [self.module_frame()]
            for sub in self.info.classes.values():
                if sub is cls or not self._derives_from(sub, cls):
                    continue
                method = self._methods(sub).get(name)
                if method is not None:
                    out.append(Resolved(method, module, sub, _binds_first(method, True)))
        self._hooks[(id(cls), name)] = out
        return out

    def _method_attribute(self, cls: cst.ClassDef, name: str) -> list[Resolved]:
        """Return the methods the class's methods store in attribute ``name``, when they store
        nothing else there (`self._reset = self._reset_balance` or `self._reset_swing_up`,
        by configuration): `self._reset(rng)` runs one of them."""
        key = (id(cls), name)
        found = self._method_attrs.get(key)
        if found is not None:
            return found
        out: list[Resolved] = []
        if any(c is cls for c in self.info.classes.values()) and not re.search(
            rf"self\.{name}\s*(?::[^=\n]*)?=[^=]", self.info.text
        ):
            self._method_attrs[key] = out
            return out  # this module's class stores nothing in it
        methods = self._methods(cls)
        by_attr = self._attribute_stores.get(id(cls))
        if by_attr is None:
            by_attr = self._attribute_stores[id(cls)] = {}
            for attr, value in self_attribute_stores(cls):
                by_attr.setdefault(attr, []).append(value)
        stores = by_attr.get(name, [])
        if stores and all(
            type(v) is cst.Attribute
            and type(v.value) is cst.Name
            and v.value.value == "self"
            and v.attr.value in methods
            for v in stores
        ):
            module = [self.module_frame()]
            for method_name in dict.fromkeys(cast(cst.Attribute, v).attr.value for v in stores):
                method = methods[method_name]
                out.append(Resolved(method, module, cls, _binds_first(method, True)))
        elif len(stores) == 1 and stores[0] is not None:
            stored = self._stored_function(cls, name, stores[0])
            if stored is not None:
                out.append(stored)
        self._method_attrs[key] = out
        return out

    def _stored_function(
        self, cls: cst.ClassDef, name: str, value: cst.BaseExpression
    ) -> Resolved | None:
        """Resolve the one function a method stores in ``self.<name>``, jitted or not:
        `self._propose = jax.jit(_propose)` of a function the method defines (closing over
        its variables, unknown values) or of a module function."""
        if type(value) is cst.Call and value.args and self.transform(value.func) is not None:
            if value.args[0].keyword is not None or value.args[0].star:
                return None
            value = value.args[0].value  # the jitted function runs as the function does
        if type(value) is not cst.Name:
            return None
        for method in self._methods(cls).values():
            names = scope_names(method.body, method.params)
            inner = names.defs.get(value.value)
            if inner is None or not any(
                stored == name
                for stored, _ in self_attribute_stores(cls, frozenset({method.name.value}))
            ):
                continue
            frame = Frame(method, Mode.NONE, all_unknown(method), names.locals, names.defs, cls)
            return Resolved(inner, [self.module_frame(), frame], None, False)
        fn = self.info.functions.get(value.value)
        return None if fn is None else Resolved(fn, [self.module_frame()], None, False)

    def _derives_from(self, sub: cst.ClassDef, cls: cst.ClassDef) -> bool:
        """Tell whether ``sub`` derives from ``cls`` through classes of this module."""
        return any(base is cls for base in module_bases(sub, self.info.classes))

    def _class_member(self, expr: cst.Attribute) -> Resolved | None:
        """Resolve ``Cls.method`` of a class this module defines: a classmethod receives the
        class, a staticmethod or a plain function only the arguments given."""
        from jitlint.analysis.project import Definition

        head = expr.value
        if type(head) is not cst.Name or head.value not in self.info.classes:
            return None
        if self._shadowed(head.value):
            return None
        method = self._find_method(
            Definition(self, cls=self.info.classes[head.value]), expr.attr.value
        )
        return None if method is None else self._resolved(method, receiver=head)

    def _find_method(self, found: Definition, name: str) -> Definition | None:
        from jitlint.analysis.project import Definition

        assert found.cls is not None
        if self.project is not None:
            return self.project.method(found.owner, found.cls, name)
        cls: cst.ClassDef | None = found.cls
        seen: set[int] = set()
        while cls is not None and id(cls) not in seen:  # the class, then its bases here
            seen.add(id(cls))
            fn = found.owner._methods(cls).get(name)
            if fn is not None:
                return Definition(found.owner, fn=fn, cls=cls)
            bases = [b.value for b in cls.bases if b.keyword is None]
            cls = next(
                (
                    found.owner.info.classes[b.value]
                    for b in bases
                    if isinstance(b, cst.Name) and b.value in found.owner.info.classes
                ),
                None,
            )
        return None

    def _flax_param(self, call: cst.Call) -> transforms.Transform | None:
        """`self.param("kernel", init_fn, shape)` in a linen module: flax stages `init_fn`
        out (under `jax.eval_shape` in `apply`)."""
        func = call.func
        if not (
            type(func) is cst.Attribute
            and func.attr.value == "param"
            and isinstance(func.value, cst.Name)
            and func.value.value == "self"
        ):
            return None
        from jitlint.analysis.project import Definition

        cls = self.self_class()
        if cls is None or not self._is_flax_module(Definition(self, cls=cls)):
            return None
        return _FLAX_PARAM

    def _is_equinox_module(self, found: Definition) -> bool:
        return self._derives_module(found, "equinox.")

    def _is_flax_module(self, found: Definition) -> bool:
        return self._derives_module(found, "flax.")

    def _derives_module(self, found: Definition, library: str, depth: int = 0) -> bool:
        """Tell whether ``found`` derives, through project classes, from a `Module` of
        ``library`` (`flax.`, `equinox.`)."""
        assert found.cls is not None
        for arg in found.cls.bases:
            q = found.owner.info.qualname(arg.value) or ""
            if q.startswith(library) and q.endswith("Module"):
                return True
            base = found.owner._class_def(arg.value)
            if base is None or base.cls is None or depth >= 8:
                continue
            if base.owner._derives_module(base, library, depth + 1):
                return True
        return False

    def _super_call(self, expr: cst.Attribute) -> Resolved | None:
        """Resolve ``super().m`` inside a method to the base class's ``m``."""
        call = expr.value
        cls = self.frame.cls
        if not (
            type(call) is cst.Call
            and isinstance(call.func, cst.Name)
            and call.func.value == "super"
            and cls is not None
        ):
            return None
        from jitlint.analysis.project import Definition

        for arg in cls.bases:
            base = self._class_def(arg.value)
            if base is None or base.cls is None:
                continue
            method = self._find_method(Definition(base.owner, cls=base.cls), expr.attr.value)
            if method is not None:
                return self._resolved(method, is_method=True, receiver=cst.Name("self"))
        return None

    def _members(self, cls: cst.ClassDef) -> dict[str, cst.BaseExpression]:
        """Map the attributes of ``cls``'s instances to the class that builds them.

        An attribute counts when every binding the class body shows gives it one class: a
        field annotated with a class name, or ``self.name = Cls(...)`` in a method. Whether
        that class is one of the project's is for the caller to find out.
        """
        members = self._class_members.get(id(cls))
        if members is not None:
            return members
        seen: dict[str, set[str]] = {}
        found: dict[str, cst.BaseExpression] = {}

        def note(name: str, callee: cst.BaseExpression | None) -> None:
            spelled = dotted(callee) if callee is not None else None
            seen.setdefault(name, set()).add(spelled or "")  # "": not a class by name
            if callee is not None and spelled:
                found[name] = callee

        for line in suite_statements(cls.body):
            for stmt in line.body if isinstance(line, cst.SimpleStatementLine) else ():
                if isinstance(stmt, cst.AnnAssign) and isinstance(stmt.target, cst.Name):
                    ann = stmt.annotation.annotation
                    kind = isinstance(ann, cst.Name | cst.Attribute)
                    note(stmt.target.value, ann if kind else None)
        for method in self._methods(cls).values():
            # `def __init__(self, ball: Ball)`, then `self.ball = ball`
            typed = {
                p.name.value: p.annotation.annotation
                for p in (*method.params.params, *method.params.kwonly_params)
                if p.annotation is not None
                and isinstance(p.annotation.annotation, cst.Name | cst.Attribute)
            }
            if method.name.value == "__init__":
                # `TinyGP(spec, lc)` everywhere the module builds one, `spec` bound once to
                # `KernelSpec(...)`: then `self.kernel_spec = kernel_spec` holds a KernelSpec
                for name, made in self._constructor_instances(cls, method).items():
                    if isinstance(made, cst.Name | cst.Attribute):
                        typed.setdefault(name, made)
            for node in statements(method.body):
                if type(node) is cst.Assign:
                    targets = [t.target for t in node.targets]
                    value: cst.BaseExpression | None = node.value
                elif type(node) is cst.AnnAssign or type(node) is cst.AugAssign:
                    targets = [node.target]
                    value = node.value if isinstance(node, cst.AnnAssign) else None
                else:
                    continue
                for target in targets:
                    if (
                        type(target) is cst.Attribute
                        and isinstance(target.value, cst.Name)
                        and target.value.value == "self"
                    ):
                        callee = value.func if isinstance(value, cst.Call) else None
                        if isinstance(value, cst.Name) and value.value in typed:
                            callee = typed[value.value]
                        if (
                            isinstance(callee, cst.Attribute)
                            and isinstance(callee.value, cst.Name)
                            and callee.value.value == "self"
                        ):
                            # `self.table = self.generate_table()`: what that method builds
                            callee = self._built_by(cls, callee.attr.value)
                        note(target.attr.value, callee)
        members = {n: found[n] for n, codes in seen.items() if len(codes) == 1 and n in found}
        self._class_members[id(cls)] = members
        return members

    def _built_by(self, cls: cst.ClassDef, name: str) -> cst.BaseExpression | None:
        """Return the callee that ``cls``'s method ``name`` calls to build what it returns
        (`return AliasMultinomial(pdf)`)."""
        method = self._methods(cls).get(name)
        returned = None if method is None else returned_call(method)
        return None if returned is None else returned.func

    def _trace_setup(
        self, fn: cst.FunctionDef, cls: cst.ClassDef, mode: Mode, style: Style
    ) -> None:
        """Analyse a flax module's ``setup`` when one of its methods is traced.

        flax runs ``setup`` lazily, on the first attribute access inside ``apply``: under
        ``jax.jit(model.apply)`` it runs in the trace, so its JAX operations are traced.
        """
        from jitlint.analysis.project import Definition

        setup = self._methods(cls).get("setup")
        if setup is None or setup is fn or not self._is_flax_module(Definition(self, cls=cls)):
            return
        env = all_unknown(setup)
        # flax binds what setup assigns to `self` to this module instance, in the trace.
        frame = self.module_frame()
        self.analyse(setup, env, mode, [frame], root=False, cls=cls, style=style, owns_self=True)

    def _inherited(self, cls: cst.ClassDef, name: str) -> cst.FunctionDef | None:
        """Return method ``name`` a base class of this module defines, the nearest bases
        first, left to right (Python's MRO for single inheritance); `self` stays ``cls``."""
        for base in module_bases(cls, self.info.classes, self._shadowed):
            method = self._methods(base).get(name)
            if method is not None:
                return method
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
        via: str | None = None,
        owns_self: bool = False,
        kinds: Mapping[str, Kind] | None = None,
        instances: Mapping[str, cst.BaseExpression] | None = None,
        constants: Mapping[str, cst.BaseExpression] | None = None,
        namespaces: Mapping[str, str] | None = None,
        functions: Mapping[str, cst.FunctionDef] | None = None,
        parts: Mapping[str, list[Taint]] | None = None,
        outer_params: frozenset[str] = frozenset(),
    ) -> Taint:
        """Walk ``fn`` with parameters seeded from ``env``; return the taint it returns.

        ``via`` names the transform that starts a trace at ``fn``, for the trace path;
        ``kinds`` what the caller's arguments evidently hold (a NumPy array, a list).
        """
        # An entry point under equinox's filter transforms: a parameter every call passes a
        # Python value is static.
        if (
            root
            and mode in TRACED_MODES
            and not style.traced_attrs
            and cls is None
            and len(closure) == 1
            and isinstance(fn, cst.FunctionDef)
        ):
            python = self._python_params(fn)
            env = {
                k: Taint.STATIC if k in python and v is Taint.TRACED else v for k, v in env.items()
            }
        # What the parameters and the enclosing functions' names evidently hold is part of
        # the walk's input: a loop body indexing a closed-over NumPy array is walked again.
        seen = sorted((k, v.value) for k, v in kinds.items()) if kinds else []
        for outer in closure:
            if type(outer.node) is cst.Module:
                continue
            if outer.kinds:
                seen.extend((k, v.value) for k, v in outer.kinds.items() if v is not None)
            # an enclosing function's parameter given a function (`cond_fun=check`)
            seen.extend(
                (k, str(id(v)))
                for k in outer.bound_defs
                if (v := _function_given(outer, k)) is not None
            )
        if instances:
            seen.extend((k, dotted(v) or "") for k, v in instances.items())
        if constants:
            # Only the flags the function tests (`if verbose:`) can change its walk.
            constants = self._flag_constants(fn, constants)
            seen.extend((k, cst.Module([]).code_for_node(v)) for k, v in constants.items())
        if namespaces:
            seen.extend(namespaces.items())
        if functions:
            seen.extend((k, str(id(v))) for k, v in functions.items())
        if parts:
            seen.extend((k, ",".join(str(p.value) for p in v)) for k, v in parts.items())
        if outer_params:
            seen.extend(("outer", k) for k in sorted(outer_params))
        # A `lax` loop's body is walked as one even when a walk as another transform's
        # target (its own `@jax.jit`) came first: what it hands back in its carry is read
        # again by the next iteration, which only a walk as the body checks.
        body = via if via in _LOOP_BODIES else None
        key = (id(fn), mode, root, style, owns_self, tuple(sorted(env.items())), tuple(seen), body)
        project = self.project
        self.last_parts = None
        self.last_self_stores = frozenset()
        if key in self._memo:
            if project is not None:  # its findings are this walk's too
                for module in self._memo_findings.get(key, ()):
                    project.note_finding(module)
            self.last_parts = self._memo_parts.get(key)
            self.last_self_stores = self._memo_self_stores.get(key, frozenset())
            return self._memo[key]
        if id(fn) in self._active:
            return Taint.UNKNOWN
        if self._analyses >= MAX_ANALYSES:
            self.limit_reached = True
            return Taint.UNKNOWN
        if project is not None:
            if project.budget <= 0:
                project.warn("project analysis reached its bound on analysed functions")
                return Taint.UNKNOWN
            project.budget -= 1
        self._analyses += 1
        logged = len(project.log) if project is not None else 0
        if mode is not Mode.NONE and cls is not None and isinstance(fn, cst.FunctionDef):
            self._trace_setup(fn, cls, mode, style)
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
            owns_self=owns_self,
            outer_params=outer_params,
        )
        params = fn.params
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            kind = container_kind(param)  # a list or dict of values, each maybe traced
            if kind is not None:
                frame.kinds[param.name.value] = kind
            elif (
                param.annotation is not None
                and env.get(param.name.value) is Taint.TRACED
                and array_annotation(param.annotation.annotation)
            ):
                frame.kinds[param.name.value] = Kind.JAX  # `x: jax.Array`, traced: a tracer
        if type(params.star_arg) is cst.Param:
            frame.kinds[params.star_arg.name.value] = Kind.SEQUENCE  # `*args` is a tuple
        if params.star_kwarg is not None:
            frame.kinds[params.star_kwarg.name.value] = Kind.MAPPING  # `**kwargs` a dict
        if kinds:
            frame.kinds.update(kinds)
        if instances:
            frame.instances.update(instances)
        if namespaces:
            frame.namespaces.update(namespaces)  # `xnp` left at its default `np`
        if functions:
            frame.bound_defs.update(functions)  # `imgfunc=random_img_gen`: a callback
        if parts:
            frame.parts.update(parts)
        if constants and isinstance(fn, cst.FunctionDef):
            rebound = scope_names(fn.body).locals | names.declared_outer
            frame.constants = {k: v for k, v in constants.items() if k not in rebound}
        if isinstance(fn, cst.FunctionDef):
            if root and cls is None and len(closure) == 1:
                frame.instances.update(self._passed_instances(fn))
                for name, given in self._passed_functions(fn).items():
                    if name not in frame.bound_defs:
                        frame.bound_defs[name] = given[0]
                        frame.alternatives[name] = given[1:]
                for name, kind in self._passed_kinds(fn).items():
                    frame.kinds.setdefault(name, kind)
            frame.instances.update(_annotated_instances(fn))
        saved_stack, saved_loops, saved_sweeps = self.stack, self.loops, self.sweeps
        # A `try` handles errors of its own body's code: a function it calls is still
        # reported (`try: jax.jit(f)(x) except TracerBoolConversionError:` shows f's bug).
        saved_caught, self.caught = self.caught, []
        self.stack, self.loops, self.sweeps = [*closure, frame], [], []
        self._active.add(id(fn))
        self._new_facts()
        traced = mode is not Mode.NONE
        if traced:
            name = fn.name.value if isinstance(fn, cst.FunctionDef) else "<lambda>"
            self.trace.append((self, fn, name, via))
        try:
            if isinstance(fn, cst.Lambda):
                self.visit_expr(fn.body)
                frame.returns = self.value(fn.body)
            else:
                self.walk_suite(fn.body)
        finally:
            if traced:
                self.trace.pop()
            self._active.discard(id(fn))
            self.stack, self.loops, self.sweeps = saved_stack, saved_loops, saved_sweeps
            self.caught = saved_caught
            self._new_facts()
        self._memo[key] = frame.returns
        self._memo_parts[key] = None if frame.return_mixed else frame.return_parts
        self.last_parts = self._memo_parts[key]
        self.last_self_stores = self._memo_self_stores[key] = frozenset(frame.self_stores)
        kinds_seen = frame.return_kinds if isinstance(fn, cst.FunctionDef) else set()
        if type(fn) is cst.Lambda:
            kinds_seen = {self._eval.kind(fn.body)} if mode is not Mode.NONE else set()
        if kinds_seen:
            # One kind on every return of every walk so far; None once two disagree.
            kind = kinds_seen.pop() if len(kinds_seen) == 1 else None
            before = self.helper_kinds.get(id(fn), kind)
            self.helper_kinds[id(fn)] = kind if before is kind else None
        if project is not None and len(project.log) > logged:
            self._memo_findings[key] = frozenset(project.log[logged:])
        return frame.returns

    def _passed_instances(self, fn: cst.FunctionDef) -> dict[str, cst.BaseExpression]:
        """Return the parameters of an entry point that every call in this module passes an
        instance of the same project class (`loss(MLP(key), x)`, or a module-level name bound
        once to `MLP(key)`), with that class: its methods called on them are followed.

        The calls are those of the function's name and of module-level names bound once to
        a transform of it (`step = eqx.filter_jit(loss)`).
        """
        if not self.info.classes and self.project is None:
            return {}  # no class of the project to be an instance of
        positional = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
        return self._instances_given(self._call_sites_of(fn), positional)

    def _instances_given(
        self, sites: Sequence[Site], positional: list[str], *, in_frames: bool = False
    ) -> dict[str, cst.BaseExpression]:
        """Return the parameters (named by position in ``positional``) that every one of the
        calls ``sites`` lists gives an instance of the same project class, with that class:
        built there, a module-level name bound once to one, or the `self` of a method of
        the class the call is written in (`_p_generate(self, ...)` in its `__call__`);
        ``in_frames``: or a name the functions being walked know the class of."""
        seen: dict[str, str | None] = {}
        classes: dict[str, cst.BaseExpression] = {}
        for call, where in sites:
            passed = passed_to(positional, call)
            if passed is None:
                return {}
            for param, value in passed:
                cls = self._instance_expr(value) or self._self_of(value, where)
                if cls is None and in_frames and type(value) is cst.Name:
                    cls = next(
                        (
                            f.instances[value.value]
                            for f in reversed(self.stack)
                            if value.value in f.instances
                        ),
                        None,
                    )
                text = None if cls is None else dotted(cls)
                if param in seen and seen[param] != text:
                    text = None
                seen[param] = text
                if cls is not None:
                    classes[param] = cls
        return {p: classes[p] for p, text in seen.items() if text is not None}

    def _constructor_instances(
        self, cls: cst.ClassDef, init: cst.FunctionDef
    ) -> dict[str, cst.BaseExpression]:
        """Return the parameters of ``cls``'s ``__init__`` that every call of the class's
        name in this module gives an instance of the same project class, with that class."""
        if not self.info.classes and self.project is None:
            return {}
        positional = [*init.params.posonly_params, *init.params.params][1:]
        params = {p.name.value for p in positional if p.annotation is None}
        if not any(
            type(value) is cst.Name and value.value in params
            for _, value in self_attribute_stores(cls, _CONSTRUCTOR)
        ):
            return {}  # no parameter stored as it is: nothing to learn from the calls
        name = cls.name.value
        if not re.search(rf"(?<!class )\b{re.escape(name)}\(", self.info.text):
            return {}  # the module never builds one itself
        if self._calls_by_name is None:
            self._calls_by_name = module_calls(self.module)
            self._transformed = self._module_transforms()
        sites = self._calls_by_name.get(name, [])
        return self._instances_given(sites, [p.name.value for p in positional])

    def _self_of(
        self, expr: cst.BaseExpression, where: cst.FunctionDef | None
    ) -> cst.BaseExpression | None:
        """Return the name of the module's class whose method ``where`` is, when ``expr`` is
        that method's `self`."""
        if where is None or type(expr) is not cst.Name or expr.value != "self":
            return None
        params = where.params.params
        if not params or params[0].name.value != "self" or where.decorators:
            return None
        for cls in self.info.classes.values():
            if any(stmt is where for stmt in cls.body.body):
                return cls.name
        return None

    def _passed_kinds(self, fn: cst.FunctionDef) -> dict[str, Kind]:
        """Return the parameters of an entry point that every call in this module passes a
        Python container display of one kind (`f(1, [1.0, 2.0])`): a list stays a list of
        tracers under jit, so its length is static and indexing it with a tracer fails."""
        calls = [call for call, _ in self._call_sites_of(fn)]
        if not calls:
            return {}
        positional = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
        seen: dict[str, Kind | None] = {}
        for call in calls:
            passed = passed_to(positional, call)
            if passed is None:
                return {}
            for param, value in passed:
                kind: Kind | None = None
                if isinstance(value, cst.List | cst.Tuple | cst.ListComp):
                    kind = Kind.SEQUENCE
                elif isinstance(value, cst.Dict | cst.DictComp):
                    kind = Kind.MAPPING
                seen[param] = kind if seen.get(param, kind) is kind else None
        return {p: k for p, k in seen.items() if k is not None}

    def call_sites(self, fn: cst.FunctionDef) -> list[cst.Call]:
        """Return the calls of module-level function ``fn`` in this module: of its name, and
        of the module-level names bound once to a transform of it."""
        return [call for call, _ in self._call_sites_of(fn)]

    def attribute_reads(self, attr: str) -> int:
        """Count the attributes named ``attr`` the module reads or writes (`self.f`)."""
        return self._call_sites.attribute_reads(attr, self.module)

    def method_call_sites(self, cls: cst.ClassDef, fn: cst.FunctionDef) -> list[cst.Call]:
        """Return the calls `obj.<fn>(...)` in this module on a module-level name bound once
        to an instance of ``cls`` (`noise = GaussianNoise(...)`, `noise.sample([3, 2])`), or
        of a class of the module derived from it that does not define ``fn`` again."""
        if self._method_calls is None:
            self._method_calls = module_method_calls(self.module)
        out = []
        for receiver, call in self._method_calls.get(fn.name.value, ()):
            made = self.info.instances.get(receiver)
            if made is None or len(self.info.assigned.get(receiver, ())) != 1:
                continue
            spelled = dotted(made)
            sub = self.info.classes.get(spelled or "")
            if spelled == cls.name.value or (
                sub is not None and self._inherits_method(sub, cls, fn.name.value)
            ):
                out.append(call)
        return out

    def _inherits_method(self, sub: cst.ClassDef, cls: cst.ClassDef, name: str) -> bool:
        """Tell whether ``sub`` derives from ``cls`` and runs its method ``name``: no class
        on the way, ``sub`` included, defines it again."""
        for current in (sub, *module_bases(sub, self.info.classes)):
            if current is cls:
                return True
            if any(
                isinstance(s, cst.FunctionDef) and s.name.value == name for s in current.body.body
            ):
                return False
        return False

    def _passed_at_module(self, fn: cst.FunctionDef) -> tuple[frozenset[int], frozenset[str]]:
        """Return the positions and keywords the module's own calls of a module-level
        function with defaults pass: under jit each is a tracer in that call."""
        params = fn.params
        if not any(p.default is not None for p in (*params.params, *params.kwonly_params)):
            return frozenset(), frozenset()
        name = fn.name.value
        if not self.may_call(name) or name in self.info.assigned or name in self.info.ambiguous:
            return frozenset(), frozenset()
        if sum(type(s) is cst.FunctionDef and s.name.value == name for s in self.module.body) > 1:
            return frozenset(), frozenset()  # defined again: a call may be of the other one
        calls = [call for call, _ in self._call_sites_of(fn)]
        # `partial(l1_loss, ..., training=True)`: what it binds, its calls pass
        calls.extend(self._partials_of().get(name, ()))
        return passed_anywhere(calls)

    def _partials_of(self) -> dict[str, list[cst.Call]]:
        """Return the module's `partial(f, ...)` calls by the name of ``f``, each as the
        call of ``f`` with the arguments it binds (`f(..., training=True)`)."""
        if self._partials is None:
            self._partials = {}
            if self._calls_by_name is None:
                self._calls_by_name = module_calls(self.module)
                self._transformed = self._module_transforms()
            for call, _ in self._calls_by_name.get("partial", ()):
                if (
                    call.args
                    and type(call.args[0].value) is cst.Name
                    and self.qualname(call.func) == "functools.partial"
                ):
                    f = call.args[0].value
                    self._partials.setdefault(f.value, []).append(
                        call.with_changes(func=f, args=call.args[1:])
                    )
        return self._partials

    def _call_sites_of(self, fn: cst.FunctionDef) -> list[Site]:
        """Return the calls of a module-level function in this module: of its name, and of
        the module-level names bound once to a transform of it."""
        if self._calls_by_name is None:
            self._calls_by_name = module_calls(self.module)
            self._transformed = self._module_transforms()
        name = fn.name.value
        sites = list(self._calls_by_name.get(name, ()))
        for alias in self._transformed.get(name, ()):
            sites.extend(self._calls_by_name.get(alias, ()))
        return sites

    def _passed_functions(self, fn: cst.FunctionDef) -> dict[str, tuple[cst.FunctionDef, ...]]:
        """Return the parameters of an entry point that calls in this module give module
        functions: one by name (`suggest(x, y, ehvi)`, or a `partial` binding keywords of
        it), or a name the caller binds once to a call of a module factory whose every
        `return` gives one (`_acq = select_acq(name)`, each branch returning
        `expected_improvement` or `partial(ucb, kappa=kappa)`): the trace a call makes calls
        the one it gives, so each is walked as called there."""
        if not self.info.functions:
            return {}
        positional = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
        found: dict[str, list[cst.FunctionDef]] = {}
        for call, where in self._call_sites_of(fn):
            for param, value in passed_to(positional, call) or ():
                for given in self._module_functions(value, where):
                    if given not in found.setdefault(param, []):
                        found[param].append(given)
        return {k: tuple(v) for k, v in found.items()}

    def _module_functions(
        self, value: cst.BaseExpression | None, where: cst.FunctionDef | None, depth: int = 0
    ) -> tuple[cst.FunctionDef, ...]:
        """Return the module functions ``value`` (an argument of a call in ``where``) is one
        of: a module function's name, a `partial` of one binding keywords only, or a name
        ``where`` binds once to a call of a module factory returning such (see
        `_passed_functions`)."""
        if type(value) is cst.Call and value.args and value.args[0].keyword is None:
            if self.qualname(value.func) != "functools.partial":
                return ()
            if any(a.keyword is None or a.star for a in value.args[1:]):
                return ()
            value = value.args[0].value
        if type(value) is not cst.Name:
            return ()
        name = value.value
        local = where is not None and name in scope_names(where.body, where.params).locals
        if not local:
            fn = self.info.functions.get(name)
            once = len(self.info.assigned.get(name, ())) == 0
            return (fn,) if fn is not None and once else ()
        assert where is not None
        made = constructions(where.body).get(name)
        factory = (
            None
            if made is None or type(made.func) is not cst.Name or depth
            else self.info.functions.get(made.func.value)
        )
        if factory is None:
            return ()
        out: list[cst.FunctionDef] = []
        for ret in return_statements(factory):
            given = self._module_functions(ret.value, None, depth + 1)
            if not given:
                return ()
            out.extend(g for g in given if g not in out)
        return tuple(out)

    def _python_params(self, fn: cst.FunctionDef) -> set[str]:
        """Return the parameters every call in this module passes a Python value (a literal,
        or an `int`/`str` parameter of the calling function): equinox's filter transforms
        keep them static."""
        positional = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
        verdict: dict[str, bool] = {}
        for call, where in self._call_sites_of(fn):
            passed = passed_to(positional, call)
            if passed is None:
                return set()
            for param, value in passed:
                python = python_value(value, where) or self._module_literal(value)
                verdict[param] = verdict.get(param, True) and python
        return {p for p, ok in verdict.items() if ok}

    def _module_literal(self, expr: cst.BaseExpression) -> bool:
        """Tell whether ``expr`` names a module-level variable bound once, to a literal of
        Python values (`params_mask = ((True, False), False)`)."""
        if not isinstance(expr, cst.Name):
            return False
        value = self._module_value(expr)
        return value is not None and _python_literal(literal(value, NOT_LITERAL))

    def _module_value(self, expr: cst.Name) -> cst.BaseExpression | None:
        """Return the value a module-level name is bound to once (`NAME = value`), when no
        local binding hides it."""
        if len(self.info.assigned.get(expr.value, ())) != 1 or self._shadowed(expr.value):
            return None
        for stmt in self.module.body:
            if not isinstance(stmt, cst.SimpleStatementLine):
                continue
            for small in stmt.body:
                if (
                    isinstance(small, cst.Assign)
                    and len(small.targets) == 1
                    and isinstance(small.targets[0].target, cst.Name)
                    and small.targets[0].target.value == expr.value
                ):
                    return small.value
        return None

    def _module_display(self, expr: cst.Name) -> cst.List | cst.Tuple | None:
        """Return the list or tuple display a module-level name is bound to once
        (`functions = [fun_a, fun_b]`), when no local binding hides it."""
        value = self._module_value(expr)
        return value if isinstance(value, cst.List | cst.Tuple) else None

    def _module_transforms(self) -> dict[str, list[str]]:
        """Map each function name to the module-level names bound once to a transform of it
        (`step = jax.jit(loss)`), in the `if __name__ == "__main__":` block too."""
        out: dict[str, list[str]] = {}
        body: list[cst.CSTNode] = list(self.module.body)
        for top in self.module.body:
            if type(top) is cst.If and is_main_guard(top):
                body.extend(suite_statements(top.body))
        for stmt in body:
            if not isinstance(stmt, cst.SimpleStatementLine):
                continue
            for small in stmt.body:
                if not (
                    isinstance(small, cst.Assign)
                    and len(small.targets) == 1
                    and isinstance(small.targets[0].target, cst.Name)
                    and isinstance(small.value, cst.Call)
                    and small.value.args
                    and isinstance(small.value.args[0].value, cst.Name)
                ):
                    continue
                alias = small.targets[0].target.value
                if len(self.info.assigned.get(alias, ())) != 1:
                    continue
                if transforms.lookup(self.qualname(small.value.func), self.wrappers) is None:
                    continue
                out.setdefault(small.value.args[0].value.value, []).append(alias)
        return out

    def _instance_expr(self, expr: cst.BaseExpression) -> cst.BaseExpression | None:
        """Return the project class (or flax nnx class) ``expr`` evidently builds or names an
        instance of."""
        callee: cst.BaseExpression | None = None
        if isinstance(expr, cst.Call):
            callee = expr.func
        elif isinstance(expr, cst.Name) and len(self.info.assigned.get(expr.value, ())) == 1:
            callee = self.info.instances.get(expr.value)
        if callee is None or not isinstance(callee, cst.Name | cst.Attribute):
            return None
        if (self.qualname(callee) or "").startswith("flax.nnx."):
            return callee  # `nnx.Optimizer(model, tx)`: an nnx object, updated in place
        found = self._class_def(callee)
        return callee if found is not None and found.cls is not None else None

    def _fields_given(self, made: cst.Call, cls: cst.ClassDef) -> dict[str, Taint]:
        """For an object this trace built (`fe = Element(points, cells)`), the traced values
        its constructor stores as they are (`self.points = points`): `self.points` is traced
        in its methods, as `points` was where it was built."""
        if type(made.func) is not cst.Name or made.func.value != cls.name.value:
            return {}
        init = next(
            (
                m
                for m in suite_statements(cls.body)
                if isinstance(m, cst.FunctionDef) and m.name.value == "__init__"
            ),
            None,
        )
        if init is None:
            return {}
        positional = [p.name.value for p in (*init.params.posonly_params, *init.params.params)]
        given = all_unknown(init)
        self._bind_args(made.args, given, positional, 1)
        return {
            f"self.{attr}": Taint.TRACED
            for attr, value in self_attribute_stores(cls, _CONSTRUCTOR)
            if isinstance(value, cst.Name) and given.get(value.value) is Taint.TRACED
        }

    def _built_in_trace(self, name: str) -> bool:
        """Tell whether ``name`` holds an object constructed inside the trace being walked:
        built in this frame, or in the enclosing one a nested function closes over
        (`gen = Gen(key)`, then `gen()` inside the loss given to `jax.grad`)."""
        for frame in reversed(self.stack):
            if frame.mode is Mode.NONE:
                return False  # outside the trace: what is built there outlives it
            if name in frame.built:
                return True
            if name == "self" and frame.owns_self:
                return True
            if name in frame.env or name in frame.locals:
                return False  # bound here to something not built in the trace
        return False

    def _owned_part(self, receiver: cst.Attribute) -> bool:
        """Tell whether ``self.attr`` is a part the trace-local object built itself: the
        method's object is owned, and its class stores in ``attr`` nothing but calls of
        project classes (``self.ball = Particle(...)``), never a value it was given."""
        frame = self.frame
        owner = receiver.value
        if not (isinstance(owner, cst.Name) and owner.value == "self" and frame.owns_self):
            return False
        if frame.cls is None:
            return False
        attr = receiver.attr.value
        stores = [value for target, value in self_attribute_stores(frame.cls) if target == attr]
        return bool(stores) and all(
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Name | cst.Attribute)
            and self._class_def(value.func) is not None
            for value in stores
        )

    def call_helper(self, target: Resolved, call: cst.Call) -> Taint:
        """Analyse a same-module function called from traced code with these arguments."""
        self._call_parts.pop(id(call), None)  # what another walk of this call returned
        if self.mode not in TRACED_MODES and self.mode is not Mode.GRAD:
            return Taint.UNKNOWN
        fn = target.fn
        positional = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
        env = all_unknown(fn)
        offset = (1 if target.is_method else 0) - target.skip
        owns_self = False
        receiver_taint: dict[str, Taint] = {}
        if target.is_method and positional:
            receiver = target.receiver
            if receiver is None and isinstance(call.func, cst.Attribute):
                receiver = call.func.value
            if receiver is not None:
                env[positional[0]] = self.value(receiver)  # `self` as the caller sees it
                if (
                    isinstance(fn, cst.FunctionDef)
                    and fn.name.value == "__init__"
                    and isinstance(receiver, cst.Call)
                ):
                    env[positional[0]] = Taint.UNKNOWN  # being built: what __init__ sets
                receiver_taint[positional[0]] = env[positional[0]]
            # An object constructed inside the trace (`svi = SVI(...); svi.init(x)`) is
            # discarded with it: its methods' writes to `self` reach nothing outside.
            if isinstance(receiver, cst.Name):
                owns_self = self._built_in_trace(receiver.value)
                made = self.frame.constructions.get(receiver.value)
                if made is not None and target.cls is not None:
                    env.update(self._fields_given(made, target.cls))
            elif isinstance(receiver, cst.Call):
                owns_self = True  # `Block(4)(x)`: built here, by the caller, and dropped
            elif isinstance(receiver, cst.Attribute):
                # `self.ball.move()` on an object built in the trace whose class only ever
                # stores freshly constructed objects in `ball`: the part is built with it.
                owns_self = self._owned_part(receiver)
        elif target.cls is not None and positional[:1] == ["self"] and call.args:
            # `Data.__init__(out, shape)`, the method called through its class: the object
            # is the first argument, owned when the trace built it (`out = cls.__new__(cls)`)
            first = call.args[0]
            owns_self = (
                first.keyword is None
                and isinstance(first.value, cst.Name)
                and self._built_in_trace(first.value.value)
            )
        kinds: dict[str, Kind] = {}
        values: dict[str, cst.BaseExpression | None] = {}
        if target.bound is not None:
            offset += self._bind_args(target.bound.args[1:], env, positional, offset, kinds, values)
        star_kwarg = fn.params.star_kwarg
        self._bind_args(
            call.args,
            env,
            positional,
            offset,
            kinds,
            values,
            star_kwarg.name.value if star_kwarg is not None else None,
            _with_defaults(fn),
        )
        if target.is_method and positional and positional[0] in receiver_taint:
            # `model.apply(variables, x)`: the arguments flax consumes are not `self`
            env[positional[0]] = receiver_taint[positional[0]]
            kinds.pop(positional[0], None)
            values.pop(positional[0], None)
        kept = _custom_derivative(fn, target.owner or self)
        if kept is not None and self.frame.style.staged:
            # Staged code hands a custom_vjp/custom_jvp function a tracer for every argument
            # but its nondiff_argnums/argnames, whatever the caller held (a static int too).
            for name in positional:
                if name not in kept:
                    env[name] = Taint.TRACED
        owner = target.owner or self
        # `multinomial_with_seed((*operands, True))`: what each element of a tuple given
        # for a parameter is, when its parts differ (the flag stays a Python bool)
        parts: dict[str, list[Taint]] = {}
        for name, given in values.items():
            found = None if given is None else self.tuple_parts(given)
            if found is not None and len(set(found)) > 1 and env.get(name) is Taint.TRACED:
                parts[name] = found
        if isinstance(fn, cst.FunctionDef) and fn.decorators:
            self._own_statics(fn, owner, env)
        if target.owner is not None and not self._follow_into(env):
            return Taint.UNKNOWN
        # Analysed even without traced arguments: its side effects happen at trace time too.
        returned = owner.analyse(
            fn,
            env,
            self.mode,
            target.closure,
            root=False,
            cls=target.cls,
            style=self.frame.style,
            owns_self=owns_self,
            kinds=kinds,
            constants=_values_given(fn, values),
            namespaces=self._namespaces_given(target, values),
            # `while_loop(cond_fun, body_fun, init)` of the module's own: the functions it
            # is given run where it calls them, here in the trace
            functions=self._functions_given(values) if target.owner is None else None,
            parts=parts,
            outer_params=self._outer_given(values),
        )
        if owner.last_parts is not None:
            self._call_parts[id(call)] = owner.last_parts
        if (
            target.is_method
            and isinstance(call.func, cst.Attribute)
            and isinstance(call.func.value, cst.Name)
            and call.func.value.value == "self"
        ):
            # `self.fit(params)` stores `self.gp`: the caller's later reads get that value
            self.frame.self_stores.update(owner.last_self_stores)
        return returned

    def _outer_given(self, values: dict[str, cst.BaseExpression | None]) -> frozenset[str]:
        """Return the parameters a call gives an object from outside the trace it runs in:
        a name the caller closes over from there (`lambda _: scale(st2, T)` in a branch
        `lax.cond` traces, `st2` the jitted function's), or a parameter it got so itself."""
        frame = self.frame
        return frozenset(
            name
            for name, given in values.items()
            if type(given) is cst.Name
            and given.value not in _CONSTANT_NAMES
            and (
                given.value in frame.outer_params
                or (
                    self.is_outer(given.value)
                    and not self.is_imported(given.value)
                    and not self.defines_function(given.value)
                )
            )
        )

    def _own_statics(self, fn: cst.FunctionDef, owner: Analysis, env: dict[str, Taint]) -> None:
        """Make static the parameters of ``fn`` that its own jit keeps static, whatever the
        caller holds: `static_argnums` are hashed at the call (a tracer there raises at the
        call, JIT302's finding, so the body only ever sees Python values), and
        `eqx.filter_jit` keeps a parameter annotated `int`, `float`, `bool` or `str` static
        (its callers pass Python values there)."""
        app = owner._decorators(fn)
        if app is None or not app.caches:
            return
        static = set(_static_params(fn, app)[1])
        if app.filter_style:
            params = fn.params
            static.update(
                p.name.value
                for p in (*params.posonly_params, *params.params, *params.kwonly_params)
                if p.annotation is not None and python_scalar_annotation(p.annotation.annotation)
            )
        for name in static:
            if env.get(name) is Taint.TRACED:
                env[name] = Taint.STATIC

    def _flag_constants(
        self, fn: FunctionNode, constants: Mapping[str, cst.BaseExpression]
    ) -> dict[str, cst.BaseExpression]:
        """Keep the literal values of the parameters ``fn`` tests bare (`if verbose:`)."""
        if not isinstance(fn, cst.FunctionDef):
            return {}
        flags = self._flag_names.get(id(fn))
        if flags is None:
            flags = self._flag_names[id(fn)] = _tested_flags(fn)
        return {k: v for k, v in constants.items() if k in flags and _is_literal(v)}

    def _namespaces_given(
        self, target: Resolved, values: Mapping[str, cst.BaseExpression | None]
    ) -> dict[str, str]:
        """Return the parameters one call binds to an array namespace module: an argument
        naming one (`xnp=jnp`), or the default of one left out (`xnp=np`)."""
        fn = target.fn
        params = fn.params
        owner = target.owner or self
        out: dict[str, str] = {}
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            name = param.name.value
            if name in values:
                given = values[name]
                q = self.qualname(given) if isinstance(given, cst.Name | cst.Attribute) else None
            elif isinstance(param.default, cst.Name | cst.Attribute):
                q = owner.info.qualname(param.default)  # read where the function is defined
            else:
                q = None
            if q in NAMESPACES:
                assert q is not None
                out[name] = q
        return out

    def call_untraced(self, target: Resolved, call: cst.Call) -> None:
        """Walk a same-module function called outside any trace again when the call hands it
        a NumPy array or a container: code it traces (a loop body closing over the
        parameter) sees what this call passes."""
        fn = target.fn
        if target.owner is not None or target.is_method or target.bound is not None:
            return
        if (
            isinstance(fn, cst.FunctionDef)
            and (app := self._decorators(fn)) is not None
            and app.mode in TRACED_MODES
        ):
            return  # `@jax.jit def update(...)`: its body only ever runs traced
        positional = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
        kinds: dict[str, Kind] = {}
        values: dict[str, cst.BaseExpression | None] = {}
        self._bind_args(call.args, all_unknown(fn), positional, -target.skip, kinds, values)
        functions = self._functions_given(values)
        if not functions and not any(k in _REWALKED_KINDS for k in kinds.values()):
            return
        self.analyse(
            fn,
            all_unknown(fn),
            Mode.NONE,
            target.closure,
            root=False,
            cls=target.cls,
            style=self.frame.style,
            kinds=kinds,
            functions=functions,
        )

    def _functions_given(
        self, values: Mapping[str, cst.BaseExpression | None]
    ) -> dict[str, cst.FunctionDef]:
        """Return the parameters a call binds to a function of this module by name
        (`imgfunc=random_img_gen`): a transform the callee applies to it traces it."""
        out: dict[str, cst.FunctionDef] = {}
        for name, value in values.items():
            if isinstance(value, cst.Name):
                found = self.resolve_function(value)
                if (
                    found is not None
                    and found.owner is None
                    and isinstance(found.fn, cst.FunctionDef)
                    and found.bound is None
                    and not found.is_method
                ):
                    out[name] = found.fn
        return out

    def _bind_args(
        self,
        args: Sequence[cst.Arg],
        env: dict[str, Taint],
        positional: list[str],
        offset: int,
        kinds: dict[str, Kind] | None = None,
        values: dict[str, cst.BaseExpression | None] | None = None,
        star_kwarg: str | None = None,
        defaults: frozenset[str] = frozenset(),
    ) -> int:
        """Set the taints (and into ``kinds`` the evident kinds) of the parameters ``args``
        bind; into ``values`` what each parameter is given (None: spread, unknown); return
        how many are positional. ``star_kwarg``: the `**kwargs` parameter, a dict of the
        keywords no other parameter takes (`scale(p, wd=wd)` for `def scale(p, **kw)`).
        ``defaults``: the parameters with a default, which a spread (`f(**params)`) may
        leave at their default: a traced spread makes them unknown, not traced."""
        count = 0
        given: set[str] = set()
        extra: list[Taint] = []
        spread_keywords = False
        for arg in args:
            if arg.star == "**":
                spread_keywords = True
            if (
                star_kwarg is not None
                and not arg.star
                and arg.keyword is not None
                and (arg.keyword.value not in env or arg.keyword.value == star_kwarg)
            ):
                extra.append(self.value(arg.value))
                continue
            if arg.star:
                # `f(*xs)` / `f(**params)`: the parameters left open receive its elements
                spread = self.value(arg.value)
                if arg.star == "*":
                    open_names = positional[max(count + offset, 0) :]
                    count = len(positional)  # where later positional arguments go: unknown
                else:
                    receiver = positional[: max(offset, 0)]
                    open_names = [n for n in env if n not in receiver]
                for spread_to in open_names:
                    if spread_to not in given:
                        kept = spread_to in defaults and spread is Taint.TRACED
                        env[spread_to] = Taint.UNKNOWN if kept else spread
                        if values is not None:
                            values[spread_to] = None
                continue
            name: str | None = None
            if arg.keyword is not None:
                name = arg.keyword.value if arg.keyword.value in env else None
            elif 0 <= count + offset < len(positional):
                name = positional[count + offset]
            if arg.keyword is None:
                count += 1
            if name is None:
                continue
            given.add(name)
            if values is not None:
                values[name] = arg.value
            env[name] = self.value(arg.value)
            if kinds is not None:
                kind = self._eval.kind(arg.value)
                if kind is not None:
                    kinds[name] = kind
        if star_kwarg is not None and not spread_keywords:
            env[star_kwarg] = join(*extra)  # a dict of what it holds; empty: static
        return count

    def _follow_into(self, env: dict[str, Taint]) -> bool:
        """Tell whether a call into another module is worth analysing: it gets a traced
        value, and the path from the entry point is not already long (a bound)."""
        if Taint.TRACED not in env.values():
            return False
        if len(self.trace) >= _MAX_DEPTH:
            if self.project is not None:
                self.project.warn(
                    f"calls deeper than {_MAX_DEPTH} functions from an entry point not followed"
                )
            return False
        return True

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

    def _decorator_name(self, fn: cst.FunctionDef) -> str | None:
        for dec in fn.decorators:
            t = self.transform(dec.decorator)
            if t is not None:
                return t.qualname
        return None

    def trace_target(
        self,
        expr: cst.BaseExpression,
        app: Application,
        via: str | None = None,
        *,
        at_once: cst.Call | None = None,
        once: bool = False,
        transformed: cst.Call | None = None,
    ) -> None:
        """Analyse the function ``expr`` denotes as traced by ``app`` (the transform ``via``).

        ``at_once``: the call of the transform's result on the spot (`jax.jit(f)(x)`), if it
        is one; otherwise the transformed function outlives this statement, so what its
        trace closed over can go stale. ``once``: the result is handed to a function that
        only calls it (`run(jax.jit(f), x)`): it does not outlive that call either.
        """
        kept = at_once is None and not once
        if (
            self.mode is Mode.NONE
            and via in transforms.EAGER_CACHED
            and type(expr) is cst.Name
            and self.loops
            and not self.defined_in_loop(expr.value)
        ):
            # Outside any trace, `lax` control flow caches the trace of the function object
            # it is given, as jit does: run again by a Python loop, after the loop rebound a
            # value the function closes over, it reuses the program traced with the old one.
            app = replace(app, mode=Mode.JIT, caches=True)
        mode = max(self.mode, app.mode)
        style = self.frame.style.under(app.filter_style, app.stateful, app.staged)
        if not kept:
            # Traced anew on each call, unless the call sits in a cached trace, which keeps
            # what it read (`jax.value_and_grad(loss_fn)(p)` in a jitted method).
            if self.mode is not Mode.JIT or self.frame.style.fresh:
                style = replace(style, fresh=True)
        elif app.caches:
            style = replace(style, fresh=False)
        if isinstance(expr, cst.Lambda):
            instances: dict[str, cst.BaseExpression] = {}
            if at_once is not None:  # `jax.jit(lambda s: s.size)(state)`: what `s` is
                params = [p.name.value for p in (*expr.params.posonly_params, *expr.params.params)]
                for param, value in passed_to(params, at_once) or ():
                    built = self._instance_expr(value)
                    if built is not None:
                        instances[param] = built
            self.analyse(
                expr,
                _seeds(expr, app),
                mode,
                list(self.stack),
                root=True,
                cls=self.frame.cls,
                style=style,
                via=via,
                instances=instances,
                constants=defaults_in_force(expr, app),
            )
            return
        if isinstance(expr, cst.List | cst.Tuple):
            for el in expr.elements:
                self.trace_target(
                    el.value, app, via, at_once=at_once, once=once, transformed=transformed
                )
            return
        if isinstance(expr, cst.Name) and expr.value in self.frame.lambdas:
            self.trace_target(
                self.frame.lambdas[expr.value],
                app,
                via,
                at_once=at_once,
                once=once,
                transformed=transformed,
            )
            return
        if isinstance(expr, cst.Name) and (functions := self._module_display(expr)) is not None:
            # `branches = [fa, fb]` then `lax.switch(i, branches, x)`: each one is traced
            self.trace_target(
                functions, app, via, at_once=at_once, once=once, transformed=transformed
            )
            return
        if isinstance(expr, cst.Call) and expr.args and expr.args[0].keyword is None:
            q = self.qualname(expr.func)
            if q in transforms.PARTIAL:
                self.trace_target(
                    expr.args[0].value,
                    self._with_partial(app, expr),
                    via,
                    at_once=at_once,
                    once=once,
                    transformed=transformed,
                )
                return
            inner = transforms.lookup(q, self.wrappers)
            if inner is not None:
                self._traced_calls.add(id(expr))  # traced here, with the outer statics
                outer = app
                if inner.qualname in _RETRACING:
                    # `jit(remat(f), static_argnums=0)`: remat gets the Python value and
                    # traces it again, unless its own `static_argnums` names it.
                    outer = replace(app, static_pos=frozenset(), static_names=frozenset())
                inner_app = outer.combine(from_keywords(inner, expr.args))
                for target in inner.function_args(expr):
                    self.trace_target(
                        target, inner_app, via, at_once=at_once, once=once, transformed=transformed
                    )
                return
        resolved: Resolved | None
        if isinstance(expr, cst.Name) and expr.value in self.frame.partials:
            # `f = partial(f, flag=True)` earlier in this scope: trace what it bound.
            call, bound = self.frame.partials[expr.value]
            app = self._with_partial(app, call)
            resolved = bound
        elif isinstance(expr, cst.Call):
            # `jax.jit(make_step(cfg))`: what the factory returns; `jax.jit(Block(4))`: the
            # instance's `__call__`
            resolved = self._factory_product(expr) or self._constructed_call(expr)
        elif isinstance(expr, cst.Name) and expr.value in self.frame.products:
            resolved = self.resolve_function(expr) or self._factory_product(
                self.frame.products[expr.value]
            )
        else:
            resolved = self.resolve_function(expr)
        if resolved is None and app.stateful:
            resolved = self._lifted_module(expr)
        if resolved is not None:
            fn = resolved.fn
            if type(fn) is cst.FunctionDef and fn.decorators and not resolved.is_method:
                # `jax.vmap(step, in_axes=(0, None))` of a `@partial(jax.jit,
                # static_argnums=1)` def: the transform calls the jitted function, which
                # keeps its static arguments the Python values it is given.
                own = (resolved.owner or self)._decorators(fn)
                if own is not None and own.caches:
                    app = app.combine(own)
                    # its body runs under its own transform: `eqx.filter_jit` keeps a
                    # module's Python fields static under `jax.vmap` too (checked)
                    mode = max(mode, own.mode)
                    style = replace(
                        style.under(own.filter_style, own.stateful, own.staged), fresh=False
                    )
            if resolved.is_method:
                # `f = jax.jit(obj.method)`: `self` is bound, closed over by the trace as the
                # Python object it is, unless its class is a pytree (equinox binds methods
                # as pytrees of the instance). Traced anew when the transform is applied
                # and called at once, so nothing it read goes stale then.
                owner = resolved.owner or self
                cls = resolved.cls
                # flax's transforms carry writes back only to modules passed as arguments:
                # the instance a bound method or `nnx.jit(module)` closes over is outside.
                closed = (
                    (kept or app.stateful)
                    and resolved.skip == 0  # not `model.apply`: flax binds a fresh clone
                    and cls is not None
                    and cls.name.value not in owner.info.pytree_classes
                )
                taints: tuple[tuple[int | str, Taint], ...] = ((0, Taint.STATIC),) if closed else ()
                # `self` is bound before what a `partial(obj.method, p)` binds: that starts at
                # the parameter after `self`.
                shifted = tuple((k + 1 if type(k) is int else k, t) for k, t in app.bound_taints)
                app = replace(app, bound_pos=app.bound_pos + 1, bound_taints=taints + shifted)
            (resolved.owner or self).analyse(
                fn,
                _seeds(fn, app),
                mode,
                resolved.closure,
                root=True,
                cls=resolved.cls,
                style=style,
                via=via,
                constants=defaults_in_force(fn, app),
                kinds=self._containers_given(fn, at_once, resolved.is_method),
                instances=self._instances_handed(fn, transformed, resolved.is_method),
            )

    def _instances_handed(
        self, fn: FunctionNode, transformed: cst.Call | None, bound: bool
    ) -> dict[str, cst.BaseExpression]:
        """Return the parameters of a function traced by a transform that every call of
        the transform's result here (``transformed``: the transform's call) gives an
        instance of one project class: `grad_fn(model, batch)` after `grad_fn =
        nnx.value_and_grad(loss_fn)`, `model` a `RectFlowWrapper` where this function got
        it. Only for a transform applied in the function being walked."""
        if transformed is None or type(fn) is not cst.FunctionDef:
            return {}
        if not any(f.instances for f in self.stack):
            return {}  # the walked functions know the class of no object to hand over
        calls = self._call_sites.result_calls(transformed, self.frame.node)
        if not calls:
            return {}
        params = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
        return self._instances_given(
            [(c, None) for c in calls], params[1:] if bound else params, in_frames=True
        )

    def _handed_once(self, call: cst.Call) -> bool:
        """Tell whether the result of the transform call ``call`` is handed to a project
        function that only calls the parameter receiving it (`_raising_line(jax.jit(f), x)`):
        it is not kept, so each such call traces anew."""
        handed = self._handed.get(id(call))
        if handed is None:
            return False
        outer, index = handed
        found = self.resolve_function(outer.func)
        if found is None or not isinstance(found.fn, cst.FunctionDef):
            return False
        params = found.fn.params
        positional = [p.name.value for p in (*params.posonly_params, *params.params)]
        if found.is_method:
            positional = positional[1:]
        arg = outer.args[index]
        if any(a.star for a in outer.args[: index + 1]):
            return False
        if arg.keyword is not None:
            name = arg.keyword.value
        elif index < len(positional):
            name = positional[index]
        else:
            return False
        return only_called(found.fn, name)

    def _containers_given(
        self, fn: FunctionNode, at_once: cst.Call | None, bound: bool
    ) -> dict[str, Kind]:
        """Return the parameters the transformed function, called on the spot
        (`jax.jit(get)(collection, idx)`), is given a tuple, list or dict for: a transform
        traces the leaves of a container and keeps the container."""
        if at_once is None or not isinstance(fn, cst.FunctionDef):
            return {}
        params = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
        found: dict[str, Kind] = {}
        for param, value in passed_to(params[1:] if bound else params, at_once) or ():
            kind = self._eval.kind(value)
            if kind in CONTAINERS:
                found[param] = kind
        return found

    def _lifted_module(self, expr: cst.BaseExpression) -> Resolved | None:
        """Resolve ``nn.remat(MLP, static_argnums=(2,))``: a flax lifted transform of a module
        class traces its ``__call__``, numbering the arguments from ``self`` (flax#2457: 1
        names ``x``, 2 names ``train``)."""
        if not isinstance(expr, cst.Name | cst.Attribute):
            return None
        found = self._class_def(expr)
        if found is None or found.cls is None:
            return None
        method = self._find_method(found, "__call__")
        return None if method is None else self._resolved(method)

    def custom_vjp_nondiff(self, func: cst.BaseExpression) -> tuple[list[str], frozenset[str]]:
        """Return the positional parameters of the `@jax.custom_vjp` function ``func`` calls
        and those its `nondiff_argnums` / `nondiff_argnames` name (none: not one, or not
        known)."""
        resolved = self.resolve_function(func)
        if resolved is None or not isinstance(resolved.fn, cst.FunctionDef):
            return [], frozenset()
        fn, owner = resolved.fn, resolved.owner or self
        kept = _custom_derivative(fn, owner, "jax.custom_vjp")
        positional = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
        return positional[1 if resolved.is_method else 0 :], kept or frozenset()

    def _mcmc_traced_args(self, call: cst.Call) -> None:
        """`MCMC(NUTS(model), ..., jit_model_args=True)`: numpyro jits the sampler with the
        model's arguments as arguments, so the model gets them traced (numpyro#691: a
        `seasonality=38` bound of a slice is a tracer then)."""
        flag = next(
            (a for a in call.args if a.keyword and a.keyword.value == "jit_model_args"), None
        )
        if flag is None or not (isinstance(flag.value, cst.Name) and flag.value.value == "True"):
            return
        given = next(
            (a for a in call.args if a.keyword is None or a.keyword.value == "sampler"), None
        )
        if given is None or given.star:
            return
        kernel = given.value
        if isinstance(kernel, cst.Name):
            made = self.frame.products.get(kernel.value)
            kernel = made if made is not None else kernel
        if not isinstance(kernel, cst.Call):
            return
        t = transforms.lookup(self.qualname(kernel.func), self.wrappers)
        if t is None or t.traces_params:
            return
        app = from_keywords(t, kernel.args)
        for target in t.function_args(kernel):
            self.trace_target(target, app, "numpyro.infer.MCMC")

    def _factory_product(self, call: cst.Call) -> Resolved | None:
        """Resolve ``make(...)`` to the local function ``make`` defines and returns."""
        made = self._factory(call)
        if made is None:
            return None
        factory, scope = made
        inner = returned_def(scope.fn)
        if inner is None:
            return None
        return Resolved(inner, scope.closure, None, owner=factory.owner)

    def _closure_of_call(
        self, call: cst.Call, *, anywhere: bool = False, index: int | None = None
    ) -> Resolved | None:
        """Resolve ``make(n)(x)`` in traced code: the function ``make`` returns runs here,
        closing over ``make``'s parameters as traced as this call's arguments. With
        ``anywhere``, outside traced code too (a name bound to ``make(n)``); with ``index``,
        the function at that position of the tuple ``make`` returns."""
        if self.mode not in TRACED_MODES and not anywhere:
            return None
        made = self._unless_open(call, self._factory)
        if made is None:
            return None
        factory, scope = made
        inner = returned_def(scope.fn, every_path=False, index=index)
        if inner is None:
            return None
        frame = scope.closure[-1]
        positional = [
            p.name.value for p in (*scope.fn.params.posonly_params, *scope.fn.params.params)
        ]
        self._bind_args(call.args, frame.env, positional, 0)
        return Resolved(inner, scope.closure, None, owner=factory.owner)

    def _factory(self, call: cst.Call) -> tuple[Resolved, _FactoryScope] | None:
        """Resolve the project function ``call`` calls, with the scope its local functions
        close over: it ran as plain Python before the trace, so its parameters and locals
        are unknown values."""
        factory = self.resolve_function(call.func)
        if factory is None or not isinstance(factory.fn, cst.FunctionDef):
            return None  # a method too: `potential.to_reference()` returning a closure
        fn = factory.fn
        names = scope_names(fn.body, fn.params)
        frame = Frame(fn, Mode.NONE, all_unknown(fn), names.locals, names.defs, factory.cls)
        return factory, _FactoryScope(fn, names.defs, [*factory.closure, frame])

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
        self._resolutions.clear()
        frame = self.frame
        frame.partials.pop(name, None)
        frame.products.pop(name, None)
        frame.lambdas.pop(name, None)
        if type(value) is cst.FunctionDef:
            frame.bound_defs[name] = value
            return
        if type(value) is cst.Name and (
            value.value in self.info.functions
            or any(value.value in f.defs or value.value in f.bound_defs for f in self.stack)
        ):
            # `call_back_f = f`: a plain alias of a function means that function
            found = self.resolve_function(value)
            if (
                found is not None
                and type(found.fn) is cst.FunctionDef
                and found.fn.name.value == value.value
                and found.cls is None
            ):
                frame.bound_defs[name] = found.fn
                return
        frame.bound_defs[name] = None
        if type(value) is cst.Call:
            frame.products[name] = value
        elif type(value) is cst.Lambda:
            frame.lambdas[name] = value
        if (
            type(value) is cst.Call
            and value.args
            and value.args[0].keyword is None
            and self.qualname(value.func) in transforms.PARTIAL
        ):
            target = value.args[0].value
            if type(target) is cst.Name and target.value in frame.partials:
                return  # a partial of a partial: not followed
            if type(target) is cst.Lambda:
                bound: Resolved | None = Resolved(target, list(self.stack), frame.cls)
            else:
                bound = self.resolve_function(target)
            if bound is not None:
                frame.partials[name] = (value, bound)

    def _on_attribute(self, node: cst.Attribute) -> None:
        """Analyse the getter of a property read in traced code (`state.size`): it runs
        there, with `self` as traced as the object it is read from."""
        if self.mode not in TRACED_MODES:
            return
        getter = self._method_of(node.value, node.attr.value, properties=True)
        if getter is not None:
            self.call_helper(getter, cst.Call(func=node))

    def _on_lambda(self, node: cst.Lambda) -> None:
        """Walk a lambda's body outside any trace, as an uncalled function's is: the
        transforms it applies (`lambda: jax.jit(f)(x)` kept in a list and called later)
        trace what they are given."""
        if self.mode is not Mode.NONE or not any(
            type(n) is cst.Call for n in descendants(node.body)
        ):
            return  # a lambda that calls nothing applies no transform
        self.analyse(
            node,
            all_unknown(node),
            Mode.NONE,
            list(self.stack),
            root=False,
            cls=self.frame.cls,
            style=self.frame.style,
        )

    def _under_shard_map(self) -> bool:
        # jax's and flax nnx's `shard_map`, by any of their import paths
        return any((via or "").rsplit(".", 1)[-1] == "shard_map" for _, _, _, via in self.trace)

    def _on_subscript(self, node: cst.Subscript) -> None:
        """Analyse the `__getitem__` of a project class indexed in traced code (`d[mask]`
        of a distribution): it runs there, given the index."""
        obj = node.value
        part = node.slice[0].slice
        if (
            self.mode not in TRACED_MODES
            or type(obj) not in (cst.Name, cst.Call)
            or len(node.slice) != 1
            or not isinstance(part, cst.Index)
        ):
            return
        method = self._method_of(obj, "__getitem__")
        if method is not None:
            func = cst.Attribute(value=obj, attr=cst.Name("__getitem__"))
            self.call_helper(method, cst.Call(func=func, args=[cst.Arg(part.value)]))

    def _method_of(
        self, obj: cst.BaseExpression, name: str, *, properties: bool = False
    ) -> Resolved | None:
        """Resolve method ``name`` of the project object ``obj`` (`self`, or an instance a
        binding shows), bound to it; with ``properties``, only a property's getter."""
        from jitlint.analysis.project import Definition

        found: Definition | None
        if isinstance(obj, cst.Name) and obj.value == "self" and self.frame.cls is not None:
            found = Definition(self, cls=self.frame.cls)
        else:
            found = self.instance_class(obj)
        if found is None or found.cls is None:
            return None
        method = found.owner._methods(found.cls).get(name)
        if method is None:
            return None
        if properties and not any(
            (found.owner.qualname(d.decorator) or "").rsplit(".", 1)[-1]
            in {"property", "cached_property"}
            for d in method.decorators
        ):
            return None
        getter = Definition(found.owner, fn=method, cls=found.cls)
        return self._resolved(getter, is_method=True, receiver=obj)

    def _on_call(self, call: cst.Call) -> None:
        func = call.func
        if (
            type(func) is cst.Attribute
            and func.attr.value in MUTATING_METHODS
            # `updates, state = opt.update(grads, state)`: a container's mutator returns None
            and not (func.attr.value in RETURNS_NONE_METHODS and id(call) in self._kept_calls)
        ):
            root = func.value
            while type(root) is cst.Attribute or type(root) is cst.Subscript:
                root = root.value
            self._write_roots.add(id(root))
            if root is func.value and func.attr.value in _FILLING:
                self._filled(root if type(root) is cst.Name else None, call)
        if type(call.func) is cst.Call:
            self._called_at_once[id(call.func)] = call  # `grad(f)(x)`: f gets these
        for index, arg in enumerate(call.args):
            if type(arg.value) is cst.Call:
                self._handed[id(arg.value)] = (call, index)  # `run(jax.jit(f), x)`
        if type(call.func) is cst.Lambda:  # `(lambda x: jit(f)(x, True))(y)` runs here
            here = Resolved(call.func, list(self.stack), self.frame.cls)
            if self.mode is Mode.NONE:
                env = all_unknown(call.func)
                style = self.frame.style
                self.analyse(
                    call.func, env, Mode.NONE, here.closure, root=False, cls=here.cls, style=style
                )
            else:
                self.call_helper(here, call)
        q = self.qualname(call.func)
        if q in _MCMC:
            self._mcmc_traced_args(call)
        t = transforms.lookup(q, self.wrappers) or self._flax_param(call)
        if t is not None and id(call) not in self._traced_calls:
            app = from_keywords(t, call.args)
            outer = self._called_at_once.get(id(call))
            # `jax.checkpoint(f)(x, flag=False)` traces every argument it is not told is
            # static, a Python bool too, inside jit or not (jax 0.10.2); other transforms
            # called at once in traced code hand over the caller's tracers.
            every = t.qualname in _RETRACING
            if outer is not None and (self.mode in TRACED_MODES or every):
                traced_pos, traced_names = self._traced_arguments(outer, every=every)
                app = replace(app, traced_pos=traced_pos, traced_names=traced_names)
            if not t.traces_params:
                app = replace(app, untraced=True)
            elif t.caches:
                # `jax.jit(f)(x)` is its only call; otherwise look for the calls of its result.
                calls = (
                    passed_by([outer])
                    if outer is not None
                    else self._call_sites.passed(call, self.frame.node)
                )
                app = replace(app, calls=calls)
            once = outer is None and t.caches and self._handed_once(call)
            for target in t.function_args(call):
                self.trace_target(
                    target, app, t.qualname, at_once=outer, once=once, transformed=call
                )
        elif self.mode is not Mode.NONE and self.resolve_function(call.func) is not None:
            self.value(call)  # analyses the helper with these arguments
        elif self.mode is not Mode.NONE and (init := self._constructor(call)) is not None:
            self.call_helper(init, call)  # `Conv(3, key=key)` in the trace runs `__init__`
        elif (
            self.mode is Mode.NONE
            and call.args
            and type(call.func) is cst.Name
            and any(call.func.value in frame.defs for frame in self.stack)
            and (helper := self.resolve_function(call.func)) is not None
        ):
            self.call_untraced(helper, call)
        elif self.mode is not Mode.NONE and self.qualname(call.func) in transforms.TREE_MAPS:
            self.tree_map_value(call)

    def _traced_arguments(
        self, call: cst.Call, *, every: bool = False
    ) -> tuple[frozenset[int], frozenset[str]]:
        """Return the positions and names of ``call``'s arguments that are tracers here
        (``every``: all of them, for a transform that traces what it is given)."""
        positions: set[int] = set()
        names: set[str] = set()
        index = 0
        for arg in call.args:
            if arg.star:
                break
            traced = every or self.value(arg.value) is Taint.TRACED
            if arg.keyword is not None:
                if traced:
                    names.add(arg.keyword.value)
                continue
            if traced:
                positions.add(index)
            index += 1
        return frozenset(positions), frozenset(names)

    def tree_map_value(self, call: cst.Call) -> Taint | None:
        """Analyse the lambda given to a tree map; return the taint of what it returns.

        The lambda runs at trace time, once per leaf, on the leaves of the trees that follow
        it, so its leaf parameters are as traced as those trees. Named callbacks are left
        alone (None): they are often Python-level pytree bookkeeping.
        """
        lead = transforms.TREE_MAPS.get(self.qualname(call.func) or "")
        args = [a for a in call.args if a.keyword is None]
        if lead is None or not args or args[0].star or any(a.star == "**" for a in args):
            return None
        fn = args[0].value
        if isinstance(fn, cst.Name) and fn.value in self.frame.lambdas:
            fn = self.frame.lambdas[fn.value]  # `stack = lambda *xs: ...` in this scope
        if not isinstance(fn, cst.Lambda):
            return None
        env = all_unknown(fn)
        params = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
        for name in params[:lead]:
            env[name] = Taint.STATIC  # the key path
        trees = args[1:]
        if any(a.star for a in trees):
            # `tree_map(f, *forest)`: every leaf parameter gets leaves of the forest
            leaves = join(*(self.value(a.value) for a in trees))
            for name in params[lead:]:
                env[name] = leaves
        else:
            leaves = join(*(self.value(a.value) for a in trees)) if trees else Taint.UNKNOWN
            for name, tree in zip(params[lead:], trees, strict=False):
                env[name] = self.value(tree.value)
        star = fn.params.star_arg
        if isinstance(star, cst.Param):
            env[star.name.value] = leaves  # `lambda *xs: ...`: the leaves, as a tuple
        style = self.frame.style
        return self.analyse(
            fn, env, self.mode, list(self.stack), root=False, cls=self.frame.cls, style=style
        )

    # Statements ----------------------------------------------------------------
    def run(self) -> None:
        """Walk the whole module."""
        frame = Frame(self.module, Mode.NONE, defs=dict(self.info.functions))
        self.stack = [frame]
        self.walk_module(self.module.body)

    def walk_module(self, body: Sequence[cst.BaseStatement]) -> None:
        """Walk the top-level statements in order (the seam that re-analysis builds on)."""
        self.walk_block(body)

    def _plain_class(self, cls: cst.ClassDef) -> bool:
        """Tell whether ``cls`` is a plain Python class: undecorated, and based on nothing but
        `object` and the module's plain classes (no pytree, no library base)."""
        classes = self.info.classes
        for current in (cls, *module_bases(cls, classes)):
            if current.decorators or current.name.value in self.info.pytree_classes:
                return False
            for base in current.bases:
                if base.keyword is not None or type(base.value) is not cst.Name:
                    return False
                name = base.value.value
                if name != "object" and (name not in classes or classes[name] is cls):
                    return False  # a library base, or a class based on itself
        return True

    def _walk_def(self, fn: cst.FunctionDef) -> None:
        for dec in fn.decorators:
            self.visit_expr(dec.decorator)
        self.frame.env[fn.name.value] = Taint.STATIC
        if not fn.decorators:  # a decorated name may be bound to a wrapper
            self.note_function_binding(fn.name.value, fn)
        cls = self.frame.node if type(self.frame.node) is cst.ClassDef else None
        app = self._decorators(fn)
        if app is not None and fn.decorators:
            # a transform's wrapper calls this definition: from here on the name means it,
            # not an earlier definition of the same name (`def run_step` for NumPy, then
            # `@partial(jit, ...) def run_step` for JAX)
            self.note_function_binding(fn.name.value, fn)
        if app is not None:
            if app.caches and cls is None and app.calls is None:
                # `@jit def f(x, every=100)` in a function that only calls it: a parameter
                # its calls pass is traced, a Python int too; one none passes is its default.
                app = replace(app, calls=self._call_sites.passed_to_def(fn, self.frame.node))
                if app.calls is None and isinstance(self.frame.node, cst.Module):
                    # `@jit def t(m, flip=True)` at module level, called `t(img, flip=False)`
                    # by the module itself: what its calls pass is traced in those calls
                    pos, names = self._passed_at_module(fn)
                    app = replace(
                        app, traced_pos=app.traced_pos | pos, traced_names=app.traced_names | names
                    )
            elif app.caches and cls is not None and app.calls is None:
                # a jitted method its class calls as `self.f(x, flag)`: what they pass is
                # traced, a Python bool too; a parameter none passes keeps its default
                calls = self._call_sites.passed_to_method(fn, cls, self.module)
                app = replace(app, calls=calls)
            if cls is not None and cls.name.value in self.info.pytree_classes:
                app = app.combine(Application(mode=app.mode, self_traced=True))
            elif cls is not None and app.filter_style and app.caches and self._plain_class(cls):
                # `@eqx.filter_jit` on a method of a plain class: `self` is no array and no
                # pytree, so a static leaf, hashed by identity; its fields are compiled in
                app = replace(app, static_names=app.static_names | {"self"})
            style = self.frame.style.under(app.filter_style, app.stateful, app.staged)
            self.analyse(
                fn,
                seed_params(fn, app),
                max(self.mode, app.mode),
                list(self.stack),
                root=True,
                cls=cls,
                style=style,
                via=self._decorator_name(fn),
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


_CONSTRUCTOR = frozenset({"__init__"})


def _with_defaults(fn: FunctionNode) -> frozenset[str]:
    """Return the names of ``fn``'s parameters that have a default."""
    params = fn.params
    return frozenset(
        p.name.value
        for p in (*params.posonly_params, *params.params, *params.kwonly_params)
        if p.default is not None
    )


def _values_given(
    fn: FunctionNode, values: Mapping[str, cst.BaseExpression | None]
) -> dict[str, cst.BaseExpression]:
    """Return what one call gives each parameter of ``fn``: its argument, or the default of
    one left out (spread arguments, unknown, are left out)."""
    params = fn.params
    out: dict[str, cst.BaseExpression] = {}
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        name = param.name.value
        value = values.get(name, param.default)
        if value is not None:
            out[name] = value
    return out


def _python_literal(value: object) -> bool:
    """Tell whether ``value`` is made of Python scalars only (no array can hide in it)."""
    if isinstance(value, tuple | list):
        return all(_python_literal(v) for v in value)
    return value is None or isinstance(value, bool | int | float | str)


def _is_literal(expr: cst.BaseExpression | None) -> bool:
    """Tell whether ``expr`` is a literal Python scalar (`False`, `0`, `"mean"`)."""
    if expr is None:
        return False
    value = literal(expr, NOT_LITERAL)
    return value is None or isinstance(value, bool | int | float | str)


def _tested_flags(fn: cst.FunctionDef) -> frozenset[str]:
    """Return the names ``fn`` tests bare in an `if` (`if flag:`, `if not flag:`)."""
    names: set[str] = set()
    for stmt in statements(fn.body):
        if type(stmt) is cst.If:
            test = stmt.test
            while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
                test = test.expression
            if isinstance(test, cst.Name):
                names.add(test.value)
    return frozenset(names)


def _seeds(fn: FunctionNode, app: Application) -> dict[str, Taint]:
    """Seed a traced function's parameters (unknown where the transform passes data as is)."""
    return all_unknown(fn) if app.untraced else seed_params(fn, app)


_HINT_KINDS = {
    "dict": Kind.MAPPING,
    "Dict": Kind.MAPPING,
    "Mapping": Kind.MAPPING,
    "list": Kind.SEQUENCE,
    "List": Kind.SEQUENCE,
    "tuple": Kind.SEQUENCE,
    "Tuple": Kind.SEQUENCE,
    "Sequence": Kind.SEQUENCE,
}


def _hint_head(expr: cst.BaseExpression) -> str | None:
    """Return the last name of a type hint's head (`typing.Dict[...]` -> `Dict`)."""
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        return expr.attr.value
    return None


@dataclass
class _FactoryScope:
    """The local functions of a factory and the scopes they close over."""

    fn: cst.FunctionDef
    defs: dict[str, cst.FunctionDef]
    closure: list[Frame]


# `self.param(name, init_fn, *args)` of a flax linen module: `apply` stages `init_fn(rng,
# *args)` out (`jax.eval_shape`) to check the stored shape; its arguments stay Python values
# there, but every JAX operation on them gives a tracer (checked on jax 0.10.2, flax 0.12).
_FLAX_PARAM = transforms.Transform(
    "flax.linen.Module.param",
    Mode.TRACE,
    fn_positions=(1,),
    fn_keywords=("init_fn",),
    traces_params=False,
)
# numpyro's MCMC: with `jit_model_args=True` its kernel's model gets its arguments traced.
_MCMC = frozenset({"numpyro.infer.MCMC", "numpyro.infer.mcmc.MCMC"})
# The lax conditionals: every branch given is traced, the selected one only runs.
_BRANCHES = frozenset({"jax.lax.cond", "jax.lax.switch"})
_CONSTANT_NAMES = frozenset({"None", "True", "False", "Ellipsis", "NotImplemented"})
# The transforms that map a function over a batch, one run per element.
_BATCHING = frozenset({"jax.vmap", "equinox.filter_vmap", "flax.nnx.vmap", "jax.numpy.vectorize"})
# optax combinators whose `init`/`update` run those of the transformations they are given.
_OPTAX_CHAINS = frozenset({"optax.chain", "optax.named_chain"})
# The lax loops: the function given is called once per iteration.
_LOOP_BODIES = frozenset({"jax.lax.fori_loop", "jax.lax.scan", "jax.lax.while_loop", "jax.lax.map"})
# Transforms that trace every argument they are called with, static or not to the caller.
_RETRACING = frozenset(
    {"jax.checkpoint", "jax.remat", "jax.ad_checkpoint.checkpoint", "jax.ad_checkpoint.remat"}
)
_OPTAX_RECORDS = frozenset({"GradientTransformation", "GradientTransformationExtraArgs"})


def _container_attributes(methods: dict[str, cst.FunctionDef]) -> dict[str, Kind]:
    """Map the attributes a class's methods bind once, to a container, to its kind."""
    bound: dict[str, list[Kind | None]] = {}
    for method in methods.values():
        params = {
            p.name.value: p
            for p in (
                *method.params.posonly_params,
                *method.params.params,
                *method.params.kwonly_params,
            )
        }
        for node in statements(method.body):
            if type(node) not in _ASSIGNMENTS:
                continue
            assert isinstance(node, cst.Assign | cst.AnnAssign | cst.AugAssign)
            targets = (
                [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            )
            for target in targets:
                if (
                    type(target) is cst.Attribute
                    and isinstance(target.value, cst.Name)
                    and target.value.value == "self"
                ):
                    value = node.value if not isinstance(node, cst.AugAssign) else None
                    kind: Kind | None = None
                    if isinstance(value, cst.Tuple | cst.List):
                        kind = Kind.SEQUENCE
                    elif isinstance(value, cst.Dict):
                        kind = Kind.MAPPING
                    elif isinstance(value, cst.Name) and value.value in params:
                        kind = container_kind(params[value.value])
                    bound.setdefault(target.attr.value, []).append(kind)
    return {
        attr: kinds[0] for attr, kinds in bound.items() if len(kinds) == 1 and kinds[0] is not None
    }


def _field_argument(
    call: cst.Call, fields: tuple[str, ...], name: str
) -> cst.BaseExpression | None:
    """Return the argument of ``call`` that sets field ``name`` (by keyword or position)."""
    if name not in fields:
        return None
    for i, arg in enumerate(call.args):
        if arg.star:
            return None
        if (arg.keyword is None and i == fields.index(name)) or (
            arg.keyword is not None and arg.keyword.value == name
        ):
            return arg.value
    return None


def _annotated_instances(fn: cst.FunctionDef) -> dict[str, cst.BaseExpression]:
    """Return the parameters annotated with a plain class name: ``model: MLP``."""
    out: dict[str, cst.BaseExpression] = {}
    for p in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params):
        if p.annotation is not None and isinstance(
            p.annotation.annotation, cst.Name | cst.Attribute
        ):
            out[p.name.value] = p.annotation.annotation
    return out


def _rebinds_after(fn: cst.FunctionDef, inner: cst.CSTNode, name: str) -> bool:
    """Tell whether ``fn`` binds ``name`` after the traced function ``inner`` can first run
    and before it can run again.

    A nested ``def`` cannot be traced before a later statement names it (calls it, jits it,
    returns it): bindings up to there give the one value every trace sees
    (``params = load(f)`` after the ``def``, then ``return jax.jit(fn)``). A rebinding after
    its last use is never seen either, when every use before it is a plain call
    (``params = init(key)``, then ``task_params = replicate(task_params)``). A loop or other
    compound statement counts its own bindings as later ones.
    """
    body = [s for s in suite_statements(fn.body) if isinstance(s, cst.BaseStatement)]
    for i, stmt in enumerate(body):
        if not any(node is inner for node in descendants(stmt)):
            continue
        if not (isinstance(inner, cst.FunctionDef) and stmt is inner):
            return name in scope_names(body[i + 1 :]).locals
        fn_name = inner.name.value
        uses = [j for j in range(i + 1, len(body)) if _name_reads(body[j], fn_name)]
        if not uses:
            return name in scope_names(body[i + 1 :]).locals

        def after(j: int) -> int:
            return j + 1 if isinstance(body[j], cst.SimpleStatementLine) else j

        rebinds = [k for k in range(after(uses[0]), len(body)) if name in _binds(body[k])]
        if not rebinds:
            return False
        first = rebinds[0]
        if any(after(j) > first or j == first for j in uses[1:]) or uses[0] == first:
            return True
        return not all(_plain_call(body[j], fn_name) for j in uses)
    return False


def _binds(stmt: cst.BaseStatement) -> set[str]:
    return scope_names([stmt]).locals


def _plain_call(stmt: cst.BaseStatement, fn_name: str) -> bool:
    """Tell whether ``stmt`` names ``fn_name`` only as the callee of calls whose result it
    keeps (``out = step(x)``), which can trace it but not hand it on."""
    if not isinstance(stmt, cst.SimpleStatementLine) or any(
        isinstance(small, cst.Return) for small in stmt.body
    ):
        return False
    callees = {
        id(n.func)
        for n in descendants(stmt)
        if type(n) is cst.Call and type(n.func) is cst.Name and n.func.value == fn_name
    }
    return all(id(n) in callees for n in _name_reads(stmt, fn_name))


def _name_reads(stmt: cst.BaseStatement, name: str) -> list[cst.Name]:
    """List the nodes of ``stmt`` that use the variable ``name``."""
    return [n for n in variable_names(stmt) if n.value == name]


_CUSTOM_DERIVATIVES = frozenset({"jax.custom_vjp", "jax.custom_jvp"})


def _custom_derivative(
    fn: FunctionNode, owner: Analysis, kind: str | None = None
) -> frozenset[str] | None:
    """Return the parameters a `@jax.custom_vjp` / `@jax.custom_jvp` function (``kind``
    alone, if given) keeps as its caller passed them (`nondiff_argnums`, `nondiff_argnames`,
    through `partial(...)`), or None if it is neither, or its options are not literals."""
    if not isinstance(fn, cst.FunctionDef):
        return None
    wanted = _CUSTOM_DERIVATIVES if kind is None else {kind}
    positional = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
    for dec in fn.decorators:
        expr = dec.decorator
        if not isinstance(expr, cst.Call):
            if owner.qualname(expr) in wanted:
                return frozenset()
            continue
        if owner.qualname(expr.func) != "functools.partial" or not expr.args:
            continue
        if owner.qualname(expr.args[0].value) not in wanted:
            continue
        kept: set[str] = set()
        for arg in expr.args[1:]:
            value = literal(arg.value, None)
            if isinstance(value, int | str):
                value = (value,)
            keyword = arg.keyword.value if arg.keyword is not None else None
            if keyword == "nondiff_argnums" and isinstance(value, tuple):
                if not all(isinstance(v, int) and 0 <= v < len(positional) for v in value):
                    return None
                kept.update(positional[v] for v in value)
            elif keyword == "nondiff_argnames" and isinstance(value, tuple):
                kept.update(v for v in value if isinstance(v, str))
            else:
                return None  # not known: the caller's taints stand
        return frozenset(kept)
    return None


def _displayed_kinds(fn: cst.FunctionDef, count: int) -> list[Kind | None] | None:
    """Return what each of the ``count`` elements of ``fn``'s returned tuples is, where every
    `return` builds it the same evident way: a dict or list display, or a local name whose
    only binding in ``fn`` is one (`params = {...}` ... `return params, memory`)."""
    found = return_statements(fn)
    if not found or not all(
        isinstance(r.value, cst.Tuple)
        and len(r.value.elements) == count
        and not any(isinstance(e, cst.StarredElement) for e in r.value.elements)
        for r in found
    ):
        return None
    displays: dict[str, Kind | None] = {}  # a name bound more than once: None
    for stmt in statements(fn.body):
        if type(stmt) is cst.Assign:
            targets = [t.target for t in stmt.targets]
            value: cst.BaseExpression | None = stmt.value if len(targets) == 1 else None
        elif type(stmt) is cst.AnnAssign or type(stmt) is cst.AugAssign or type(stmt) is cst.For:
            targets, value = [stmt.target], None
        else:
            continue
        for name in (n for t in targets for n in target_names(t)):
            first = name not in displays and isinstance(targets[0], cst.Name)
            displays[name] = _display_kind(value) if first else None
    out: list[Kind | None] = []
    for i in range(count):
        kinds = set()
        for r in found:
            assert isinstance(r.value, cst.Tuple)
            value = r.value.elements[i].value
            if isinstance(value, cst.Name):
                kinds.add(displays.get(value.value))
            else:
                kinds.add(_display_kind(value))
        out.append(kinds.pop() if len(kinds) == 1 else None)
    return out


def _display_kind(expr: cst.BaseExpression | None) -> Kind | None:
    if isinstance(expr, cst.Dict | cst.DictComp):
        return Kind.MAPPING
    if isinstance(expr, cst.List | cst.ListComp):
        return Kind.SEQUENCE
    return None


def _binds_first(fn: cst.FunctionDef | cst.Lambda, through_instance: bool) -> bool:
    """Tell whether a method's first parameter is bound by the attribute access itself: the
    class for a classmethod, never for a staticmethod, the instance for a plain method
    reached through one (``obj.m``), not through its class (``Cls.m(obj, x)``)."""
    if type(fn) is cst.FunctionDef:
        for d in fn.decorators:
            if type(d.decorator) is cst.Name and d.decorator.value == "staticmethod":
                return False
            if type(d.decorator) is cst.Name and d.decorator.value == "classmethod":
                return True
    return through_instance


def _scope_lambda(node: cst.CSTNode, name: str) -> cst.Lambda | None:
    """Return the lambda ``name`` is bound to in the function or module ``node``, bound once
    there (`h = lambda x: ...` at module level, then `h(x)` in a jitted function)."""
    if not (type(node) is cst.FunctionDef or type(node) is cst.Module):
        return None
    return scope_names(node.body).lambdas.get(name)


def _function_given(frame: Frame, name: str) -> cst.FunctionDef | None:
    """Return the function the caller gave parameter ``name`` of ``frame``'s function
    (`while_loop(cond_fun=check, ...)`), when the function never rebinds it."""
    bound = frame.bound_defs.get(name)
    fn = frame.node
    if bound is None or type(fn) is not cst.FunctionDef:
        return None
    params = fn.params
    if name not in {
        p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)
    }:
        return None
    return None if name in scope_names(fn.body).locals else bound


# List methods that put their arguments in the list.
_FILLING = frozenset({"append", "extend", "insert", "appendleft", "extendleft"})


def _function_tables(fn: cst.FunctionDef) -> dict[str, cst.Dict]:
    """Return the names ``fn`` binds once, to a dict display whose values are all lambdas
    or names (a dispatch table)."""
    names = scope_names(fn.body, fn.params)
    found: dict[str, cst.Dict] = {}
    for stmt in statements(fn.body):
        if type(stmt) is not cst.Assign or len(stmt.targets) != 1:
            continue
        target, value = stmt.targets[0].target, stmt.value
        if (
            type(target) is cst.Name
            and type(value) is cst.Dict
            and target.value in names.locals
            and target.value not in names.rebound
            and value.elements
            and all(
                type(e) is cst.DictElement and type(e.value) in (cst.Lambda, cst.Name)
                for e in value.elements
            )
        ):
            found[target.value] = value
    return found
