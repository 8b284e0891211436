"""The JIT202 rule (outer-state-write): traced code writes state outside the function."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

import libcst as cst

from jitlint.analysis.cst_util import root_name, statements
from jitlint.analysis.kinds import ARRAYS
from jitlint.analysis.knowledge import words
from jitlint.analysis.module_info import MUTATING_METHODS, RETURNS_NONE_METHODS
from jitlint.analysis.scopes import annotated_fields, return_statements, target_names
from jitlint.model import Mode, Taint
from jitlint.rules.base import Rule, snippet
from jitlint.rules.helpers import (
    ALL_MODES,
    assigned_values,
    lazy_init_targets,
    module_assignments,
    self_assignments,
    state,
    trace_guards,
)

if TYPE_CHECKING:
    from jitlint.analysis.context import FunctionTarget, RuleContext


# Methods that only containers have, so a discarded call is surely a mutation.
# numpyro primitives that record a site in the active effect handlers.
_NUMPYRO_SITES = words("""
    numpyro.sample numpyro.deterministic numpyro.param numpyro.factor
    numpyro.primitives.sample numpyro.primitives.deterministic numpyro.primitives.param
    numpyro.primitives.factor
    """)
# flax nnx transforms: each splits the graph nodes it is given and merges them back.
_NNX = words("grad value_and_grad jit vmap pmap scan remat checkpoint shard_map")
_LIST_ONLY_METHODS = words("append extend insert appendleft extendleft setdefault")
# Conversions c with c(c(x)) == c(x), from a leaf to a leaf: `n = float(n)` stores the same
# value whether it runs once, at trace time, or on every call.
_IDEMPOTENT = words("float int complex bool str")
_TREE_MAPS = frozenset({"jax.tree.map", "jax.tree_util.tree_map", "jax.tree_map"})
# What a test choosing between such a conversion and no conversion may read besides the value.
_TYPE_TEST_NAMES = _IDEMPOTENT | words("isinstance type None True False bytes tuple list dict")


def _conversion(expr: cst.BaseExpression, name: str, ctx: RuleContext, used: set[str]) -> bool:
    """Tell whether ``expr`` is ``name`` itself or one idempotent conversion of it, maybe
    chosen by a test that reads only ``name`` (``float(n) if isinstance(n, int) else n``).

    ``used`` collects the conversions: with one kind, applying the whole expression twice
    gives what applying it once does (the test sees the same value and chooses the same).
    """
    if isinstance(expr, cst.Name):
        return expr.value == name
    if isinstance(expr, cst.IfExp):
        return (
            _reads_only(expr.test, name)
            and _conversion(expr.body, name, ctx, used)
            and _conversion(expr.orelse, name, ctx, used)
        )
    if isinstance(expr, cst.Call) and len(expr.args) == 1:
        only = expr.args[0]
        q = ctx.qualname(expr.func)
        if only.keyword is not None or only.star or q not in _IDEMPOTENT:
            return False
        used.add(q)
        return len(used) == 1 and isinstance(only.value, cst.Name) and only.value.value == name
    return False


def _reads_only(expr: cst.CSTNode, name: str) -> bool:
    if isinstance(expr, cst.Name):
        return expr.value == name or expr.value in _TYPE_TEST_NAMES
    if isinstance(expr, cst.Attribute | cst.Subscript | cst.Lambda | cst.NamedExpr):
        return False
    return all(_reads_only(child, name) for child in expr.children)


def _leaf_conversion(fn: cst.BaseExpression, ctx: RuleContext) -> bool:
    """Tell whether ``fn`` is a lambda of one parameter that converts it idempotently."""
    if not isinstance(fn, cst.Lambda):
        return False
    params = fn.params
    if (
        params.posonly_params
        or params.kwonly_params
        or params.star_arg != cst.MaybeSentinel.DEFAULT
    ):
        return False
    if params.star_kwarg is not None or len(params.params) != 1 or params.params[0].default:
        return False
    return _conversion(fn.body, params.params[0].name.value, ctx, set())


def _normalised(
    target: cst.BaseExpression, value: cst.BaseExpression, ctx: RuleContext
) -> frozenset[str]:
    """Return the names of ``target`` that ``target = value`` only normalises: each gets an
    idempotent conversion of its own value, so a write done once at trace time, rather than
    on every call, leaves the same value (optax's `n, count = jax.tree.map(lambda x:
    float(x) if isinstance(x, int) else x, (n, count))` under a `nonlocal n`)."""
    pairs: list[tuple[cst.BaseExpression, cst.BaseExpression]] = []
    leafwise = False
    if isinstance(value, cst.Call) and ctx.qualname(value.func) in _TREE_MAPS:
        args = value.args
        if len(args) != 2 or any(a.keyword is not None or a.star for a in args):
            return frozenset()
        if not _leaf_conversion(args[0].value, ctx):
            return frozenset()
        leafwise, value = True, args[1].value
    if (type(target) is cst.Tuple or type(target) is cst.List) and (
        type(value) is cst.Tuple or type(value) is cst.List
    ):
        if len(target.elements) != len(value.elements) or any(
            isinstance(e, cst.StarredElement) for e in (*target.elements, *value.elements)
        ):
            return frozenset()
        pairs = [(t.value, v.value) for t, v in zip(target.elements, value.elements, strict=True)]
    else:
        pairs = [(target, value)]
    out = set()
    for t, v in pairs:
        if not isinstance(t, cst.Name):
            continue
        if leafwise:
            kept = isinstance(v, cst.Name) and v.value == t.value
        else:
            kept = _conversion(v, t.value, ctx, set())
        if kept:
            out.add(t.value)
    return frozenset(out)


class OuterStateWrite(Rule):
    """
    ## What it does
    Flags writes from traced code to state that lives outside the traced function: assigning
    a `global`/`nonlocal` name, calling `.append`/`.update`/`.add`/... on an outer object, or
    item/attribute assignment on one, and `next(it)` of an iterator from outside (a global,
    or a generator the enclosing function made before a `lax` loop body uses it). A function
    that stores a tracer on an object its caller gave it is reported when that object is
    from outside the trace the call runs in (`scale(state, s)` assigning `state.vel`, called
    from a branch `lax.cond` traces with the state the jitted function closes over): the
    tracer of the inner trace leaks onto the outer object. Under
    `grad`/`jvp`/`vjp` alone, where the function runs on every call, only a write that stores
    a tracer is reported (`losses.append(loss)` in a loss function: the list keeps a tracer
    that raises `UnexpectedTracerError` when used). A flax nnx transform in traced code given
    a module from outside it (`nnx.grad(loss_fn)(self.model)` in a `jax.jit` function that
    closes over `self`) would write the module's state back across trace levels, which nnx
    refuses with a `ValueError`; an array or a container given to it holds no module. The
    same holds for a method an nnx transform decorates (`@nnx.jit def render(self, x)`)
    called on a module from outside the trace (`model.render(x)` in a `lax.scan` body,
    `model` a global), and for such a method handed bound to any transform
    (`jax.vmap(model.render)`, in ordinary code too): its `self` is outside the trace
    the transform makes (TraceContextError). Called on the module an nnx transform was
    given (`self.render(x)` in another `@nnx.jit` method of it), it is fine. A function a
    plain JAX transform jits (`@jax.jit`, not `@nnx.jit`) that updates an nnx object it was
    given in place (`optimizer.update(model, grads)`, `nnx.update(model, state)`,
    `model.count[...] += 1`; the parameter annotated with an nnx class, or given one by
    every call of the module) updates the copy the transform rebuilt from the object's
    arrays: unless the function returns the object (or `nnx.state(...)` of it), the
    caller's object never changes.
    `numpyro.sample` (or `deterministic`, `param`, `factor`) in the body of a `lax` loop
    records the loop's tracer in numpyro's handlers, which live outside it (numpyro#566).
    A counter of traces (`n_traces += 1`, `compiled_times += 1`: a name that speaks of
    tracing, compiling or jit, increased by a Python value), or a list of such a name given
    Python values (`traces.append(x.shape)`), is meant to run at trace time and is not
    reported. A traced value (or an object the function built from one) stored
    in a static field of a pytree class (`eqx.field(static=True)`, `eqx.static_field()`,
    flax's `pytree_node=False`) is the tree's metadata, not a leaf: the tracer is not traced
    out and leaks with the object (equinox#312).

    ## Why is this bad?
    A traced function runs as Python only while JAX traces it: once per compilation, not once
    per call. The write therefore happens once (or never again after the first call), and what
    it stores is a tracer, which escapes the trace and raises `UnexpectedTracerError` when used.
    A flag the function asserts on and then sets (`assert not self.traced`, then
    `self.traced = True`) is a deliberate trace-time guard, and not reported.
    A function nested in a method writes to the method's object too, directly or through a
    local alias (`env = self.env`), unless it puts the saved value back (`finally:
    env.sys = old`). So does a write to an element of one of its containers (`for term in
    self.terms: ... param.value = v`, through `.items()`, `.values()` or `enumerate`).
    Containers built and mutated inside the function are fine, and so is a write that only
    converts a name's own value (`n = float(n)`, or through `jax.tree.map`): it stores the
    same whether it runs once or on every call. Lazy initialisation is meant
    to run once: a Python value stored under `if self.x is None:` or `if X is None:`, or
    after a memo test that returns it (`if _CACHED is not None: return _CACHED`).

    ## Example
    ```python
    global_list = []


    @jax.jit
    def log2(x):
        global_list.append(x)
        return jnp.log(x) / jnp.log(2.0)
    ```

    ## Use instead
    ```python
    @jax.jit
    def log2(x):
        return jnp.log(x) / jnp.log(2.0), x  # return what you want to keep
    ```
    Carry state explicitly (return it and pass it back in), or use `jax.debug.callback` for
    side effects that must happen at run time.

    ## Fix safety
    There is no automatic fix.
    """

    code = "JIT202"
    name = "outer-state-write"
    # Under grad/jvp alone the function runs on every call: only a tracer stored is a bug.
    modes = ALL_MODES
    message = (
        "traced code writes to `{name}`, which lives outside the traced function; the write "
        "happens once at trace time and stores a tracer, return the value instead"
    )
    VALID = (
        """
import jax


@jax.jit
def f(xs):
    out = []
    for i in range(3):
        out.append(xs[i] * 2)
    acc = {}
    acc["total"] = sum(out)
    return acc
""",
        """
import jax

history = []


def train(step, x):
    for _ in range(3):
        x = step(x)
        history.append(x)
    return x
""",
        """
import jax
import jax.numpy as jnp


def linear_decay(init_value, decay_steps):
    def schedule(count):
        nonlocal decay_steps
        # A conversion of its own value: the same whether it runs once or on every call.
        decay_steps, count = jax.tree.map(
            lambda x: float(x) if isinstance(x, int) else x, (decay_steps, count)
        )
        return init_value * jnp.maximum(decay_steps - count, 0) / decay_steps

    return jax.jit(schedule)
""",
        """
import jax
import jax.numpy as jnp

calls = 0


def loss(w):
    global calls
    calls += 1  # under grad alone the function runs on every call: a Python count is fine
    return jnp.sum(w**2)


grads = [jax.grad(loss)(jnp.ones(3)) for _ in range(2)]
""",
        """
import jax


class Env:
    def __init__(self):
        self.scale = 1.0


class Wrapper:
    def __init__(self, env):
        self.env = env

    def run(self, scales, x):
        def one(scale):
            env = self.env
            old = env.scale
            env.scale = scale
            try:
                return x * env.scale
            finally:
                env.scale = old

        return jax.vmap(one)(scales)
""",
        """
import jax
import jax.numpy as jnp

class Ball:
    def __init__(self, x):
        self.x = x

    def move(self):
        self.x = self.x + 1.0  # a part of the game built in the trace

class Game:
    def __init__(self, x):
        self.reset(x)

    def reset(self, x):
        self.ball = Ball(x)  # the game builds its own ball

    def step(self):
        self.ball.move()
        return self.ball.x

@jax.jit
def update(x):
    game = Game(x)
    return game.step()
""",
    )
    INVALID = (
        """
import jax
import jax.numpy as jnp

global_list = []


@jax.jit
def log2(x):
    global_list.append(x)  # JIT202
    return jnp.log(x) / jnp.log(2.0)
""",
        """
import jax

counter = 0


@jax.jit
def f(x):
    global counter
    counter += 1  # JIT202
    return x
""",
        """
import jax

cache = {}


@jax.jit
def f(x):
    cache["last"] = x  # JIT202
    return x
""",
        """
import jax


class Model:
    calls = 0


@jax.jit
def f(x):
    Model.calls += 1  # JIT202
    return x
""",
        """
from jax import lax

steps = iter(range(10))


def total():
    return lax.fori_loop(0, 10, lambda i, x: x + next(steps), 0)  # JIT202
""",
        """
import jax
import jax.numpy as jnp

losses = []


def loss(w):
    value = jnp.sum(w**2)
    losses.append(value)  # JIT202
    return value


grads = jax.grad(loss)(jnp.ones(3))
""",
        """
from jax import lax


def batches(data):
    yield from data


def total(data):
    it = batches(data)

    def body(i, acc):
        return acc + next(it)  # JIT202

    return lax.fori_loop(0, len(data), body, 0.0)
""",
        """
import jax


class Env:
    def __init__(self):
        self.scale = 1.0


class Wrapper:
    def __init__(self, env):
        self.env = env

    def run(self, scales, x):
        def one(scale):
            env = self.env
            env.scale = scale  # JIT202
            return x * env.scale

        return jax.vmap(one)(scales)
""",
        """
import equinox as eqx
import jax

class Scaled(eqx.Module):
    w: jax.Array
    scale: float = eqx.field(static=True)

@eqx.filter_jit
def make(w, s):
    return Scaled(w, s * 2)  # JIT202
""",
    )

    def _outer_root(
        self,
        expr: cst.BaseExpression,
        ctx: RuleContext,
        stored: cst.BaseExpression | None = None,
    ) -> str | None:
        while isinstance(expr, cst.Attribute | cst.Subscript):
            found = ctx.project_global(expr)
            if found is not None:
                return found.shown  # a global of another project module
            expr = expr.value
        if not isinstance(expr, cst.Name):
            return None
        name = expr.value
        alias = _alias_of(name, ctx)
        if alias is not None:
            # `env = self.env` then `env.unwrapped.sys = sys`: the write reaches `self`
            return self._outer_root(alias, ctx, stored)
        if name in {"self", "cls"}:
            # The object a method belongs to outlives the trace, unless the transform
            # (flax nnx/linen) carries attribute writes back out.
            # An object constructed inside the trace is discarded with it.
            stateful = ctx.is_stateful and ctx.taint(expr) is not Taint.STATIC
            if ctx.enclosing_class is None and ctx.is_outer(name):
                # a function nested in a method closes over the method's object
                owned = ctx.enclosing_self(name)
                return None if owned is None or owned or stateful else name
            local = stateful or ctx.enclosing_class is None or ctx.owns_self
            return None if local else name
        if ctx.is_imported(name) or ctx.defines_function(name):
            return None  # module attributes such as `jnp.add` are calls, not writes
        # `def scale(state, t): state.vel *= s`, called from a branch `lax.cond` traces with
        # `st2` the jitted function closes over: the parameter holds that outer object
        given = ctx.outer_param(name) and name not in assigned_values(ctx)
        if not (given or ctx.is_outer(name)):
            return None
        if ctx.kind_of(expr) in ARRAYS:
            return None  # `xs[k] = x` on a JAX array raises: JIT501's finding, not a leak
        if _holds_ref(name, ctx):
            return None  # `a_ref = jax.new_ref(a)`: writes to a Ref are how it is used
        # Only a known Python object is state: a global, a `global`/`nonlocal` name, or a
        # container built in an enclosing scope. A parameter of an enclosing function may be
        # a Pallas Ref or another object whose writes are the programming model.
        known = not given and (
            ctx.declares_outer(name) or ctx.is_module_global(name) or self._is_container(name, ctx)
        )
        # Any other closure object, or outer object a parameter holds, counts when a tracer
        # is stored into it (a leak), unless it is named as a Ref.
        leaks = (
            stored is not None
            and ctx.is_traced(stored)
            and not name.lower().endswith(("ref", "refs"))
        )
        return name if known or leaks else None

    def _report(
        self,
        ctx: RuleContext,
        node: cst.CSTNode,
        name: str,
        stored: Sequence[cst.BaseExpression] = (),
        holder: str | None = None,
    ) -> None:
        if ctx.mode is not Mode.GRAD and holder is not None:
            self.report(
                ctx,
                node,
                f"traced code writes to `{name}`, an object `{holder}` holds, which lives "
                "outside the traced function; the write happens once at trace time and stores "
                "a tracer, return the value instead",
            )
        elif ctx.mode is not Mode.GRAD:
            self.report(ctx, node, name=name)
        elif any(ctx.is_traced(value) for value in stored):
            self.report(
                ctx,
                node,
                f"differentiated code (grad, jvp, vjp) stores a tracer in `{name}`, which "
                "lives outside the function; it escapes the transform and raises "
                "UnexpectedTracerError when used after it, return the value instead "
                "(`has_aux=True`)",
            )

    def visit_Call(self, node: cst.Call, ctx: RuleContext) -> None:
        """Check mutating method calls on outer objects, and `next()` of an outer iterator."""
        func = node.func
        if ctx.mentions("nnx"):
            self._nnx_bound_method(node, ctx)
        if ctx.mode is Mode.NONE:
            return  # ordinary code: only a transform of a bound nnx method is checked there
        if isinstance(func, cst.Attribute) and ctx.mentions("nnx"):
            self._nnx_outer_method(node, func, ctx)
            self._nnx_lost_call(node, func, ctx)
        if type(func) is cst.Call and ctx.mode is not Mode.GRAD:
            self._nnx_outer_module(node, func, ctx)
        if isinstance(func, cst.Attribute) and ctx.mode is not Mode.GRAD:
            self._nnx_stateful_layer(node, func, ctx)
        if type(func) is cst.Name and ctx.static_fields(func.value):
            self._traced_static_field(node, func.value, ctx)
        body = ctx.loop_body
        if body is not None and ctx.qualname(func) in _NUMPYRO_SITES:
            # numpyro's effect handlers (seed, trace, substitute) live outside the loop:
            # the site records the body's tracer there, once, when the loop traces it
            self.report(
                ctx,
                node,
                f"`{snippet(func)}` in a body of `{body}` records a tracer of the loop in "
                "numpyro's handlers outside it, once (UnexpectedTracerError when the model "
                "runs); use `numpyro.contrib.control_flow.scan`",
            )
        if (
            isinstance(func, cst.Name)
            and func.value == "next"
            and not ctx.is_imported("next")
            and node.args
            and isinstance(node.args[0].value, cst.Name)
        ):
            # `next(it)` advances an iterator that outlives the trace: once, at trace time.
            # A closure's iterator too: a generator the enclosing function made before a
            # `lax.while_loop` body is traced yields one item for every iteration.
            it = node.args[0].value.value
            if ctx.is_outer(it) and not ctx.defines_function(it):
                self._report(ctx, node, it)
            return
        if isinstance(func, cst.Attribute) and func.attr.value in MUTATING_METHODS:
            if isinstance(func.value, cst.Name) and func.value.value in {"self", "cls"}:
                return  # the object's own method (`self.update(...)`), not a container
            if func.attr.value in RETURNS_NONE_METHODS and not ctx.is_statement_call(node):
                # a container's mutator returns None: a call whose result is used is another
                # method of that name (`updates, state = self.tx.update(...)`, optax's, pure)
                return
            stored = node.args[-1].value if node.args else None
            name = self._outer_root(func.value, ctx, stored)
            if name is None:
                return
            # `opt.update(grads, state)` returns new state: only a list-only method, or a
            # receiver known to be a container, makes the call a mutation.
            mutation = (
                name == "self"
                or self._is_container(name, ctx)
                or (ctx.is_statement_call(node) and func.attr.value in _LIST_ONLY_METHODS)
            )
            # Recording Python values (shapes, names) in a closure while tracing is deliberate
            # bookkeeping; on `self` or a global it is state that silently stops updating.
            stores_values = name == "self" or "." in name or ctx.is_module_global(name)
            stores_values = stores_values or any(
                ctx.taint(a.value) is not Taint.STATIC for a in node.args
            )
            if (
                mutation
                and _COUNTS_TRACES.search(name)
                and all(ctx.taint(a.value) is Taint.STATIC for a in node.args)
            ):
                return  # `traces.append(inference)`: a record of traces, kept at trace time
            if mutation and stores_values:
                self._report(ctx, node, name, [a.value for a in node.args])

    def _nnx_lost_call(self, node: cst.Call, func: cst.Attribute, ctx: RuleContext) -> None:
        """`optimizer.update(model, grads)` or `nnx.update(model, state)` in a function a
        plain JAX transform traces, on an nnx object it was given."""
        if not ctx.is_statement_call(node):
            return
        if func.attr.value == "update" and type(func.value) is cst.Name:
            if ctx.nnx_param(func.value.value) == "optimizer":
                self._nnx_lost(node, func.value.value, ctx)
        elif ctx.qualname(func) == "flax.nnx.update" and node.args:
            given = node.args[0].value
            if type(given) is cst.Name and ctx.nnx_param(given.value) is not None:
                self._nnx_lost(node, given.value, ctx)

    def _nnx_lost(self, node: cst.CSTNode, name: str, ctx: RuleContext) -> bool:
        """Report an in-place update of the nnx object parameter ``name`` under a plain JAX
        transform (`jax.jit`, not `nnx.jit`) that does not hand it (or its state) back: the
        transform flattens the object into arrays and traces a copy rebuilt from them, so
        the update changes that copy, and the caller's object never changes."""
        if ctx.mode is not Mode.JIT or ctx.is_stateful or ctx.loop_body is not None:
            return False
        scope = ctx.scope
        if type(scope) is not cst.FunctionDef or any(
            _hands_back(r.value, name, ctx) for r in return_statements(scope) if r.value is not None
        ):
            return False  # `return nnx.state((model, optimizer))`: the caller applies it
        self.report(
            ctx,
            node,
            f"`{snippet(node)}` updates the copy of the nnx object `{name}` that a plain JAX "
            "transform rebuilt from its arrays, and the function does not return it: the "
            f"caller's `{name}` never changes; use `nnx.jit`, or return `nnx.state(...)` and "
            "apply it with `nnx.update` outside",
        )
        return True

    def _nnx_outer_module(self, node: cst.Call, transform: cst.Call, ctx: RuleContext) -> None:
        """`nnx.grad(loss)(model)` in traced code, `model` from outside it: an nnx transform
        splits the module it is given and writes its state back, which it refuses across
        trace levels (`ValueError: Cannot extract graph node from different trace level`)."""
        q = ctx.qualname(transform.func)
        if q is None or q.rpartition(".")[0] != "flax.nnx" or q.rpartition(".")[2] not in _NNX:
            return
        if not node.args or node.args[0].keyword is not None or node.args[0].star:
            return
        given = node.args[0].value
        root = root_name(given)
        if root is None or ctx.kind_of(given) is not None:
            return  # an array or a Python container holds no graph node
        if root in {"self", "cls"}:
            name = self._outer_root(given, ctx)
        elif ctx.is_imported(root) or ctx.defines_function(root) or not ctx.is_outer(root):
            name = None
        else:
            name = root
        if name is not None:
            self.report(
                ctx,
                node,
                f"`{snippet(given)}` comes from outside the traced function, and "
                f"`nnx.{q.rpartition('.')[2]}` writes its state back: nnx refuses a module "
                "from another trace level (ValueError); pass it in as an argument of the "
                "jitted function",
            )

    def _nnx_bound_method(self, node: cst.Call, ctx: RuleContext) -> None:
        """`jax.vmap(ca.render)`, `render` an `@nnx.jit` method: the transform traces the
        bound method, and the nnx transform inside it is given `ca`, a module from outside
        that trace, whose state nnx refuses to write back (TraceContextError)."""
        transform = ctx.transform(node.func)
        if transform is None:
            return
        for position in transform.fn_positions:
            if position >= len(node.args) or node.args[position].keyword is not None:
                continue
            given = node.args[position].value
            if type(given) is not cst.Attribute or ctx.project_class(given.value) is not None:
                continue  # `Model.render` is not bound to a module
            target = ctx.resolve_function(given, b"nnx")
            wrapper = None if target is None else _nnx_wrapper(target, ctx)
            if wrapper is not None:
                self.report(
                    ctx,
                    node,
                    f"`{snippet(given)}` is an `nnx.{wrapper}` method bound to "
                    f"`{snippet(given.value)}`, which comes from outside the trace "
                    f"`{snippet(node.func)}` makes: nnx refuses to write its state back "
                    "across trace levels (TraceContextError); use the nnx transform "
                    f"(`nnx.{transform.qualname.rpartition('.')[2]}`) with the module as an "
                    "argument, or call the method outside it",
                )

    def _nnx_outer_method(self, node: cst.Call, func: cst.Attribute, ctx: RuleContext) -> None:
        """`model.render(x)` in traced code, `render` an `@nnx.jit` method and `model` from
        outside the trace: the nnx transform writes the module's state back, and nnx refuses
        that across trace levels (TraceContextError)."""
        if ctx.taint(func.value) is Taint.TRACED:
            return  # a module the trace was given: inside it
        target = ctx.resolve_function(func, b"nnx")
        if target is None or target.cls is None:
            return
        wrapper = _nnx_wrapper(target, ctx)
        name = None if wrapper is None else self._outer_root(func.value, ctx)
        if name is not None:
            self.report(
                ctx,
                node,
                f"`{snippet(func)}` is an `nnx.{wrapper}` method of `{name}`, a module from "
                "outside this trace: nnx refuses to write its state back across trace levels "
                "(TraceContextError); pass the module in as an argument of the transform",
            )

    def _nnx_stateful_layer(self, node: cst.Call, func: cst.Attribute, ctx: RuleContext) -> None:
        """`self.dropout(x)` of an nnx module from outside a plain JAX trace (a global model
        called in a `lax.scan` body): `nnx.Dropout` advances its Rngs' count, and nnx
        refuses that write across trace levels (TraceContextError, flax#4151)."""
        cls = ctx.enclosing_class
        owner = func.value
        if (
            not ctx.mentions("Dropout")
            or cls is None
            or not isinstance(owner, cst.Name)
            or owner.value != "self"
            or ctx.is_stateful
            or ctx.owns_self
            or ctx.taint(owner) is Taint.TRACED
        ):
            return
        values = self_assignments(cls, ctx).get(func.attr.value)
        if not values or not all(_stateful_layer(v, ctx) for v in values):
            return
        self.report(
            ctx,
            node,
            f"`{snippet(func)}` advances the nnx Rngs of a module from outside this trace; nnx "
            "refuses that write across trace levels (TraceContextError): pass the module in "
            "(`nnx.scan`, `nnx.jit`, or split it with `nnx.split` and merge it inside)",
        )

    def _is_container(self, name: str, ctx: RuleContext) -> bool:
        if "." in name:  # `mod.NAME` of another project module
            found = ctx.project_global(cst.parse_expression(name))
            return found is not None and found.mutable
        bound = ctx.binds_container(name)
        return ctx.is_mutable_global(name) if bound is None else bound

    def _check_target(
        self,
        target: cst.BaseExpression,
        ctx: RuleContext,
        stored: cst.BaseExpression | None,
        normalised: frozenset[str] = frozenset(),
    ) -> None:
        if isinstance(target, cst.Name):
            # `if inner is sentinel: inner = structure`: recorded once, at the first trace
            lazy = id(target) in _lazy_inits(ctx)
            if lazy and (stored is None or not ctx.is_traced(stored)):
                return
            if ctx.declares_outer(target.value) and target.value not in normalised:
                if target.value in trace_guards(ctx):
                    return  # `assert not traced` then `traced = True`: a trace-time guard
                self._report(ctx, target, target.value, [] if stored is None else [stored])
        elif isinstance(target, cst.Subscript | cst.Attribute):
            base = root_name(target) if ctx.mentions("nnx") else None
            if (
                base is not None
                and ctx.nnx_param(base) is not None
                and self._nnx_lost(target, base, ctx)
            ):
                return
            if snippet(target) in _restored(ctx):
                return  # swapped in and restored (`old = env.sys` ... `env.sys = old`)
            name = self._outer_root(target.value, ctx, stored)
            # `if self.fn is None: self.fn = f` runs once, at trace time, and keeps a Python
            # value: later calls read it. Only a tracer stored there leaks.
            lazy = name == "self" and id(target) in _lazy_inits(ctx)
            if lazy and (stored is None or not ctx.is_traced(stored)):
                return
            if name is not None:
                if isinstance(target, cst.Attribute) and snippet(target) in trace_guards(ctx):
                    return  # `assert not self.traced` then `self.traced = True`
                local = root_name(target)
                holder = None
                if local is not None and local != name and "." not in name:
                    # `param.value = v`, `param` an element of `self.terms`: name both
                    holder, name = name, local
                self._report(ctx, target, name, [] if stored is None else [stored], holder)
        elif isinstance(target, cst.Tuple | cst.List):
            for el in target.elements:
                self._check_target(el.value, ctx, None, normalised)

    def _traced_static_field(self, node: cst.Call, name: str, ctx: RuleContext) -> None:
        """`Mod(arr=x, static=traced)` in traced code, `static` a static field of the module's
        pytree class (`eqx.field(static=True)`, `eqx.static_field()`): static fields are the
        tree's metadata, not its leaves, so the tracer is not traced out of the transform but
        leaks with the object (equinox warns "A JAX array is being set as static!")."""
        cls = ctx.class_named(name)
        if cls is None:
            return
        static = ctx.static_fields(name)
        fields = [f for f, _ in annotated_fields(cls)]
        for position, given in enumerate(node.args):
            if given.star:
                return
            field = given.keyword.value if given.keyword is not None else None
            if field is None and position < len(fields):
                field = fields[position]
            if field in static and _holds_tracer(given.value, ctx):
                self.report(
                    ctx,
                    given.value,
                    f"`{snippet(given.value)}`, traced (or built from a traced value), is "
                    f"stored in `{name}.{field}`, a static field: static fields are the "
                    "pytree's metadata, not its leaves, so the "
                    "tracer is not traced out of the transform and leaks with the object; "
                    "make the field a leaf, or store a Python value",
                )
                return

    def visit_Assign(self, node: cst.Assign, ctx: RuleContext) -> None:
        """Check assignments to outer names, items and attributes."""
        if ctx.mode is Mode.NONE:
            return
        for t in node.targets:
            self._check_target(t.target, ctx, node.value, _normalised(t.target, node.value, ctx))

    def visit_AugAssign(self, node: cst.AugAssign, ctx: RuleContext) -> None:
        """Check augmented assignments to outer state."""
        if ctx.mode is Mode.NONE:
            return
        if (
            isinstance(node.target, cst.Name)
            and _COUNTS_TRACES.search(node.target.value)
            and ctx.taint(node.value) is Taint.STATIC
        ):
            return  # `n_traces += 1`: a count of traces, meant to run at trace time
        self._check_target(node.target, ctx, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign, ctx: RuleContext) -> None:
        """Check annotated assignments to outer state."""
        if node.value is not None and ctx.mode is not Mode.NONE:
            self._check_target(node.target, ctx, node.value)


def _hands_back(value: cst.BaseExpression, name: str, ctx: RuleContext) -> bool:
    """Tell whether a returned ``value`` hands the object ``name`` back to the caller: the
    object itself, in a tuple, list or dict, or what an nnx function makes of it
    (`nnx.state((model, optimizer))`, `nnx.split(model)`)."""
    kind = type(value)
    if kind is cst.Name:
        return cast(cst.Name, value).value == name
    if kind is cst.Tuple or kind is cst.List:
        elements = cast(cst.Tuple | cst.List, value).elements
        return any(_hands_back(e.value, name, ctx) for e in elements)
    if kind is cst.Dict:
        return any(
            type(e) is cst.DictElement and _hands_back(e.value, name, ctx)
            for e in cast(cst.Dict, value).elements
        )
    if kind is cst.Call and (ctx.qualname(cast(cst.Call, value).func) or "").startswith(
        "flax.nnx."
    ):
        return any(_hands_back(a.value, name, ctx) for a in cast(cst.Call, value).args)
    return False


def _nnx_wrapper(target: FunctionTarget, ctx: RuleContext) -> str | None:
    """Return the flax nnx transform a definition's decorators apply (`jit` for `@nnx.jit`,
    `@partial(nnx.jit, ...)` and `@nnx.jit(static_argnames=...)`), if any."""

    def qualname(expr: cst.BaseExpression) -> str | None:
        return ctx.qualname(expr) if target.defined_here else target.import_qualname(expr)

    for decorator in target.fn.decorators:
        expr = decorator.decorator
        if type(expr) is cst.Call:
            partial = qualname(expr.func) == "functools.partial" and expr.args
            expr = expr.args[0].value if partial else expr.func
        package, _, name = (qualname(expr) or "").rpartition(".")
        if package == "flax.nnx" and name in _NNX:
            return name
    return None


# Names of counters that count traces or compilations (`n_traces`, `compiled_times`).
_COUNTS_TRACES = re.compile(r"trac|compil|jit", re.IGNORECASE)


# What makes a mutable array reference, written in traced code by design.
_REF_MAKERS = frozenset(
    {"jax.new_ref", "jax.ref.new_ref", "jax.experimental.mutable_array", "jax.numpy.new_ref"}
)


def _holds_ref(name: str, ctx: RuleContext) -> bool:
    """Tell whether ``name`` is bound (in the scope walked, or else at module level) only to
    a new mutable array reference (`jax.new_ref(x)`)."""
    values = assigned_values(ctx).get(name)
    if values is None and ctx.is_module_global(name):
        values = module_assignments(ctx).get(name)
    return bool(values) and all(
        type(v) is cst.Call and ctx.qualname(v.func) in _REF_MAKERS for v in values or ()
    )


def _alias_of(name: str, ctx: RuleContext) -> cst.BaseExpression | None:
    """Return the attribute a local ``name`` is only ever bound to (`env = self.env`): the
    same object under another name. A call (`copy(self.env)`) may build a new one. For a
    name only a `for` loop binds, the container it walks (`for term in self.terms:`): each
    element is an object held there."""
    if name in {"self", "cls"} or ctx.is_outer(name):
        return None
    values = assigned_values(ctx).get(name, ())
    if len(values) != 1:
        return None
    value = values[0]
    if type(value) is cst.Name and value.value == "None":
        found = _walked_container(name, ctx)
        if found is None:
            return None
        value = found
    elif not isinstance(value, cst.Attribute):
        return None
    root = root_name(value)
    return value if root is not None and root != name else None


def _walked_container(name: str, ctx: RuleContext) -> cst.BaseExpression | None:
    """Return the container whose elements the one `for` loop binding ``name`` walks: `xs`
    of `for x in xs`, `for k, x in xs.items()`, `for x in xs.values()` and `for i, x in
    enumerate(xs)`; None for a key, an index or any other loop."""
    loops = [
        st
        for st in statements(ctx.scope)
        if type(st) is cst.For and name in target_names(st.target)
    ]
    if len(loops) != 1:
        return None
    loop = loops[0]
    target, it = loop.target, loop.iter
    if type(it) is cst.Call and not it.args and isinstance(it.func, cst.Attribute):
        method, holder = it.func.attr.value, it.func.value
        if method == "values":
            it = holder
        elif method == "items" and _second(target, name):
            return holder
        else:
            return None
    elif type(it) is cst.Call and isinstance(it.func, cst.Name) and it.func.value == "enumerate":
        if len(it.args) != 1 or not _second(target, name):
            return None
        return it.args[0].value
    if type(target) is not cst.Name:
        return None
    return it if isinstance(it, cst.Attribute | cst.Subscript | cst.Name) else None


def _second(target: cst.BaseExpression, name: str) -> bool:
    """Tell whether ``target`` is a pair whose second element is the name ``name``."""
    if not isinstance(target, cst.Tuple | cst.List) or len(target.elements) != 2:
        return False
    second = target.elements[1].value
    return type(second) is cst.Name and second.value == name


def _restored(ctx: RuleContext) -> set[str]:
    """Return the attribute and item targets the function walked saves and puts back
    (`old = env.sys`, `env.sys = new`, ..., `env.sys = old`, usually in a `finally:`): a
    value swapped in for the duration of the call does not outlive it (brax's `_swap_sys`)."""
    scope = ctx.scope
    found: dict[int, set[str]] = state(ctx, "JIT202.restored", dict)
    if id(scope) not in found:
        saved: dict[str, str] = {}  # local name -> the target it saved
        back: list[tuple[str, str]] = []  # (target, the local name written back)
        for stmt in statements(scope):
            if type(stmt) is not cst.Assign or len(stmt.targets) != 1:
                continue
            target, value = stmt.targets[0].target, stmt.value
            if type(target) is cst.Name and type(value) in (cst.Attribute, cst.Subscript):
                saved[target.value] = snippet(value)
            elif type(target) in (cst.Attribute, cst.Subscript) and type(value) is cst.Name:
                back.append((snippet(target), value.value))
        found[id(scope)] = {t for t, name in back if saved.get(name) == t}
    return found[id(scope)]


def _lazy_inits(ctx: RuleContext) -> set[int]:
    """Return the ids of the lazily initialised `self.x` targets of the function walked."""
    scope = ctx.scope
    found: dict[int, set[int]] = state(ctx, "JIT202.lazy-inits", dict)
    if id(scope) not in found:
        found[id(scope)] = lazy_init_targets(scope)
    return found[id(scope)]


def _stateful_layer(value: cst.BaseExpression, ctx: RuleContext) -> bool:
    """Tell whether ``value`` builds an nnx layer that writes its own state when called:
    `nnx.Dropout(..., rngs=rngs)` draws from and advances its Rngs."""
    return (
        isinstance(value, cst.Call)
        and ctx.qualname(value.func) == "flax.nnx.Dropout"
        and any(a.keyword is not None and a.keyword.value == "rngs" for a in value.args)
    )


def _holds_tracer(value: cst.BaseExpression, ctx: RuleContext) -> bool:
    """Tell whether ``value`` is traced, or names an object the scope built from a traced
    value (`stat = Static(a=x[0])`)."""
    if ctx.is_traced(value):
        return True
    if not isinstance(value, cst.Name):
        return False
    bound = assigned_values(ctx).get(value.value)
    if bound is None or len(bound) != 1 or not isinstance(bound[0], cst.Call):
        return False
    made = bound[0]
    return (
        isinstance(made.func, cst.Name)
        and ctx.class_named(made.func.value) is not None
        and any(ctx.is_traced(a.value) for a in made.args)
    )
