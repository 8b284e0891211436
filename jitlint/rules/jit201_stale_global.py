"""The JIT201 rule (stale-global): traced code reads a global that changes later."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from itertools import groupby
from typing import TYPE_CHECKING, cast

import libcst as cst

from jitlint.analysis.cst_util import (
    child_nodes,
    descendants,
    root_name,
    statement_children,
    statements,
    variable_names,
)
from jitlint.analysis.module_info import MUTATING_METHODS, dotted
from jitlint.analysis.scopes import (
    param_names,
    scope_names,
    self_attribute_stores,
    suite_statements,
    target_names,
)
from jitlint.model import Mode, Taint
from jitlint.rules.base import Rule
from jitlint.rules.helpers import (
    SETUP_METHODS,
    NotesAssignmentTargets,
    assignment_targets,
    changed_attributes,
    code,
    dataclass_options,
    last_name,
    lazy_targets,
    state,
    trace_guards,
    writer_methods,
    writes_elsewhere,
)

if TYPE_CHECKING:
    from jitlint.analysis.context import RuleContext


class StaleGlobal(NotesAssignmentTargets, Rule):
    """
    ## What it does
    Flags a jitted function that reads a module-level global which the module reassigns (a later
    assignment, an augmented assignment, a `global` write elsewhere) or which is a mutable
    container mutated somewhere in the module (not a global whose module-level assignments all
    come before the function's `def`: it only sees the last); a local of an enclosing (untraced)
    function that it closes over and that is rebound after the jitted function is made (also
    a function given to `lax.fori_loop`, `scan`, `while_loop`, `cond`, `switch` or `map` in a
    Python loop outside any trace, which caches its trace by the function object as jit does:
    `step_size` adapted between blocks of an eager `fori_loop` keeps its first value); and
    `self.attr` read through a static `self` (`static_argnums=0`, or `@eqx.filter_jit` on a
    method of a plain class, whose `self` is a static leaf) when the attribute is changed
    outside a constructor (reassigned, written through or mutated, by a method or on an
    instance), even when the class's `__hash__` and `__eq__` read that field, or through a
    `self` that a jitted function closes over when a constructor makes that function
    (`self.f = self.make_f()`) or a `cached_property` does (made once, kept), or in a
    function nested in the jitted method (a scan body); a `@property` that returns a field
    (`return self._buffer_state`) is read as that field;
    `self.a.b` read through a static `self` when a method of the class replaces `self.a.b`
    (`self.ac.pi_state = new_state`: `self.ac` is the same object, so the trace cached for
    `self` keeps the old state); and `arg.attr`
    read through any static argument when the module sets `.attr` on an object outside a
    constructor (`cfg.scale = 3.0`): the cached trace keeps the old value. An attribute that
    only methods set, where every call of those methods is module-level code outside loops that
    runs before the module's first call of a jitted function (`scaler.fit(data)`, then the
    jitted calls), is set before any trace reads it, unless such a method itself calls a jitted
    method on `self` before its write (a `train` that runs the rollout, then stores the
    update); so is one that only methods behind a
    run-once flag set (`if not self.initialized: self.initialize(x)`, with the flag set to
    True), a method only the constructor calls (`self._init_buffers()` in `__init__`, read
    nowhere else), or a function that decorates `__init__` (`@register_to_config`); nor does a
    write that finishes making an object (`loader = DataLoader(data)`, then `loader.batch_size
    = 32` before anything else reads `loader`; or into a deep copy, `cfg = copy.deepcopy(config)`
    then `cfg.sampler.block_size = 1`), which every trace sees, nor a field that
    module-level code sets from outside the class, outside loops, before the module's first
    call of a jitted function (`pl.vt_method = "uniform"`, then
    `jax.jit(pl.log_posterior)(x)`). A container filled by module-level statements before the
    function's `def` (a registry: `_kernels[LINEAR] = ...`) is seen full by every trace; a memo
    cache only the function reading it fills and changes (`if key in _CACHE: return
    _CACHE[key]`) holds for each key what the function computes for it, and is not stale either.
    A global rebound
    at module level only before the first use of the function that reads it, or only after its
    last (a notebook's next experiment), with no function body naming it, is never seen by a
    stale trace; nor is a closed-over local bound after the nested `def` but before anything
    names the function, or rebound only after its last plain call. A function defined in a
    module-level loop is a new object on every iteration: it is stale only when it is used,
    the global rebound, and it is used again before the loop defines the next one (or after
    the loop); a module function defined again before anything names it never runs. A call
    `self.model.init(...)` in a method is another object's `init`, not the class's own.

    ## Why is this bad?
    `jax.jit` traces the function once and caches the compiled program. A global read while
    tracing is baked into that program as a constant; when the global later changes, the cached
    program keeps using the old value, silently. Constants that are never rebound are fine.

    ## Example
    ```python
    g = 0.0


    @jax.jit
    def add_g(x):
        return x + g


    print(add_g(1.0))  # traced now: 1.0
    g = 10.0
    print(add_g(1.0))  # still 1.0: the cached trace keeps g = 0.0
    ```

    ## Use instead
    ```python
    @jax.jit
    def add_g(x, g):
        return x + g
    ```

    ## Fix safety
    There is no automatic fix.
    """

    code = "JIT201"
    name = "stale-global"
    message = (
        "`{name}` is a module global that is {how} elsewhere; jit bakes in its value at trace "
        "time and ignores later changes, pass it as an argument instead"
    )
    modes = frozenset({Mode.JIT})
    VALID = (
        """
from functools import partial
import jax


class Scaler:
    def __init__(self, scale):
        self.scale = scale

    @partial(jax.jit, static_argnums=0)
    def apply(self, x):
        return x * self.scale


def train(x):
    scale = 2.0
    fast = jax.jit(lambda y: y * scale)
    return fast(x)
""",
        """
import jax

SCALE = 2.0


@jax.jit
def f(x):
    return x * SCALE
""",
        """
import jax

try:
    import scipy

    HAVE_SCIPY = True
except ImportError:
    HAVE_SCIPY = False


@jax.jit
def f(x):
    return x + 1 if HAVE_SCIPY else x
""",
        """
import jax

g = 1.0


def f(x):
    return x + g


g = 2.0
""",
        """
import dataclasses
from functools import partial
import jax


@dataclasses.dataclass(frozen=True)
class Config:
    scale: float


@partial(jax.jit, static_argnums=1)
def apply(x, cfg):
    return x * cfg.scale


cfg = Config(2.0)
""",
        """
import jax
import jax.numpy as jnp


class Scaled:
    def __init__(self, scale):
        self.scale = scale

    def apply(self, x):
        return x * self.scale


model = Scaled(2.0)
model.scale = 5.0
out = jax.jit(model.apply)(jnp.ones(3))
""",
        """
import jax
import jax.numpy as jnp


class Scaler:
    def __init__(self):
        self.scale = None

    def fit(self, data):
        self.scale = float(data.std())

    def apply(self, x):
        return x / self.scale


scaler = Scaler()


@jax.jit
def normalise(x):
    return scaler.apply(x)


scaler.fit(jnp.arange(4.0))  # before the first trace: the trace sees the fitted scale
out = normalise(jnp.ones(3))
""",
        """
from functools import partial
import jax
import jax.numpy as jnp


class Reservoir:
    initialized = False

    def __init__(self, units):
        self.units = units
        self.W = None

    def initialize(self):
        self.W = jnp.eye(self.units) * 0.5  # runs once, before the first step
        self.initialized = True

    def step(self, s):
        if not self.initialized:
            self.initialize()
        return self._step(s)

    @partial(jax.jit, static_argnums=0)
    def _step(self, s):
        return jnp.tanh(self.W @ s)
""",
        """
import jax
import jax.numpy as jnp

scale = 2.0
scale = scale * 3.0  # every binding comes before the function that reads it


@jax.jit
def apply(x):
    return x * scale
""",
        """
import jax
import jax.numpy as jnp

def make_predict(scale):
    def predict(x):
        return x * weights

    weights = jnp.full(3, scale)  # bound after the def, before anything can trace it
    return jax.jit(predict)

def train(x, table):
    @jax.jit
    def init(x):
        return x + table

    params = init(x)
    table = table * 0.0  # after the last call: no trace sees it
    return params, table
""",
        """
import jax
import jax.numpy as jnp

temperature = 1.0

@jax.jit
def energy(x):
    return jnp.sum(x**2) / temperature

first = energy(jnp.ones(3))

temperature = 2.0  # the next experiment; `energy` is not called again

@jax.jit
def energy(x):  # a new function: its first trace reads 2.0
    return jnp.sum(x**3) / temperature

second = energy(jnp.ones(3))
""",
        """
import jax
import jax.numpy as jnp

scale = 1.0

@jax.jit
def scaled(x):
    return x * scale

scale = 3.0  # before the first call: the first trace reads 3.0
out = scaled(jnp.float32(2.0))
""",
        """
import jax
import jax.numpy as jnp


class Material:
    def __init__(self):
        self.E = 10.0

    def make_energy(self):
        @jax.jit
        def energy(x):
            return self.E * x

        return energy

    def set_params(self, E):
        self.E = E


m = Material()
first = m.make_energy()(jnp.ones(2))
m.set_params(20.0)  # a new closure each time: a new trace reads the new value
second = m.make_energy()(jnp.ones(2))
""",
        """
import jax
import jax.numpy as jnp

_activations = {}
_activations["relu"] = jax.nn.relu
_activations["tanh"] = jnp.tanh


@jax.jit
def apply(x):
    return _activations["tanh"](x)


out = apply(jnp.zeros(2))
""",
    )
    INVALID = (
        """
import jax


def train(x):
    scale = 1.0

    def step(y):
        return y * scale  # JIT201

    fast = jax.jit(step)
    first = fast(x)
    scale = 2.0
    return first, fast(x)
""",
        """
from functools import partial
import jax


class Scaler:
    def __init__(self):
        self.scale = 1.0

    def set_scale(self, scale):
        self.scale = scale

    @partial(jax.jit, static_argnums=0)
    def apply(self, x):
        return x * self.scale  # JIT201
""",
        """
import jax
import jax.numpy as jnp

g = 0.0


@jax.jit
def add_g(x):
    return x + g  # JIT201


first = add_g(jnp.float32(1.0))  # traced now, with g = 0.0
g = 10.0
second = add_g(jnp.float32(1.0))  # the cached trace: still adds 0.0
""",
        """
import jax

weights = []


def register(w):
    weights.append(w)


@jax.jit
def total(x):
    return x * len(weights)  # JIT201
""",
        """
from functools import partial
import jax
import jax.numpy as jnp


class Config:
    def __init__(self, scale):
        self.scale = scale


@partial(jax.jit, static_argnums=1)
def apply(x, cfg):
    return x * cfg.scale  # JIT201


cfg = Config(2.0)
first = apply(jnp.ones(3), cfg)
cfg.scale = 3.0
second = apply(jnp.ones(3), cfg)
""",
        """
from functools import partial
import jax
import jax.numpy as jnp


class Stack:
    def __init__(self, sizes):
        self.sizes = list(sizes)

    def __hash__(self):
        return hash(tuple(self.sizes))

    def __eq__(self, other):
        return isinstance(other, Stack) and self.sizes == other.sizes

    @partial(jax.jit, static_argnums=0)
    def depth(self, x):
        return x * len(self.sizes)  # JIT201


stack = Stack([4])
first = stack.depth(jnp.ones(3))
stack.sizes.append(8)
second = stack.depth(jnp.ones(3))
""",
        """
from functools import partial
import jax
import jax.numpy as jnp


class Scaled:
    def __init__(self, scale):
        self.scale = scale

    @partial(jax.jit, static_argnums=0)
    def apply(self, x):
        return x * self.scale  # JIT201


model = Scaled(2.0)
first = model.apply(jnp.ones(3))
model.scale = 5.0
second = model.apply(jnp.ones(3))
""",
        """
import jax
import jax.numpy as jnp


class Scaled:
    def __init__(self, scale):
        self.scale = scale

    def apply(self, x):
        return x * self.scale  # JIT201


model = Scaled(2.0)
apply = jax.jit(model.apply)
first = apply(jnp.ones(3))
model.scale = 5.0
second = apply(jnp.ones(3))
""",
        """
import jax
import jax.numpy as jnp


class Scaler:
    def __init__(self):
        self.scale = None

    def fit(self, data):
        self.scale = float(data.std())

    def apply(self, x):
        return x / self.scale  # JIT201


scaler = Scaler()


@jax.jit
def normalise(x):
    return scaler.apply(x)


scaler.fit(jnp.arange(4.0))
first = normalise(jnp.ones(3))
scaler.fit(jnp.arange(8.0))  # after the trace: the compiled function keeps the old scale
second = normalise(jnp.ones(3))
""",
        """
import jax
import jax.numpy as jnp


class Material:
    def __init__(self):
        self.E = 10.0
        self.energy = self.make_energy()

    def make_energy(self):
        @jax.jit
        def energy(x):
            return self.E * x  # JIT201

        return energy

    def set_params(self, E):
        self.E = E


m = Material()
first, second = [], []
for E in (10.0, 20.0):
    m.set_params(E)  # the second time after the trace: the jitted closure keeps E = 10.0
    first, second = second, m.energy(jnp.ones(2))
""",
        """
from functools import partial
import jax
import jax.numpy as jnp


class Model:
    @partial(jax.jit, static_argnums=0)
    def apply(self, x):
        return self.fn(x)  # JIT201

    def assign_fn(self, fn):
        self.fn = fn


m = Model()
m.assign_fn(jnp.sin)
first = m.apply(jnp.ones(2))
m.assign_fn(jnp.cos)  # after the trace: the cached program keeps sin
second = m.apply(jnp.ones(2))
""",
    )

    def visit_Name(self, node: cst.Name, ctx: RuleContext) -> None:
        """Check a name read inside jitted code."""
        name = node.value
        if ctx.is_write_root(node):
            return  # mutating the global is JIT202's finding
        if ctx.rebound_after_trace(name):
            self.report(
                ctx,
                node,
                f"jitted code reads `{name}` from the enclosing function, which rebinds it "
                "after the jitted function is made; jit caches the trace, so later calls keep "
                "the old value: pass it as an argument",
            )
            return
        if not ctx.is_module_global(name) or not ctx.is_stale_prone(name):
            return
        if _bound_before_def(name, ctx):
            return  # `env = Wrapper(env)` several times, then the function that reads it
        if _private_memo(name, ctx):
            return  # `if key in _CACHE: return _CACHE[key]`, filled by this function only
        how = "mutated" if ctx.is_mutated(name) else "reassigned"
        self.report(ctx, node, name=name, how=how)

    def visit_Assign(self, node: cst.Assign, ctx: RuleContext) -> None:
        """Note the targets (writes), and the reads of `self.x` in a statement that also
        writes `self.x`."""
        super().visit_Assign(node, ctx)
        self._note_rewritten(node, ctx)

    def visit_AugAssign(self, node: cst.AugAssign, ctx: RuleContext) -> None:
        """Note the targets (writes), and the reads of `self.x` in a statement that also
        writes `self.x`."""
        super().visit_AugAssign(node, ctx)
        self._note_rewritten(node, ctx)

    def _note_rewritten(self, node: cst.Assign | cst.AugAssign, ctx: RuleContext) -> None:
        """`self.key, sub = split(self.key)` under a trace: reading the field to store its
        successor is the write's mistake (JIT202's finding), not another one."""
        written = {t.attr.value for t in changed_attributes(node) if _is_self(t.value)}
        if not written:
            return
        skip: set[int] = state(ctx, "JIT201.rewritten", set)
        skip.update(
            id(n)
            for n in descendants(node.value)
            if type(n) is cst.Attribute and _is_self(n.value) and n.attr.value in written
        )

    def visit_Attribute(self, node: cst.Attribute, ctx: RuleContext) -> None:
        """Check `mod.NAME` of another project module and `self.x` of a static `self`."""
        if ctx.is_write_root(node):
            return
        found = ctx.project_global(node)
        if found is not None:
            if found.name == node.attr.value and found.changes is not None:
                self.report(ctx, node, name=found.shown, how=found.changes)
            return
        self._static_self_attribute(node, ctx)

    def _static_self_attribute(self, node: cst.Attribute, ctx: RuleContext) -> None:
        """Check `self.x` read where `self` is static to the trace and `x` changes later."""
        base = node.value
        if isinstance(base, cst.Attribute):
            self._static_self_chain(node, ctx)
            return
        if (
            not isinstance(base, cst.Name)
            or id(node) in assignment_targets(ctx)
            or ctx.is_write_root(base)
            or id(node) in state(ctx, "JIT201.rewritten", set)
        ):
            return  # a write (`self.x = v`, `self.x.append(v)`): JIT202's finding
        if ctx.traced_afresh:
            return  # `jax.jit(obj.f)(x)`: each call traces anew and reads the object as it is
        cls = ctx.enclosing_class
        method = ctx.enclosing_method("self") if base.value == "self" and cls is None else None
        if method is not None:
            # `self` closed over by a jitted function that a method outside the trace makes:
            # stale when the method runs once per object (from its constructor), so one
            # trace serves every later call.
            if not _made_in_constructor(*method):
                return
            cls = method[0]
        elif ctx.taint(base) is not Taint.STATIC:
            return  # a traced (pytree) `self` is an argument: its fields are read per call
        elif cls is None and base.value == "self":
            cls = ctx.self_class()  # a scan body nested in the jitted method reads it too
        if base.value != "self" or cls is None:
            self._static_argument_attribute(node, base.value, ctx)
            return
        attr = _property_field(cls, node.attr.value)
        if method is None and ctx.stored_on_self(attr):
            return  # `self.v += a * dt`, then `self.p += self.v * dt`: reads this trace's value
        if attr in _reassigned_attributes(cls, ctx) or attr in _attribute_writes(ctx):
            if code(node) in trace_guards(ctx):
                return  # `assert not self.traced` before `self.traced = True`: for the trace
            if _set_before_tracing(cls, attr, ctx):
                return  # `kernel.init(key, shape)` at the top, then the jitted calls
            if _set_once(cls, attr, ctx):
                return  # `if not self.initialized: self.initialize(x)`, then the jitted step
            self.report(
                ctx,
                node,
                f"`self.{attr}` is read from a static `self` but changed outside `__init__`; "
                "jit caches the trace by `self` (even when `__hash__` reads the field), so "
                "later calls keep the old value: pass it as an argument, or make `self` a pytree",
            )

    def _static_self_chain(self, node: cst.Attribute, ctx: RuleContext) -> None:
        """Check `self.a.b` read where `self` is static to the trace and a method of its
        class replaces `self.a.b` later (`self.ac.pi_state = new_state`): the object `self.a`
        is the same, so the trace cached for `self` keeps the old `b`."""
        path = _self_path(node)
        if (
            path is None
            or id(node) in assignment_targets(ctx)
            or ctx.is_write_root(node)
            or ctx.traced_afresh
        ):
            return
        root = node.value
        while isinstance(root, cst.Attribute):
            root = root.value
        if not isinstance(root, cst.Name) or ctx.taint(root) is not Taint.STATIC:
            return
        cls = ctx.enclosing_class or ctx.self_class()
        if cls is None or path not in _reassigned_attributes(cls, ctx):
            return
        if code(node) in trace_guards(ctx) or _set_before_tracing(cls, path, ctx):
            return
        self.report(
            ctx,
            node,
            f"`self.{path}` is read from a static `self`, and a method of the class replaces it "
            "later; jit caches the trace by `self`, whose attributes are the same objects, so "
            "later calls keep the old value: pass it as an argument, or make `self` a pytree",
        )

    def _static_argument_attribute(self, node: cst.Attribute, name: str, ctx: RuleContext) -> None:
        """Check `p.x` read where `p` is a static argument and the module sets `.x` later."""
        scope = ctx.scope
        if not isinstance(scope, cst.FunctionDef | cst.Lambda) or name not in param_names(
            scope.params
        ):
            return
        if node.attr.value in _attribute_writes(ctx) and not _immutable_param(scope, name, ctx):
            self.report(
                ctx,
                node,
                f"`{name}.{node.attr.value}` is read from a static argument, and the module sets "
                f"`.{node.attr.value}` on an object outside a constructor; jit caches the trace "
                "by the argument's hash, so a changed attribute keeps its old value: pass it as "
                "an array argument, or make the object an immutable pytree",
            )


def _immutable_param(fn: cst.FunctionDef | cst.Lambda, name: str, ctx: RuleContext) -> bool:
    """Tell whether parameter ``name`` is annotated with a project class whose instances
    cannot have an attribute set: a `NamedTuple`, a frozen dataclass (flax's
    `struct.dataclass` is one), an equinox `Module`. A write of the same attribute name
    elsewhere is on some other object."""
    param = next(
        (
            p
            for p in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params)
            if p.name.value == name
        ),
        None,
    )
    if param is None or param.annotation is None:
        return False
    annotation = param.annotation.annotation
    if type(annotation) is cst.SimpleString:
        shown = annotation.evaluated_value
        spelled = shown if isinstance(shown, str) else None
    else:
        spelled = dotted(annotation)
    cls = ctx.class_named(spelled.rsplit(".", 1)[-1]) if spelled else None
    if cls is None:
        return False
    for base in cls.bases:
        q = ctx.qualname(base.value) or dotted(base.value) or ""
        if q.rsplit(".", 1)[-1] == "NamedTuple" or q == "equinox.Module":
            return True
    for dec in cls.decorators:
        expr = dec.decorator
        if ctx.qualname(expr.func if type(expr) is cst.Call else expr) == "flax.struct.dataclass":
            return True
    options = dataclass_options(cls, ctx)
    return options is not None and options.get("frozen") == "True"


def _property_field(cls: cst.ClassDef, attr: str) -> str:
    """Return the attribute a read of ``attr`` reads: the field a `@property` of ``cls``
    named so returns as it is (`def buffer_state(self): return self._buffer_state`), else
    ``attr`` itself."""
    for m in suite_statements(cls.body):
        if (
            type(m) is cst.FunctionDef
            and m.name.value == attr
            and any(last_name(d.decorator) == "property" for d in m.decorators)
        ):
            body = list(suite_statements(m.body))
            line = body[0] if len(body) == 1 else None
            if type(line) is cst.SimpleStatementLine and type(line.body[0]) is cst.Return:
                value = line.body[0].value
                if type(value) is cst.Attribute and _is_self(value.value):
                    return value.attr.value
    return attr


_PER_OBJECT_CACHES = frozenset({"cached_property", "cache", "lru_cache"})


def _made_in_constructor(cls: cst.ClassDef, method: cst.FunctionDef) -> bool:
    """Tell whether ``method`` runs once per object: it is a constructor, a constructor of
    ``cls`` calls it on `self` (`self.f = self.get_fn()` in `__init__`), or it is a
    `cached_property` (or a `functools.cache` method): its value is made once and kept."""
    name = method.name.value
    if name in SETUP_METHODS or any(
        last_name(d.decorator) in _PER_OBJECT_CACHES for d in method.decorators
    ):
        return True  # (a `cached_property` runs once per object and keeps what it made)
    return any(
        isinstance(m, cst.FunctionDef)
        and m.name.value in SETUP_METHODS
        and any(
            isinstance(n, cst.Call)
            and isinstance(n.func, cst.Attribute)
            and _is_self(n.func.value)
            and n.func.attr.value == name
            for n in descendants(m)
        )
        for m in suite_statements(cls.body)
    )


def _attribute_writes(ctx: RuleContext) -> frozenset[str]:
    """Return the attributes the module assigns on objects outside constructors
    (`m.data += 1`, `cfg.scale = 2.0`)."""
    return state(ctx, "JIT201.attribute-writes", lambda: _collect_attribute_writes(ctx.module))


def _is_self(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "self"


def _self_path(node: cst.Attribute) -> str | None:
    """Return the dotted path of an attribute chain on `self` (`self.ac.pi_state` ->
    `ac.pi_state`), or None when the chain does not start at `self`."""
    parts = [node.attr.value]
    base = node.value
    while isinstance(base, cst.Attribute):
        parts.append(base.attr.value)
        base = base.value
    return ".".join(reversed(parts)) if _is_self(base) else None


def _bound_before_def(name: str, ctx: RuleContext) -> bool:
    """Tell whether module global ``name``, rebound only by module-level statements (loops
    too) and never mutated, can only be seen with one value by the traced function walked:
    bound last before its definition (`env = LogWrapper(env)`, then `def rollout`), or
    rebound only where no trace can see it (`_one_value_per_trace`)."""
    if ctx.rebound_by_function(name):
        return False
    if ctx.is_rebound(name):
        # Rebound by module-level loops or augmented assignments: one value per trace only
        # when all of them come before the definition (`ip = ip.at[k].set(i)` in a loop,
        # then `@jax.jit def loop_set`); a loop after it is a training loop's rebinding.
        return not ctx.is_mutated(name) and (
            _bound_only_before(name, ctx.scope, ctx)
            or _rebound_unused(ctx.scope, ctx)
            or _defined_per_iteration(name, ctx.scope, ctx)
        )
    if ctx.is_mutated(name):
        return _filled_before_def(name, ctx)
    return _one_value_per_trace(name, ctx.scope, ctx)


def _bound_only_before(name: str, scope: cst.CSTNode, ctx: RuleContext) -> bool:
    """Tell whether every module-level binding of ``name`` comes before the definition of
    the module-level function (or class, or lambda) holding ``scope``."""
    found = _definition(scope, ctx)
    return found is not None and not _later_bindings(name, found)


def _definition(scope: cst.CSTNode, ctx: RuleContext) -> tuple[_ModuleUses, int, str] | None:
    """Return the module's uses, and the rank and name of the module-level definition
    holding ``scope`` (None when no module-level statement defines it)."""
    uses = _module_uses(ctx)
    top = uses.holder.get(id(scope), id(scope))
    if top not in uses.defined:
        return None
    where, fn_name = uses.defined[top]
    return uses, where, fn_name


def _later_bindings(name: str, found: tuple[_ModuleUses, int, str]) -> list[int]:
    """Return the ranks of the module-level bindings of ``name`` after the definition."""
    uses, where, _ = found
    return [rank for rank in uses.binds.get(name, ()) if rank > where]


def _defined_per_iteration(name: str, scope: cst.CSTNode, ctx: RuleContext) -> bool:
    """Tell whether the function holding ``scope`` is defined in a module-level loop and
    sees ``name`` with one value per trace there (`_fresh_per_iteration`)."""
    found = _definition(scope, ctx)
    if found is None:
        return False
    uses, _, fn_name = found
    where = uses.looped.get(uses.holder.get(id(scope), id(scope)))
    return where is not None and _fresh_per_iteration(name, fn_name, uses, where)


def _rebound_unused(scope: cst.CSTNode, ctx: RuleContext) -> bool:
    """Tell whether the module-level function holding ``scope`` is defined again (in a
    loop too) before any statement uses its name: that object is never called, so never
    traced, and nothing it reads can go stale (a notebook's first draft of a step, redefined
    in the training loop below it)."""
    found = _definition(scope, ctx)
    if found is None:
        return False
    uses, where, fn_name = found
    if uses.holder.get(id(scope), id(scope)) in uses.looped:
        return False
    for stmt in uses.statements:
        if stmt.rank <= where:
            continue
        if fn_name in stmt.reads | stmt.body | stmt.escapes | stmt.wraps:
            return False
        if fn_name in stmt.binds:
            return True
    return False


def _private_memo(name: str, ctx: RuleContext) -> bool:
    """Tell whether module global ``name`` is a memo cache of the function walked: nothing
    outside that function names it but its module-level binding (`_CACHE = {}`), and the
    function tests what it holds (`if key in _CACHE:`). What the cache holds for a key is
    what the function computes for that key, so a trace that read it holds no stale value
    (whether it stores tracers there is JIT202's question)."""
    scope = ctx.scope
    if not isinstance(scope, cst.FunctionDef):
        return False
    found: dict[tuple[int, str], bool] = state(ctx, "JIT201.memo-caches", dict)
    key = (id(scope), name)
    if key not in found:
        found[key] = _is_private_memo(name, scope, ctx.module)
    return found[key]


_READ_METHODS = frozenset({"get", "keys", "values", "items", "copy", "__contains__"})


def _is_private_memo(name: str, scope: cst.FunctionDef, module: cst.Module) -> bool:
    tested = any(
        type(n) is cst.ComparisonTarget
        and type(n.operator) in (cst.In, cst.NotIn)
        and type(n.comparator) is cst.Name
        and n.comparator.value == name
        for n in descendants(scope)
    )
    if not tested:
        return False
    bindings = 0
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        if node is scope:
            continue  # the function's own changes are the cache's filling
        kind = type(node)
        targets: list[cst.BaseExpression] = []
        if kind is cst.Assign:
            targets = [t.target for t in cast(cst.Assign, node).targets]
        elif kind is cst.AugAssign or kind is cst.AnnAssign or kind is cst.Del:
            targets = [cast(cst.AugAssign, node).target]
        elif kind is cst.Call:
            call = cast(cst.Call, node)
            func = call.func
            if (
                type(func) is cst.Attribute
                and root_name(func.value) == name
                and func.attr.value not in _READ_METHODS
            ):
                return False  # `_CACHE.clear()` elsewhere
            if any(type(a.value) is cst.Name and a.value.value == name for a in call.args):
                return False  # handed to another function, which may change it
        elif kind is cst.Global and any(n.name.value == name for n in cast(cst.Global, node).names):
            return False  # rebound by another function
        for t in targets:
            if type(t) is cst.Name and t.value == name:
                bindings += 1
            elif root_name(t) == name:
                return False  # `_CACHE[k] = v` elsewhere
        stack.extend(child_nodes(node))
    return bindings == 1


def _filled_before_def(name: str, ctx: RuleContext) -> bool:
    """Tell whether module global ``name`` is changed in place only by module-level
    statements that come before the definition of the function walked: a registry filled
    at import (`_kernels = {}`, `_kernels[LINEAR] = triangle`, then `def resize`), which
    every trace sees full."""
    found: dict[str, tuple[int, ...] | None] = state(
        ctx, "JIT201.module-mutations", lambda: _module_mutations(ctx.module)
    )
    where = found.get(name)
    if not where:
        return False  # changed inside a function, a class or a block, or not recognised
    uses = _module_uses(ctx)
    top = uses.holder.get(id(ctx.scope), id(ctx.scope))
    index = next((i for i, stmt in enumerate(ctx.module.body) if id(stmt) == top), None)
    return index is not None and max(where) < index


def _module_mutations(module: cst.Module) -> dict[str, tuple[int, ...] | None]:
    """Map each name the module changes in place (`name[k] = v`, `name.a = v`,
    `del name[k]`, `name.update(d)`) to the indices of the module-level statements that do;
    to None when anything else changes it (a statement inside a function, a class or a
    block). One walk of the module."""
    top: dict[int, int] = {}
    for index, stmt in enumerate(module.body):
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                top[id(small)] = index
                if isinstance(small, cst.Expr):
                    top[id(small.value)] = index
    out: dict[str, tuple[int, ...] | None] = {}
    for node in descendants(module):
        kind = type(node)
        targets: list[cst.BaseExpression]
        if kind is cst.Assign:
            targets = [t.target for t in cast(cst.Assign, node).targets]
        elif kind is cst.AugAssign or kind is cst.AnnAssign or kind is cst.Del or kind is cst.For:
            targets = [cast(cst.AugAssign, node).target]
        elif (
            kind is cst.Call
            and type(cast(cst.Call, node).func) is cst.Attribute
            and cast(cst.Attribute, cast(cst.Call, node).func).attr.value in MUTATING_METHODS
        ):
            targets = [cast(cst.Call, node).func]
        else:
            continue
        roots: set[str] = set()
        for t in targets:
            parts = [e.value for e in t.elements] if isinstance(t, cst.Tuple | cst.List) else [t]
            for part in parts:
                if isinstance(part, cst.Subscript | cst.Attribute):
                    root = root_name(part.value)
                    if root is not None:
                        roots.add(root)
        for root in roots:
            if id(node) not in top:
                out[root] = None
            else:
                known = out.get(root, ())
                if known is not None:
                    out[root] = (*known, top[id(node)])
    return out


def _one_value_per_trace(name: str, scope: cst.CSTNode, ctx: RuleContext) -> bool:
    """Tell whether no trace of the function holding ``scope`` (a module-level function,
    class or lambda, or one nested in it) can see module global ``name`` change.

    With no module-level binding after the definition, it sees the last one. Otherwise it
    is stale only when one function object is used (so traced) before a rebinding and used
    again after it: a module's importers call it after the module ran, a notebook moves on
    to a new `update = dynamics(...)`. A use is a module-level statement naming the
    function, or a name bound to it: `step = jax.jit(f)` wraps the same object and shares
    its cache, `model = Model()` shares its class's methods, a factory's call
    (`step = make_step()`) makes a new one; until a statement binds that name to something
    else. Inside a module-level loop, a statement is at the loop's end. A function or class
    body that names it, or a statement that stores it away (`obj.f = f`,
    `hooks.append(f)`), lets it run at any time: then it is stale.
    """
    found = _definition(scope, ctx)
    if found is None:
        return False
    uses, where, fn_name = found
    top = uses.holder.get(id(scope), id(scope))
    if top in uses.looped:
        return _fresh_per_iteration(name, fn_name, uses, uses.looped[top])
    later = _later_bindings(name, found)
    if not later:
        return True  # every binding comes before the function: it sees the last one
    # Each function object that reads the global, and the ranks it is used at. The
    # definition is the first; a factory's call makes a new one (`step = make_step()`); a
    # wrapper (`step = jax.jit(f)`) or an instance (`model = Model()`) shares the object.
    fresh = top in uses.factories
    shared = top in uses.classes  # its instances share the class's jitted methods
    used: list[list[int]] = [[]]
    held = {fn_name: 0}
    for stmt in uses.statements:
        if stmt.rank <= where:
            continue
        if stmt.body & held.keys() or stmt.escapes & held.keys():
            return False  # a body, or a store (`hooks.append(f)`): called at any time
        made = fresh and fn_name in stmt.calls and fn_name in held
        for name in stmt.reads & held.keys():
            if not (made and name == fn_name):
                used[held[name]].append(stmt.rank)
        wrapped = [held[name] for name in stmt.wraps & held.keys()]
        if shared and fn_name in stmt.calls and fn_name in held:
            wrapped.append(held[fn_name])  # `model = Model()`
        for name in stmt.binds:
            held.pop(name, None)
        if made:
            used.append([])
            held.update(dict.fromkeys(stmt.binds, len(used) - 1))
        elif wrapped:
            held.update(dict.fromkeys(stmt.binds, wrapped[0]))
        if not held:
            break
    # Stale only when one object is used (traced) before a rebinding and used again after
    return not any(ranks and ranks[0] <= b <= ranks[-1] for ranks in used for b in later)


def _fresh_per_iteration(
    name: str, fn_name: str, uses: _ModuleUses, where: tuple[int, int, int]
) -> bool:
    """Tell whether a function defined in a module-level loop sees module global ``name``
    with one value per trace. Each iteration defines a new object, traced afresh by its
    first use; it is stale only when it is used, ``name`` rebound, and it is used again,
    along the statements it lives through: the rest of the loop body, then the start of the
    next iteration up to its definition, or (the last object) the statements after the loop.
    A loop among those runs its body again after its own later statements: it is read twice.
    """
    start, index, end = where
    statements = uses.statements
    rest = _twice(statements[index + 1 : end], lambda s: s.depth > 1 or None)
    again = _twice(statements[start:index], lambda s: s.depth > 1 or None)
    after = _twice(statements[end:], lambda s: s.rank if s.depth else None)
    return not _stale_along(name, fn_name, rest + again) and not _stale_along(
        name, fn_name, rest + after
    )


def _twice(
    statements: Sequence[_Statement], loop: Callable[[_Statement], object]
) -> list[_Statement]:
    """Return ``statements`` with each run of statements of one loop (``loop`` gives the
    same key, not None) repeated once: a loop body runs again after its later statements."""
    out: list[_Statement] = []
    for key, run in groupby(statements, loop):
        group = list(run)
        out.extend(group * (1 if key is None else 2))
    return out


def _stale_along(name: str, fn_name: str, statements: Sequence[_Statement]) -> bool:
    """Tell whether, along ``statements``, the function ``fn_name`` (or a name wrapping it,
    `step = jax.jit(f)`) is used, then ``name`` rebound, then the function used again; or
    stored away or named in a function body, which can run at any time."""
    held = {fn_name}
    used = rebound = False
    for stmt in statements:
        if stmt.body & held or stmt.escapes & held:
            return True
        if stmt.reads & held:
            if rebound:
                return True
            used = True
        if used and name in stmt.binds:
            rebound = True
        wrapped = bool(stmt.wraps & held)
        held -= stmt.binds
        if wrapped:
            held |= stmt.binds
        if not held:
            break
    return False


@dataclass(frozen=True)
class _Statement:
    """A module-level statement: its rank in source order (in a loop, the loop's last), the
    names it reads, those it binds, those its value wraps (`g = f`, `g = jax.jit(f, ...)`,
    `g = partial(f, ...)`: the first argument), those it calls for its value (`g = f(x)`),
    those it stores away (`obj.f = f`, `hooks.append(f)`), and for a definition, the names
    its body reads."""

    rank: int
    reads: frozenset[str]
    binds: frozenset[str]
    wraps: frozenset[str] = frozenset()
    calls: frozenset[str] = frozenset()
    escapes: frozenset[str] = frozenset()
    body: frozenset[str] = frozenset()
    depth: int = 0  # how many module-level loops hold it


@dataclass(frozen=True)
class _ModuleUses:
    """The module-level statements in order, where each name is bound, where each
    top-level function or class is defined (rank, name), for each function or lambda
    nested in one, that one; which of them are classes, and which are factories (they
    return a function they define); for a function defined in a module-level loop (not
    itself in another loop), the indices in ``statements`` of the loop's header, of the
    definition, and of the first statement after the loop."""

    statements: list[_Statement]
    binds: dict[str, list[int]]
    defined: dict[int, tuple[int, str]]
    holder: dict[int, int]
    classes: set[int]
    factories: set[int]
    looped: dict[int, tuple[int, int, int]] = field(default_factory=dict)


_STORING_METHODS = frozenset({"append", "extend", "insert", "add", "update", "setdefault"})


def _names(node: cst.CSTNode | None) -> frozenset[str]:
    return frozenset() if node is None else frozenset(n.value for n in variable_names(node))


def _simple_statement(rank: int, small: cst.BaseSmallStatement) -> _Statement:
    """Read one module-level simple statement (see `_Statement`)."""
    reads, binds = _names(small), frozenset(_bound_names(small))
    value = small.value if isinstance(small, cst.Assign | cst.AnnAssign) else None
    wraps: frozenset[str] = frozenset()
    calls: frozenset[str] = frozenset()
    escapes: frozenset[str] = frozenset()
    if isinstance(value, cst.Name):
        wraps = frozenset({value.value})
    elif isinstance(value, cst.Call):
        root = root_name(value.func)
        calls = frozenset() if root is None else frozenset({root})
        first = value.args[0].value if value.args and value.args[0].keyword is None else None
        if isinstance(first, cst.Name):
            wraps = frozenset({first.value})
    if isinstance(small, cst.Assign) and any(
        isinstance(t.target, cst.Attribute | cst.Subscript) for t in small.targets
    ):
        escapes = _stored_names(small.value)
    elif (
        isinstance(small, cst.Expr)
        and isinstance(small.value, cst.Call)
        and isinstance(small.value.func, cst.Attribute)
        and small.value.func.attr.value in _STORING_METHODS
    ):
        escapes = frozenset().union(*(_stored_names(a.value) for a in small.value.args))
    return _Statement(rank, reads, binds, wraps, calls, escapes)


def _stored_names(value: cst.BaseExpression) -> frozenset[str]:
    """Return the names whose objects ``value`` may hold: those it reads, less those it
    only calls (`results.append(step(x))` stores what `step` returns, not `step`)."""
    if type(value) is cst.Name:
        return frozenset({value.value})
    names = list(variable_names(value))
    if not names:
        return frozenset()
    called = {
        id(node.func)
        for node in descendants(value)
        if type(node) is cst.Call and type(node.func) is cst.Name
    }
    return frozenset(n.value for n in names if id(n) not in called)


def _returns_own_function(fn: cst.FunctionDef) -> bool:
    """Tell whether ``fn`` returns a function it defines (`return step`, `return
    jax.jit(step)`, `return lambda x: ...`): a factory."""
    own = set(scope_names(fn.body).defs)
    for node in descendants(fn.body):
        if isinstance(node, cst.Return):
            value = node.value
            if isinstance(value, cst.Lambda) or (value is not None and _names(value) & own):
                return True
    return False


def _module_uses(ctx: RuleContext) -> _ModuleUses:
    def collect() -> _ModuleUses:
        uses = _ModuleUses([], {}, {}, {}, set(), set())
        rank = 0
        depth = 0
        in_loop: dict[int, int] = {}  # a definition in a loop: its index in the statements

        def add(stmt: _Statement) -> None:
            uses.statements.append(replace(stmt, depth=depth) if depth else stmt)

        def walk(body: Sequence[cst.CSTNode]) -> None:
            nonlocal rank, depth
            for stmt in body:
                rank += 1
                if isinstance(stmt, cst.FunctionDef | cst.ClassDef):
                    uses.defined[id(stmt)] = (rank, stmt.name.value)
                    if depth == 1 and isinstance(stmt, cst.FunctionDef):
                        in_loop[id(stmt)] = len(uses.statements)
                    if isinstance(stmt, cst.ClassDef):
                        uses.classes.add(id(stmt))
                    elif _returns_own_function(stmt):
                        uses.factories.add(id(stmt))
                    for node in descendants(stmt.body):
                        if type(node) is cst.FunctionDef or type(node) is cst.Lambda:
                            uses.holder[id(node)] = id(stmt)
                    reads = frozenset().union(*(_names(d) for d in stmt.decorators))
                    name = frozenset({stmt.name.value})
                    params = stmt.params if isinstance(stmt, cst.FunctionDef) else None
                    own = scope_names(stmt.body, params).locals  # its own names: not ours
                    add(_Statement(rank, reads, name, body=_names(stmt.body) - own))
                elif isinstance(stmt, cst.SimpleStatementLine):
                    for small in stmt.body:
                        found = _simple_statement(rank, small)
                        add(found)
                        if isinstance(small, cst.Assign) and isinstance(small.value, cst.Lambda):
                            # `energy = lambda r: ...`: defined here, under its name
                            bound = sorted(found.binds)
                            uses.defined[id(small.value)] = (rank, bound[0] if bound else "")
                            for node in descendants(small.value):
                                if type(node) is cst.Lambda:
                                    uses.holder[id(node)] = id(small.value)
                else:
                    start = len(uses.statements)
                    suites = statement_children(stmt)
                    held = {id(c) for c in suites}
                    header = [c for c in child_nodes(stmt) if id(c) not in held]
                    target = target_names(stmt.target) if isinstance(stmt, cst.For) else ()
                    reads = frozenset().union(*(_names(h) for h in header))
                    add(_Statement(rank, reads, frozenset(target)))
                    loop = isinstance(stmt, cst.For | cst.While)
                    depth += loop
                    for suite in suites:
                        walk(_statements_of(suite))
                    depth -= loop
                    if loop:
                        # the body runs again after its own later statements
                        uses.statements[start:] = [
                            replace(s, rank=rank) for s in uses.statements[start:]
                        ]
                        if depth == 0:
                            end = len(uses.statements)
                            for fn, index in in_loop.items():
                                if start < index < end:
                                    uses.looped[fn] = (start, index, end)

        walk(ctx.module.body)
        for stmt in uses.statements:  # at their final ranks: a loop's bindings at its end
            for name in stmt.binds:
                uses.binds.setdefault(name, []).append(stmt.rank)
        return uses

    found: _ModuleUses = state(ctx, "JIT201.module-uses", collect)
    return found


def _statements_of(node: cst.CSTNode) -> list[cst.CSTNode]:
    """Return the statements a block holds: a suite's, or those of an `else:`, `except:` or
    `finally:` clause; an `elif` is a statement of its own."""
    if isinstance(node, cst.BaseSuite):
        return list(suite_statements(node))
    if isinstance(node, cst.BaseCompoundStatement):
        return [node]
    return [s for c in statement_children(node) for s in _statements_of(c)]


def _bound_names(small: cst.BaseSmallStatement) -> list[str]:
    """Return the names a simple statement binds at module level."""
    if isinstance(small, cst.Assign):
        return [n for t in small.targets for n in target_names(t.target)]
    if isinstance(small, cst.AnnAssign | cst.AugAssign):
        return target_names(small.target)
    if isinstance(small, cst.Import | cst.ImportFrom) and not isinstance(
        small.names, cst.ImportStar
    ):
        return [
            (
                a.asname.name.value
                if a.asname and isinstance(a.asname.name, cst.Name)
                else (dotted(a.name) or "").split(".")[0]
            )
            for a in small.names
        ]
    return []


def _set_once(cls: cst.ClassDef, attr: str, ctx: RuleContext) -> bool:
    """Tell whether every write of ``attr`` in the module is on `self`, in a constructor or
    in a method ``cls`` runs only once behind a run-once flag."""
    writers = _all_writers(ctx).get(attr)
    if not writers:
        return False
    once = _run_once_methods(cls, ctx) | SETUP_METHODS
    return all(method is not None and method in once for method in writers)


def _all_writers(ctx: RuleContext) -> dict[str, set[str | None]]:
    """Map each attribute the module changes to the methods that change it on `self` (None
    for a write anywhere else: on another object, or outside a method)."""

    def collect() -> dict[str, set[str | None]]:
        out: dict[str, set[str | None]] = {}
        methods: set[int] = set()
        for node in statements(ctx.module):
            if isinstance(node, cst.ClassDef):
                methods.update(
                    id(m) for m in suite_statements(node.body) if isinstance(m, cst.FunctionDef)
                )
        stack: list[tuple[cst.CSTNode, str | None]] = [(ctx.module, None)]
        while stack:
            node, method = stack.pop()
            for child in statement_children(node):
                if isinstance(child, cst.FunctionDef):
                    stack.append((child, child.name.value if id(child) in methods else None))
                    continue
                for t in changed_attributes(child):
                    where = method if _is_self(t.value) else None
                    out.setdefault(t.attr.value, set()).add(where)
                stack.append((child, method))
        return out

    found: dict[str, set[str | None]] = state(ctx, "JIT201.all-writers", collect)
    return found


def _lineage(cls: cst.ClassDef, ctx: RuleContext) -> list[cst.ClassDef]:
    """Return ``cls`` and the base classes of it the module defines, nearest first."""
    out = [cls]
    k = 0
    while k < len(out) and len(out) < 16:
        for base in out[k].bases:
            if isinstance(base.value, cst.Name):
                found = ctx.class_named(base.value.value)
                if found is not None and all(found is not c for c in out):
                    out.append(found)
        k += 1
    return out


def _run_once_methods(cls: cst.ClassDef, ctx: RuleContext) -> frozenset[str]:
    """Return the methods a class (with the bases the module defines) calls only behind a
    run-once flag: `if not self.initialized: self.initialize(x)`, where the class sets
    `self.initialized = True`. Like a constructor, they set what they set once."""
    found: dict[int, frozenset[str]] = state(ctx, "JIT201.run-once", dict)
    if id(cls) not in found:
        found[id(cls)] = _find_run_once_methods(cls, ctx)
    return found[id(cls)]


def _find_run_once_methods(cls: cst.ClassDef, ctx: RuleContext) -> frozenset[str]:
    lineage = _lineage(cls, ctx)
    methods = {
        m.name.value: m
        for c in reversed(lineage)
        for m in suite_statements(c.body)
        if isinstance(m, cst.FunctionDef)
    }
    everything = [n for c in lineage for n in statements(c)]
    guarded: dict[str, set[str]] = {}  # method -> the flags guarding its calls
    calls: dict[str, int] = {}  # method -> calls of it on `self` anywhere in the class
    for node in everything:
        for call in _self_calls(node):
            calls[call] = calls.get(call, 0) + 1
        if not isinstance(node, cst.If) or node.orelse is not None:
            continue
        test = node.test
        if not (
            isinstance(test, cst.UnaryOperation)
            and isinstance(test.operator, cst.Not)
            and isinstance(test.expression, cst.Attribute)
            and _is_self(test.expression.value)
        ):
            continue
        flag = test.expression.attr.value
        for inner in statements(node.body):
            for name in _self_calls(inner):
                guarded.setdefault(name, set()).add(flag)
    once: set[str] = set()
    for name, flags in guarded.items():
        method = methods.get(name)
        if method is None or len(flags) != 1:
            continue
        (flag,) = flags
        guards = sum(
            1
            for node in everything
            if isinstance(node, cst.If)
            for inner in statements(node.body)
            for c in _self_calls(inner)
            if c == name
        )
        # What the class stores in the flag outside its constructors: True, and nothing
        # else (a `reset` storing False would let the method run again, after a trace).
        stored = {
            code(n.value)
            for c in lineage
            for m in suite_statements(c.body)
            if isinstance(m, cst.FunctionDef) and m.name.value not in SETUP_METHODS
            for n in statements(m)
            if isinstance(n, cst.Assign)
            and any(
                isinstance(t.target, cst.Attribute)
                and _is_self(t.target.value)
                and t.target.attr.value == flag
                for t in n.targets
            )
        }
        if stored == {"True"} and guards == calls.get(name, 0):
            once.add(name)
    # A method only a constructor calls (`self._init_buffers()` in `__init__`, read nowhere
    # else in the module), or only such a method, runs once per object, as the constructor.
    setup = set(SETUP_METHODS)
    while True:
        calls_from_setup: Counter[str] = Counter(
            name
            for c in lineage
            for m in suite_statements(c.body)
            if isinstance(m, cst.FunctionDef) and m.name.value in setup
            for node in statements(m)
            for name in _self_calls(node)
        )
        more = {
            name
            for name, count in calls_from_setup.items()
            if name in methods and name not in setup and ctx.attribute_reads(name) == count
        }
        if not more:
            break
        setup |= more
        once |= more
    return frozenset(once)


def _self_calls(stmt: cst.CSTNode) -> list[str]:
    """Return the methods a simple statement calls on `self` (`self.initialize(x)`)."""
    if not isinstance(stmt, cst.Expr) or not isinstance(stmt.value, cst.Call):
        return []
    func = stmt.value.func
    if isinstance(func, cst.Attribute) and _is_self(func.value):
        return [func.attr.value]
    return []


def _constructor_decorators(module: cst.Module) -> frozenset[str]:
    """Return the names of the module's functions that decorate a constructor
    (`@register_to_config` on `__init__`): what they do runs as part of construction."""
    names: set[str] = set()
    for node in statements(module):
        if type(node) is cst.FunctionDef and node.name.value in SETUP_METHODS:
            for dec in node.decorators:
                d = dec.decorator
                if isinstance(d, cst.Name):
                    names.add(d.value)
    return frozenset(names)


def _collect_attribute_writes(module: cst.Module) -> frozenset[str]:
    """Return the attributes the module assigns on objects outside constructors."""
    return writes_outside(attribute_write_sites(module), module)


def writes_outside(sites: frozenset[tuple[str, str]], module: cst.Module) -> frozenset[str]:
    """Return the attributes of ``sites`` written outside a constructor's decorator."""
    constructing = _constructor_decorators(module)
    return frozenset(attr for attr, fn in sites if fn not in constructing)


def attribute_write_sites(module: cst.Module) -> frozenset[tuple[str, str]]:
    """Return the attributes the module assigns on objects outside constructors, each with
    the module-level function holding the write ("" for none): a function that decorates a
    constructor (`@register_to_config` on `__init__`) constructs, and its writes on `self`
    are left out by `writes_outside`."""
    writes: set[tuple[str, str]] = set()

    lazy: set[int] = set()  # lazily initialised targets met so far (the `if` comes first)
    configuring = _configuring_writes(module)

    def collect(node: cst.CSTNode, in_setup: bool, top: str) -> None:
        for child in statement_children(node):
            if type(child) is cst.FunctionDef:
                name = child.name.value
                collect(child, name in SETUP_METHODS, top or (name if node is module else ""))
                continue
            if type(child) is cst.If:
                lazy.update(lazy_targets(child))
            if id(child) in configuring:
                continue
            for t in changed_attributes(child):
                if not (in_setup and _is_self(t.value)) and id(t) not in lazy:
                    writes.add((t.attr.value, top if _is_self(t.value) else ""))
            collect(child, in_setup, top)

    collect(module, False, "")
    return frozenset(writes)


def _configuring_writes(module: cst.Module) -> set[int]:
    """Return the ids of the attribute writes that finish making an object: `loader =
    DataLoader(data)`, then `loader.batch_size = 32` before anything else reads `loader`.
    Nothing can have traced a method of the object before, so what they set is what every
    trace sees, as if the constructor had set it."""
    out: set[int] = set()
    suites: list[Sequence[cst.CSTNode]] = [module.body]
    for node in statements(module):
        body = getattr(node, "body", None)
        if type(body) is cst.IndentedBlock:
            suites.append(body.body)
    for suite in suites:
        fresh: dict[str, bool] = {}  # names of new objects, and whether deep copies
        for line in suite:
            if not fresh and type(line) is not cst.SimpleStatementLine:
                continue
            for small in line.body if type(line) is cst.SimpleStatementLine else (line,):
                made = _constructed_name(small)
                if made is not None:
                    name, deep = made
                    fresh.pop(name, None)
                    if not _mentions(cast(cst.Assign, small).value, {name}):
                        fresh[name] = deep
                    continue
                if not fresh:
                    continue
                changed = changed_attributes(small) if type(small) is not cst.Expr else []
                if (
                    changed
                    and all(_fresh_target(t, fresh) for t in changed)
                    and not _mentions(getattr(small, "value", None), set(fresh))
                ):
                    out.add(id(small))
                    continue
                for n in variable_names(small):
                    fresh.pop(n.value, None)
    return out


def _fresh_target(target: cst.Attribute, fresh: dict[str, bool]) -> bool:
    """Tell whether ``target`` is an attribute of a new object (`loader.batch_size`), or
    of what a deep copy holds (`config_bg.sampler.block_size` after `config_bg =
    copy.deepcopy(config)`): nothing else can reach it yet."""
    base = target.value
    if type(base) is cst.Name:
        return base.value in fresh
    while type(base) is cst.Attribute:
        base = base.value
    return type(base) is cst.Name and fresh.get(base.value, False)


def _constructed_name(stmt: cst.CSTNode) -> tuple[str, bool] | None:
    """Return ``x`` for `x = Cls(...)`, a call of a name spelled as a class (CapWords), or
    `x = copy.deepcopy(y)` (with True: a deep copy, whose parts are new as well)."""
    if type(stmt) is not cst.Assign or len(stmt.targets) != 1:
        return None
    target, value = stmt.targets[0].target, stmt.value
    if type(target) is not cst.Name or type(value) is not cst.Call:
        return None
    func = value.func
    last = (
        func.value if type(func) is cst.Name else getattr(getattr(func, "attr", None), "value", "")
    )
    if last == "deepcopy":
        return target.value, True
    if not last or not last[0].isupper() or last.isupper():
        return None
    return target.value, False


def _mentions(expr: cst.CSTNode | None, names: set[str]) -> bool:
    return expr is not None and any(n.value in names for n in variable_names(expr))


def _set_before_tracing(cls: cst.ClassDef, attr: str, ctx: RuleContext) -> bool:
    """Tell whether every method that changes ``self.<attr>``, and every statement that sets
    it from outside the class, runs only before any jitted function can have read it: each
    method is called somewhere in the module, every call is a statement of module-level
    code outside loops (`kernel.init(key, shape)` in the `__main__` block), and each comes
    before the first module-level call of a jitted function, or is made on an object a
    module-level statement made (`solver = EnK1(...)`) with no jitted call between the two;
    each outside write is module-level code, outside loops, before that first call. What
    runs before the first trace of an object is what that trace sees; no later call changes
    it."""
    writers = writer_methods(cls, ctx).get(attr) if "." not in attr else _path_writers(cls, attr)
    order = _module_level_order(ctx)
    leaf = attr.rpartition(".")[2]
    if leaf in writes_elsewhere(cls, ctx) and (
        leaf in writes_elsewhere(cls, ctx, in_functions=True)
        or not order.written_before_tracing(leaf)
    ):
        return False  # set from outside the class after a trace, or in a function
    if not writers:
        # set only by module-level statements before the first trace (`pl.vt_method =
        # "uniform"` in `__main__`, then `jax.jit(pl.log_posterior)(x)`)
        return leaf in writes_elsewhere(cls, ctx)
    seen = False
    for call in order.calls:
        if call.method not in writers:
            continue
        if call.in_loop or call.line < 0 or not order.before_tracing(call):
            return False
        seen = True
    return seen and not _called_in_functions(writers, ctx) and not _traces_itself(cls, writers, ctx)


def _path_writers(cls: cst.ClassDef, path: str) -> set[str]:
    """Return the methods of ``cls`` other than its constructors that change the attribute
    chain ``path`` on `self` (`self.config.solver_type = "bh2"` for `config.solver_type`)."""
    return {
        m.name.value
        for m in suite_statements(cls.body)
        if isinstance(m, cst.FunctionDef) and m.name.value not in SETUP_METHODS
        for n in statements(m)
        for t in changed_attributes(n)
        if _self_path(t) == path
    }


def _traces_itself(cls: cst.ClassDef, writers: set[str], ctx: RuleContext) -> bool:
    """Tell whether one of the ``writers`` calls a jitted method of ``cls`` on `self`
    (`train` calling `self.generate_trajectory(rng)` before `self.policy_state = new`):
    a trace runs inside it, before its write, however early the module calls it."""
    methods = {
        m.name.value: m for m in suite_statements(cls.body) if isinstance(m, cst.FunctionDef)
    }
    jitted = {name for name, m in methods.items() if m.decorators and ctx.def_spec(m) is not None}
    # `self.update_q = jax.jit(self._update_q)` in a method: `self.update_q(...)` traces too
    for attr, value in self_attribute_stores(cls):
        if type(value) is cst.Call and value.args:
            made = ctx.transform(value.func)
            if made is not None and made.caches:
                jitted.add(attr)
    return any(
        isinstance(n, cst.Call)
        and isinstance(n.func, cst.Attribute)
        and _is_self(n.func.value)
        and n.func.attr.value in jitted
        for name in writers
        if name in methods
        for n in descendants(methods[name])
    )


@dataclass(frozen=True)
class _MethodCall:
    """A method call `obj.method(...)`: the rank of the module-level statement holding it
    (-1 inside a function or class), whether a loop holds it, and its object's name."""

    method: str
    line: int
    in_loop: bool
    receiver: str | None


@dataclass
class _ModuleOrder:
    """The module's method calls in source order, and where jitted functions are called."""

    calls: list[_MethodCall] = field(default_factory=list)
    jit_calls: list[int] = field(default_factory=list)  # ranks of calls of jitted functions
    made: dict[str, list[int]] = field(default_factory=dict)  # `v = Cls(...)`: v -> ranks
    # `obj.a = v` outside the classes' methods: a -> ranks, -1 in a function or a loop
    written: dict[str, list[int]] = field(default_factory=dict)

    def written_before_tracing(self, attr: str) -> bool:
        """Tell whether every write of an attribute ``attr`` outside the classes' methods
        is module-level code, outside loops, before the first module-level jitted call
        (`pl.vt_method = "uniform"` in `__main__`, then `jax.jit(pl.log_posterior)(x)`)."""
        ranks = self.written.get(attr, [])
        return (
            bool(ranks)
            and bool(self.jit_calls)  # (jitted calls only in functions: order unknown)
            and all(r >= 0 for r in ranks)
            and all(r < line for r in ranks for line in self.jit_calls)
        )

    def before_tracing(self, call: _MethodCall) -> bool:
        """Tell whether ``call`` runs before any module-level jitted call, or on an object a
        module-level statement made after the last jitted call before it: no trace can
        have seen that object yet (a jitted function may read it as a global, so any
        jitted call counts, not only those given the object)."""
        if all(call.line < line for line in self.jit_calls):
            return True
        made = [r for r in self.made.get(call.receiver or "", ()) if r < call.line]
        return bool(made) and not any(max(made) <= line <= call.line for line in self.jit_calls)


def _module_level_order(ctx: RuleContext) -> _ModuleOrder:
    """Return the method calls (`obj.name(...)`) of the module in source order, the
    module-level statements that call a jitted function, and those that make an object."""

    def collect() -> _ModuleOrder:
        order = _ModuleOrder()
        # Methods the module's classes jit (`@partial(jax.jit, static_argnums=0)`): a call
        # `obj.m(...)` of one traces it.
        jitted_methods = {
            m.name.value
            for stmt in ctx.module.body
            if isinstance(stmt, cst.ClassDef)
            for m in suite_statements(stmt.body)
            if isinstance(m, cst.FunctionDef) and m.decorators and ctx.def_spec(m) is not None
        }
        jitted_names: set[str] = set()
        rank = 0
        stack: list[tuple[cst.CSTNode, int, bool]] = [
            (stmt, 0, False) for stmt in reversed(ctx.module.body)
        ]
        while stack:
            node, line, in_loop = stack.pop()
            kind = type(node)
            if kind is cst.FunctionDef or kind is cst.ClassDef or kind is cst.Lambda:
                line = -1
            elif line >= 0 and isinstance(node, cst.BaseSmallStatement | cst.BaseCompoundStatement):
                rank += 1
                line = rank
                in_loop = in_loop or kind is cst.For or kind is cst.While
                for t in changed_attributes(node):
                    order.written.setdefault(t.attr.value, []).append(-1 if in_loop else rank)
                if kind is cst.Assign:
                    assign = cast(cst.Assign, node)
                    [*_, last] = assign.targets
                    if type(last.target) is cst.Name and type(assign.value) is cst.Call:
                        name = last.target.value
                        order.made.setdefault(name, []).append(rank)
                        made = ctx.transform(assign.value.func)
                        if made is not None and made.caches:
                            jitted_names.add(name)  # `jitted_calc = jit(c.calc)`
            elif kind is cst.Call:
                call = cast(cst.Call, node)
                func = call.func
                method = func.attr.value if type(func) is cst.Attribute else None
                receiver = None
                if method is not None and type(cast(cst.Attribute, func).value) is cst.Name:
                    receiver = cast(cst.Name, cast(cst.Attribute, func).value).value
                if method is not None and not (line < 0 and _on_self_field(func)):
                    order.calls.append(_MethodCall(method, line, in_loop, receiver))
                if line >= 0 and (
                    (type(func) is cst.Name and func.value in jitted_names)
                    or ctx.jit_spec(call.func) is not None
                    or _jitted_def(call.func, ctx)
                    or method in jitted_methods
                ):
                    order.jit_calls.append(line)
            stack.extend((child, line, in_loop) for child in reversed(child_nodes(node)))
        return order

    found: _ModuleOrder = state(ctx, "JIT201.module-order", collect)
    return found


def _on_self_field(func: cst.BaseExpression) -> bool:
    """Tell whether ``func`` is a method of an object a field of `self` holds
    (`self.model.init`, `self.optimizer.init` in a method): another object than the one
    whose own `init` sets its fields."""
    receiver = func.value if isinstance(func, cst.Attribute) else None
    return isinstance(receiver, cst.Attribute) and root_name(receiver) == "self"


def _jitted_def(func: cst.BaseExpression, ctx: RuleContext) -> bool:
    """Tell whether ``func`` names a function of the module under a caching transform."""
    resolved = ctx.resolve_function(func) if type(func) is cst.Name else None
    if resolved is None or not isinstance(resolved.fn, cst.FunctionDef):
        return False
    return ctx.def_spec(resolved.fn) is not None


def _called_in_functions(writers: set[str], ctx: RuleContext) -> bool:
    return any(c.method in writers and c.line < 0 for c in _module_level_order(ctx).calls)


def _reassigned_attributes(cls: cst.ClassDef, ctx: RuleContext) -> set[str]:
    """Return the attributes a class's methods other than its constructors change on `self`:
    `x` for `self.x = v`, and the dotted path `a.b` for `self.a.b = v` (an attribute of an
    object `self` holds, replaced on it: `self.ac.pi_state = new_state`)."""
    found: dict[int, set[str]] = state(ctx, "JIT201.attrs", dict)
    if id(cls) not in found:
        attrs: set[str] = set()
        body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
        once = _run_once_methods(cls, ctx)
        for method in body:
            if not isinstance(method, cst.FunctionDef) or method.name.value in SETUP_METHODS | once:
                continue
            lazy: set[int] = set()
            for n in statements(method):  # parents first: an `if` before what it guards
                if isinstance(n, cst.If):
                    lazy |= lazy_targets(n)
                attrs.update(
                    path
                    for t in changed_attributes(n)
                    if id(t) not in lazy and (path := _self_path(t)) is not None
                )
        found[id(cls)] = attrs
    return found[id(cls)]
