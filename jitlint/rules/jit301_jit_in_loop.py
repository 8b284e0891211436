"""The JIT301 rule (jit-in-loop): `jax.jit` of a fresh function in code that runs repeatedly."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import libcst as cst

from jitlint.analysis.cst_util import (
    child_nodes,
    constant_sweep,
    descendants,
    nodes_under,
    nodes_under_split,
    own_statements,
    passed_to,
    root_name,
    statement_children,
    statements,
    variable_names,
)
from jitlint.analysis.module_info import dotted
from jitlint.analysis.scopes import (
    param_names,
    return_statements,
    returned_call,
    scope_names,
    self_attribute_stores,
    target_names,
    unpacked_calls,
)
from jitlint.analysis.transforms import EAGER_CACHED, TRANSFORMS
from jitlint.model import Mode
from jitlint.rules.base import Rule, snippet
from jitlint.rules.helpers import (
    ALL_MODES,
    arg,
    assigned_values,
    code,
    equinox_module,
    jitted_by,
    last_name,
    module_assignments,
    scope_assignments,
    self_assignments,
    state,
)

if TYPE_CHECKING:
    from jitlint.analysis.context import RuleContext


class JitInLoop(Rule):
    """
    ## What it does
    Flags `jax.jit` (or `pmap`, `eqx.filter_jit`, ...) applied inside a loop to a `lambda`, a
    `functools.partial(...)`, a bound method (`obj.method`, of a project class or of an
    instance of a class from elsewhere, `strategy = OpenES(...)`, `model = nn.Dense(2)`;
    not under `jax.pmap` or equinox's filtered transforms, whose caches find a method
    bound again to the same object), a transform's result
    (`jax.jit(jax.grad(f))`, `vmap(f)`, ...), what a closure factory of the project returns
    (`jax.jit(build_metric_fn(model))`, the factory defining the function it returns; in a
    loop, not when given the loop's variable, a configuration each) or a function defined in
    that loop (not a loop
    over a few constants, `for axis in (2, -1):`, a configuration each); and, in a
    function that is called repeatedly (`__call__`, `__next__`, `__getitem__`, or a function
    or method this module calls in a loop, directly or through a name bound to it, `sample_fn
    = partial(sample, ...)`, or to what a method returns, `self._properties_fn =
    self._initialize()` where it returns a function it defines, or by name (or as `self.m`,
    or `Cls.m` of a class of the module; `self.m(...)` of a function stored on `self` is not
    the module's function `m`) from such a function, or from the constructor of a
    class the module builds in a loop, that is not itself decorated (but as a static or
    class method) or
    handed to a transform, or one a script's top-level code hands to a module function that
    calls it in a loop (`benchmark(train_step, num_steps)`), or calls more than once, or
    reaches from one it calls so, when the jitted function reads nothing of the call (nor of
    a function around it): one built from the call's values is another program per
    configuration; a method it calls more than once on one object, `game.ai_move()` twice,
    when the jitted function reads nothing of the call but its `self`: the same object each
    time), and not itself
    under `jax.jit` (where its body runs once per
    compile), a jitted local function or `jax.jit(lambda ...)` (or of a name bound to a lambda:
    `energy = lambda R: ...`, then `if jit: energy = jax.jit(energy)`, or `update =
    jax.jit(update) if jit else update`) that the function also calls
    (or lowers: `jax.jit(f).lower(x)`), and `jax.jit(tx.update)` of an object the function
    builds (`tx = optax.sgd(lr)`): each new object brings new functions; a bound method
    (`jax.jit(self.update)`, `super().get_params`, a method inherited from a base class
    defined elsewhere) is a new object on every call too. And `jax.jit(obj.f)`
    a second time in one scope with nothing written to `obj` between: a new bound method,
    traced again. And, in a `for i in range(...)` loop, the counter (or Python arithmetic on
    it, `0.5 * i`) passed to an `eqx.filter_jit` function, which keeps Python numbers static
    (equinox#645); not to a `static_argnums` position, static on purpose: a loop over it is
    a sweep of specialisations.

    ## Why is this bad?
    JAX caches compiled code by the identity of the function. A lambda, a new `partial` object
    or a function defined in the loop body is a new object every iteration, so every iteration
    misses the cache and compiles again: the loop runs at compile speed. So is a bound method:
    `obj.method` makes a new method object on every access, and the cache entry dies with it (a
    `staticmethod`, or `Class.method`, is the same function each time). JAX then traces the
    function again each time; it compiles again too unless the traced program is identical to
    one it has compiled before. Jitting a function defined once outside the loop
    (`jax.jit(step)(x)`) is fine: it hits the cache. The same holds per call: a method that
    defines and jits a local function and calls it (or hands it to a function it calls)
    recompiles on every call. A factory that returns the jitted function, or jitting in
    `__init__`, compiles once, unless the factory itself is called in a loop: each call returns
    a new jitted closure (or a jit of a new bound method, `return jit(self.train_step)`),
    compiled again when it is used; so does a jit-decorated local function it returns or stores
    on an object (`self.update = update(opt, loss)` in a constructor run once per client of a
    counting loop, `update` returning its `@jax.jit def _apply`). A driver that jits once per
    call and then calls the result in a loop of its own (`update = jax.jit(svi.update)`, then a
    training loop) pays one compile per run, which is what a per-call setup needs when each run
    is another configuration (`for s in scales: fit(...)`); called in a counting loop (`for
    epoch in range(n)`, `while`), it compiles the same function again every time. A loop that
    builds jitted functions to keep (`[jax.jit(partial(f, i)) for i in range(n)]`, or
    `fns.append(...)`) compiles each once, on its first call, and is left alone. A static
    argument built anew on every iteration, or on every call of a function that runs repeatedly
    (`opt = optax.adam(lr)`, a lambda, a `partial`, a function it defines, an instance of a
    plain class of the module, an `nnx.Optimizer` around a new optax transformation given to
    an `nnx.jit` function, which keeps its graph's static parts in its cache key), then
    passed to a jitted function (`step(opt, params)` with `opt` static), is a new cache key
    each time: it equals no earlier object (optax#197). So is a train state a loop builds
    anew on every pass through a function of the module that gives it a new optax
    transformation as its static `tx` (`train_state = create_train_state(lr)`, then handed
    to a function whose jitted steps take it: Flower's quickstart, per client message).
    An equinox module whose `__init__`
    stores a new `partial`, lambda, local function or transform wrapper (`jax.jit(fk_fn)`,
    equinox#686) in a field is a new static leaf per instance:
    `eqx.filter_jit` traces again for every new instance, equal or not (equinox#965).
    A method that runs repeatedly and stores a jit of a new function on `self`, which the
    class then calls (`self._mean_helper = jax.pmap(lambda d, w: ...)`), traces it again
    after every store; one stored only under a test of the attribute (`if not self._fn:`)
    is a cache filled once.
    `eqx.filter_jit` of a wrapper built alike on every call around a bound
    method or a module function (`eqx.filter_jit(eqx.filter_vmap(jax.tree_util.Partial(
    self.sample, kernel)))`) is not reported: equinox compares the static parts of its cache
    key by equality, so it traces once (`jax.jit` of the same traces every time, and is).
    Outside any trace, `lax.cond`, `switch`, `while_loop`, `fori_loop`, `scan` and `map` compile
    their functions per function object too: given a lambda or a local function in a loop, or in
    a function that untraced code runs repeatedly, they compile on every run (netket#2043); a
    method its object replaces with a jit of it (`self.update = jax.jit(partial(self.update,
    ...))` in `__init__`) runs traced, not untraced, when called through the object, and so
    does what a function a decorator jits calls, defined inside a function that runs untraced
    (`@jax.jit def forward_fn(x): ... apply_activation(z, code)` in a factory). What runs
    under `with jax.disable_jit():` runs as plain Python, its `lax` loops as Python loops
    that compile nothing. A local
    function defined before the loop is one object for all its iterations: it compiles once per
    call of the function (reported at the decorator when that function is itself jitted there).
    A name a function calls is the function Python finds there (one defined in it or around it,
    else the module's): a function a factory defines and returns is not the caller's variable of
    the same name (`step = jax.pmap(make_step())`), and a local name bound to a lambda (`f =
    lambda: method(ts)`, then `f()` in a loop) is not a function of that name. A loop over a
    short display of constants
    (`for solver in ["full", "randomized"]:`, `for reset in (False, True):`, `for lr, steps in
    ((0.1, 10), (0.01, 100)):`) is a sweep that runs each configuration once, not repetition;
    a function only such sweeps call runs once per configuration, as when a script calls it
    twice (a jit there that reads nothing of the call is reported), unless the sweep is over
    floats (`for lr in (0.1, 0.2):`), values an argument could carry instead of recompiling
    (optax#577). Functions defined once (at module level) are compiled once.

    ## Example
    ```python
    for i in range(10):
        y = jax.jit(lambda x: x * i)(x)
    ```

    ## Use instead
    ```python
    scale = jax.jit(lambda x, i: x * i)
    for i in range(10):
        y = scale(x, i)
    ```

    ## Fix safety
    There is no automatic fix.
    """

    code = "JIT301"
    name = "jit-in-loop"
    message = (
        "jit of {function} inside a loop creates a new function every iteration, so JAX "
        "retraces (and usually recompiles) it each time; jit it once before the loop and pass "
        "changing values as arguments"
    )
    modes = ALL_MODES
    VALID = (
        """
import jax


def unjitted_loop_body(prev_i):
    return prev_i + 1


def run():
    i = 0
    while i < 10:
        i = jax.jit(unjitted_loop_body)(i)
    return i
""",
        """
import jax
from functools import partial


def g(x, n):
    return x * n


step = jax.jit(partial(g, n=3))


def run(x):
    for _ in range(10):
        x = step(x)
    return x
""",
        """
import jax


def make_step(scale):
    @jax.jit
    def step(x):
        return x * scale

    return step


class Model:
    def __init__(self, scale):
        self.step = jax.jit(lambda x: x * scale)

    def __call__(self, x):
        return self.step(x)
""",
        """
import jax


class Scaler:
    @staticmethod
    def double(x):
        return x * 2

    def apply(self, x):
        return x * 3


def run(scaler, xs):
    apply = jax.jit(scaler.apply)
    return [(jax.jit(Scaler.double)(x), apply(x)) for x in xs]
""",
        """
import jax
import optax


def train(params, grads_list):
    tx = optax.sgd(0.1)
    state = tx.init(params)
    for grads in grads_list:
        # `tx.update` is the same stored function on every iteration: one trace
        updates, state = jax.jit(tx.update)(grads, state)
        params = optax.apply_updates(params, updates)
    return params
""",
        """
import jax
import optax


def fit(params, lr, steps):
    tx = optax.sgd(lr)
    state = tx.init(params)
    update = jax.jit(tx.update)
    for _ in range(steps):
        _, state = update(params, state, params)
    return state


def sweep(params):
    return [fit(params, lr, 5) for lr in (0.1, 0.2)]
""",
        """
import jax


class Model:
    def __init__(self, scale):
        self.scale = scale
        self.apply = self.apply  # one bound method, kept

    def apply(self, x):
        return x * self.scale


model = Model(2.0)
first = jax.jit(model.apply)
second = jax.jit(model.apply)
""",
        """
import jax


class Model:
    def __init__(self, scale):
        self.scale = scale

    def apply(self, x):
        return x * self.scale


def rescaled(model, x):
    before = jax.jit(model.apply)(x)
    model.scale = 3.0
    after = jax.jit(model.apply)(x)  # traced anew: it must read the new scale
    return before, after
""",
        """
import jax

def set_bit(x):
    return x | 1

def keep(x):
    return x

def set_flag(condition, flags):
    return jax.lax.cond(condition, set_bit, keep, flags)  # the same functions every call

def integrate(conditions, flags):
    for c in conditions:
        flags = set_flag(c, flags)
    return flags

flags = integrate([True, False], 0)
""",
        """
import functools
import jax

def scale(i, x):
    return x * i

scalers = [jax.jit(functools.partial(scale, i)) for i in range(3)]  # a table, built once

def apply_all(x):
    return [f(x) for f in scalers]
""",
        """
import jax
import jax.numpy as jnp

def select_action(n):
    def act(x):
        return jnp.argmax(x[:n])
    return jax.jit(act)  # called once per test, by pytest, as a fixture

def test_rollout(select_action):
    total = 0
    for i in range(3):
        total += select_action(jnp.arange(5.0) * i)  # the fixture's value, jitted once
    return total
""",
        """
import jax
import jax.numpy as jnp

def make_step(n):
    def step(x):  # pmapped by the caller: traced, not run eagerly
        return jax.lax.fori_loop(0, n, lambda i, y: y * 0.5, x)
    return step

def run(x):
    step = jax.pmap(make_step(3))  # the caller's `step` is the pmapped function
    for _ in range(3):
        x = step(x)
    return x

out = run(jnp.ones((1, 2)))
""",
        """
import jax
import jax.numpy as jnp

def power(x, n):
    def body(q, _):
        return jnp.tanh(q @ x), None
    q, _ = jax.lax.scan(body, jnp.ones(x.shape[0]), None, length=n)
    return q

def fit(x, solver):
    return x.sum() if solver == "full" else power(x, 4)

def compare(x):
    out = []
    for solver in ["full", "randomized"]:  # one run per configuration: nothing runs twice
        out.append(fit(x, solver))
    return out

results = compare(jnp.eye(2)) + [fit(jnp.eye(2), s) for s in ("full", "randomized")]
""",
        """
import jax
import jax.numpy as jnp

def updater(scale):
    @jax.jit
    def _apply(params, grads):
        return params - scale * grads

    return _apply

class Server:
    def __init__(self, params, scale):
        self.params = params
        self.updater = updater(scale)  # one server: one jitted function

    def update(self, grads):
        self.params = self.updater(self.params, grads)  # what __init__ stored

    def step(self, grads):
        self.update(grads)
        return self.params

server = Server(jnp.zeros(3), 0.1)
for _ in range(3):
    server.step(jnp.ones(3))
""",
        """
import jax
import jax.numpy as jnp

class World:
    def step(self, x):
        return x + 1

def gui_loop(world: World, x):
    step = jax.jit(world.step)  # once per run of the loop below
    for _ in range(3):
        x = step(x)
    return x

def main():
    return gui_loop(World(), jnp.ones(2))
""",
    )
    INVALID = (
        """
import jax


def run(x):
    for i in range(10):
        x = jax.jit(lambda y: y * i)(x)  # JIT301
    return x
""",
        """
import jax


def loss(w, x):
    return (w * x).sum()


def gradient(w, x):
    return jax.jit(jax.grad(loss))(w, x)  # JIT301


def train(w, xs):
    for x in xs:
        w = w - 0.1 * gradient(w, x)
    return w
""",
        """
from functools import partial
import jax


def g(x, n):
    return x * n


def run(x):
    i = 0
    while i < 10:
        x = jax.jit(partial(g, n=i))(x)  # JIT301
        i += 1
    return x
""",
        """
import jax


def run(xs):
    out = []
    for x in xs:

        @jax.jit  # JIT301
        def step(y):
            return y + x

        out.append(step(x))
    return out
""",
        """
import jax


class Agent:
    def __init__(self, scale):
        self.scale = scale

    def act(self, obs):
        @jax.jit  # JIT301
        def policy(o):
            return o * self.scale

        return policy(obs)


def episode(agent, observations):
    return [agent.act(obs) for obs in observations]
""",
        """
import jax


class Scaler:
    def __init__(self, scale):
        self.scale = scale

    def apply(self, x):
        return x * self.scale


def run(scaler: Scaler, xs):
    out = []
    for x in xs:
        out.append(jax.jit(scaler.apply)(x))  # JIT301
    return out
""",
        """
import jax


def scaled(x, n):
    g = jax.jit(lambda y: y * n)  # JIT301
    return g(x)


def run(x):
    return [scaled(x, n) for n in range(3)]
""",
        """
import jax


def shifted(x, n):
    def fun(y):
        return y + n

    return jax.jit(fun)(x)  # JIT301


def run(x):
    return [shifted(x, n) for n in range(3)]
""",
        """
import jax


def make_loss(target):
    def loss(x):
        return ((x - target) ** 2).sum()

    return jax.jit(loss)  # JIT301


def run(x, targets):
    for target in targets:
        loss = make_loss(target)
        x = x - 0.1 * jax.grad(loss)(x)
    return x
""",
        """
import jax
import optax


def lowered(params, lr):
    tx = optax.sgd(lr)
    return jax.jit(tx.update).lower(params, tx.init(params), params)  # JIT301


def sweep(params):
    return [lowered(params, lr) for lr in (0.1, 0.2, 0.3)]
""",
        """
import jax


class Model:
    def __init__(self, scale):
        self.scale = scale

    def apply(self, x):
        return x * self.scale


model = Model(2.0)
train_out = jax.jit(model.apply)
eval_out = jax.jit(model.apply)  # JIT301
""",
        """
import jax

def set_flag(condition, flags, flag):
    return jax.lax.cond(condition, lambda x: x | flag, lambda x: x, flags)  # JIT301

def integrate(conditions, flags):
    for c in conditions:
        flags = set_flag(c, flags, 1)
    return flags

flags = integrate([True, False], 0)
""",
        """
import functools
import equinox as eqx
import jax

def scale(x, factor):
    return x * factor

class Scaled(eqx.Module):
    w: jax.Array
    fn: object

    def __init__(self, w, factor):
        self.w = w
        self.fn = functools.partial(scale, factor=factor)  # JIT301

    def __call__(self, x):
        return self.fn(self.w * x)

@eqx.filter_jit
def apply(model, x):
    return model(x)
""",
        """
from functools import partial

import jax
import optax


@partial(jax.jit, static_argnums=0)
def step(opt, params):
    updates, _ = opt.update(params, opt.init(params))
    return optax.apply_updates(params, updates)


def train(params):
    for _ in range(3):
        opt = optax.sgd(0.1)
        params = step(opt, params)  # JIT301
    return params
""",
        """
import equinox as eqx
import jax

@eqx.filter_jit
def scale(x, factor):
    return x * factor

def run(x):
    for i in range(10):
        x = scale(x, 0.5 * i)  # JIT301
    return x
""",
        """
import jax
import jax.numpy as jnp

def integrate(f, xs):
    return sum(f(x) for x in xs)

def romb(function, xs):
    vfunc = jax.jit(lambda x: function(x) * 2)  # JIT301
    return integrate(vfunc, xs)

def run(xs):
    for _ in range(3):
        total = romb(jnp.sin, xs)
    return total
""",
        """
import jax

def gram(x):
    def f(y):
        return y.T @ y
    f = jax.jit(f)  # JIT301
    return f(x)

def run(x):
    for _ in range(3):
        out = gram(x)
    return out
""",
        """
import optax
from flax import nnx

@nnx.jit
def step(model, opt, x):
    return model(x)

def run(x):
    model = nnx.Linear(2, 2, rngs=nnx.Rngs(0))
    for _ in range(3):
        opt = nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param)
        y = step(model, opt, x)  # JIT301
    return y
""",
        """
import jax
import jax.numpy as jnp


class Base:
    def double(self, x):
        return 2 * x


class Model(Base):
    def step(self, x):
        return jax.jit(super().double)(x)  # JIT301


def run(x):
    model = Model()
    for _ in range(3):
        x = model.step(x)
    return x
""",
    )

    def _fresh(self, expr: cst.BaseExpression, ctx: RuleContext, transform: str = "") -> str | None:
        """Describe ``expr`` when it is a new function object each time it is evaluated, one
        that the cache of ``transform`` (the jit given it, when known) misses."""
        if isinstance(expr, cst.Lambda):
            return "a lambda"
        if isinstance(expr, cst.Call):
            q = ctx.qualname(expr.func)
            if q == "functools.partial":
                return "a `partial(...)`"
            inner = ctx.transform(expr.func)
            if inner is not None and expr.args:
                # `grad(f)`, `vmap(f)`, even `jit(f)`: every application makes a new wrapper,
                # and jit's cache is keyed by the function object it is given
                made = snippet(expr)
                shown = f"`{made}`" if len(made) <= 40 else f"a new `{snippet(expr.func)}(...)`"
                return self._fresh(expr.args[0].value, ctx) or shown
            if _returns_closure(expr, ctx) and not (ctx.in_loop and _reads_loop_targets(expr, ctx)):
                # `jax.jit(build_metric_fn(model, pad))`: the factory defines the function
                # it returns, so each call of it returns a new function object
                return f"the closure `{snippet(expr)}` returns"
            return None
        if isinstance(expr, cst.Name) and ctx.defined_in_loop(expr.value):
            return f"`{expr.value}`, defined in the loop,"
        if (
            isinstance(expr, cst.Attribute)
            and not _equal_methods_hit(transform)
            and _is_bound_method(expr, ctx)
        ):
            return f"the bound method `{snippet(expr)}`"
        if isinstance(expr, cst.Attribute) and _of_local_object(expr, ctx):
            # `tx = optax.adam(lr)` then `jax.jit(tx.update)`: each new object's functions
            # are new function objects, and jit's cache dies with them (optax#577)
            return f"`{snippet(expr)}` of an object built here"
        return None

    def _report(self, ctx: RuleContext, node: cst.CSTNode, what: str) -> None:
        self.report(ctx, node, function=what)

    def _per_call(self, ctx: RuleContext, node: cst.CSTNode, what: str) -> None:
        scope = ctx.scope
        assert isinstance(scope, cst.FunctionDef)
        self.report(
            ctx,
            node,
            f"jit of {what} inside `{scope.name.value}`, which is called repeatedly, creates a "
            "new function on every call, so JAX retraces (and usually recompiles) it each time; "
            "jit it once "
            "outside (at module level or in `__init__`) and pass changing values as arguments",
        )

    def visit_Call(self, node: cst.Call, ctx: RuleContext) -> None:
        """Check a jit call inside a loop, or jit-and-call inside a repeatedly called function."""
        func = node.func
        if (
            type(func) is cst.Attribute
            and func.attr.value in _STAGING_METHODS
            and isinstance(func.value, cst.Call)
        ):
            func = func.value  # `jax.jit(f).lower(x)` traces `f` as a call would
        if (
            not ctx.in_loop
            and type(func) is cst.Call
            and func.args
            and func.args[0].keyword is None
        ):
            t = ctx.transform(func.func)
            target = func.args[0].value
            what = None
            if (
                t is not None
                and t.caches
                and _made_per_call(ctx, target)
                and not _equinox_cache_hit(t.qualname, target, ctx)
            ):
                what = self._fresh(target, ctx, t.qualname) or _local_def(target, ctx)
            if what is not None:  # `jax.jit(lambda y: y * k)(x)` on every call
                self._per_call(ctx, func, what.removesuffix(", defined in the loop,"))
        if not ctx.in_loop and node.args and node.args[0].keyword is None:
            self._bound_method_again(node, ctx)
        self._eager_control_flow(node, ctx)
        self._fresh_static(node, ctx)
        self._record_made_per_iteration(node, ctx)
        if ctx.in_loop and node.args:
            self._static_loop_number(node, ctx)
        if (
            ctx.in_loop
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "append"
            and len(node.args) == 1
        ):
            self._keep(node.args[0].value, ctx)
        if not ctx.in_loop or not node.args or node.args[0].keyword is not None:
            return
        t = ctx.transform(node.func)
        if t is None or not t.caches or isinstance(node.func, cst.Call):
            return
        if id(node) in state(ctx, "JIT301.kept", set):
            return  # built once per element and kept: each compiles on its first call only
        if ctx.in_sweep:
            return  # `for solver in ["full", "randomized"]:`: one compile per configuration
        if _equinox_cache_hit(t.qualname, node.args[0].value, ctx):
            return
        what = self._fresh(node.args[0].value, ctx, t.qualname)
        if what is not None:
            self._report(ctx, node, what)

    def _static_loop_number(self, node: cst.Call, ctx: RuleContext) -> None:
        """`for i in range(n): f(x, 2.0 * i)` with `f` under `eqx.filter_jit`, which keeps
        Python numbers static: each iteration passes a new static value, a new cache key, so
        every iteration traces and compiles again (equinox#645)."""
        counters = _range_targets(ctx)
        if not counters:
            return
        given = [
            (k, a) for k, a in enumerate(node.args) if not a.star and _counts(a.value, counters)
        ]
        if not given:
            return
        # Not `static_argnums`: a value made static on purpose, looped over, is a sweep of
        # specialisations (one compile per size), which is what the user asked for.
        if not _filter_jitted(node.func, ctx):
            return
        shown = snippet(given[0][1].value)
        self.report(
            ctx,
            node,
            f"`{shown}` changes on every iteration and reaches `{snippet(node.func)}` as a "
            "Python number, which `eqx.filter_jit` keeps static: each new value is a new cache "
            "key, so JAX traces and compiles again every iteration; pass it as an array "
            "(`jnp.asarray(...)`) instead",
        )

    def _keep(self, value: cst.BaseExpression, ctx: RuleContext) -> None:
        """Note a jitted function a loop builds to keep, not to call: `[jax.jit(partial(f,
        i)) for i in range(n)]`, `fns.append(jax.jit(...))`."""
        if isinstance(value, cst.Call) and ctx.transform(value.func) is not None:
            kept: set[int] = state(ctx, "JIT301.kept", set)
            kept.add(id(value))

    def visit_ListComp(self, node: cst.ListComp, ctx: RuleContext) -> None:
        """A comprehension whose elements are jitted functions builds a table of them."""
        self._keep(node.elt, ctx)

    def visit_DictComp(self, node: cst.DictComp, ctx: RuleContext) -> None:
        """A comprehension whose values are jitted functions builds a table of them."""
        self._keep(node.value, ctx)

    def _eager_control_flow(self, node: cst.Call, ctx: RuleContext) -> None:
        """`lax.cond(c, lambda x: x | flag, lambda x: x, flags)` outside any trace, run
        repeatedly: eager `lax` control flow compiles its functions, cached by their identity,
        so new functions compile again on every run (netket#2043)."""
        q = ctx.qualname(node.func)
        positions = _LAX_FUNCTIONS.get(q or "")
        if positions is None or ctx.mode is not Mode.NONE:
            return
        given: list[cst.BaseExpression] = []
        for k, a in enumerate(node.args):
            if a.star:
                return
            if (a.keyword is None and k in positions) or (
                a.keyword is not None and a.keyword.value in positions
            ):
                value = a.value
                if isinstance(value, cst.List | cst.Tuple):  # `lax.switch` branches
                    given.extend(el.value for el in value.elements)
                else:
                    given.append(value)
        what = local = None
        for value in given:
            what = self._fresh(value, ctx)
            if what is None and (what := _local_def(value, ctx)) is not None:
                local = cast(cst.Name, value).value
            if what is not None:
                break
        if what is None:
            return
        scope = ctx.scope
        eager = _eager_of(ctx)
        name = scope.name.value if isinstance(scope, cst.FunctionDef) else None
        # A function the enclosing function defines before its loop is one object for
        # every iteration: the loop compiles it once, and again only on the next call.
        fresh = local is None or ctx.defined_in_loop(local)
        if fresh and ctx.in_loop and (isinstance(scope, cst.Module) or id(scope) in eager.called):
            where = "on every iteration of the loop"
        elif name is not None and id(scope) in eager.repeated:
            if local is not None and _jitted_def(local, ctx):
                return  # the jit of the local function is the finding, at its decorator
            where = f"on every call of `{name}`, which runs repeatedly outside jit"
        else:
            return
        self.report(
            ctx,
            node,
            f"`{snippet(node.func)}` outside jit is given "
            f"{what.removesuffix(', defined in the loop,')}: JAX compiles eager control flow "
            f"per function object, so it compiles again {where}; define the functions once "
            "(module level) or jit the function that runs it",
        )

    def _bound_method_again(self, node: cst.Call, ctx: RuleContext) -> None:
        """`jax.jit(foo.f)` a second time in one scope: `foo.f` is a new bound method on each
        access, so the second jit misses the first one's cache and traces again (jax#19570)."""
        target = node.args[0].value
        if type(target) is not cst.Attribute:
            return
        t = ctx.transform(node.func)
        if (
            t is None
            or not t.caches
            or _equal_methods_hit(t.qualname)
            or not _is_bound_method(target, ctx)
        ):
            return
        receiver = root_name(target.value)
        if receiver is None:
            return
        seen: dict[int, dict[str, dict[str, int]]] = state(ctx, "JIT301.bound-jits", dict)
        shown = snippet(target)
        done = seen.setdefault(id(ctx.scope), {}).setdefault(receiver, {})
        first = done.setdefault(shown, id(node))
        if first != id(node):  # (the same jit, when the function is walked once more, is not)
            self.report(
                ctx,
                node,
                f"jit of the bound method `{shown}` again: each access makes a new method "
                "object, and jit's cache is keyed by it, so JAX traces it again; jit it once "
                f"(`f = jax.jit({shown})`) and reuse the result",
            )

    def _forget_bound_jits(self, target: cst.BaseExpression, ctx: RuleContext) -> None:
        """`f.a = 2` or `f = F()` between two `jax.jit(f.sample)`: the second trace reads
        the new state, as it must (numpyro#441)."""
        seen: dict[int, dict[str, dict[str, int]]] = state(ctx, "JIT301.bound-jits", dict)
        here = seen.get(id(ctx.scope))
        if not here:
            return
        for name in {*target_names(target), root_name(target)}:
            here.pop(name or "", None)

    def visit_AugAssign(self, node: cst.AugAssign, ctx: RuleContext) -> None:
        """Note a write that changes what a later jit of a bound method must trace."""
        self._forget_bound_jits(node.target, ctx)

    def visit_Assign(self, node: cst.Assign, ctx: RuleContext) -> None:
        """Check `g = jax.jit(lambda ...)` in a repeatedly called function that calls `g`."""
        for t in node.targets:
            self._forget_bound_jits(t.target, ctx)
        self._fresh_module_field(node, ctx)
        self._note_fresh_object(node, ctx)
        self._stored_per_call(node, ctx)
        if len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
            return
        given = node.value
        if type(given) is cst.IfExp:  # `sampling = jax.jit(sampling) if jit else sampling`
            given = given.body if type(given.body) is cst.Call else given.orelse
        value = _repeated_jit(given, ctx)
        if value is None:
            return
        what = self._fresh(value.args[0].value, ctx) or _local_def(value.args[0].value, ctx)
        name = node.targets[0].target.value
        if (
            what is not None
            and _called_in(ctx.scope, name)
            and (
                not _looped_in(ctx.scope, name)
                or _runs_counted(ctx)
                or _called_alike_twice(ctx, value.args[0].value)
            )
        ):
            self._per_call(ctx, value, what.removesuffix(", defined in the loop,"))

    def _stored_per_call(self, node: cst.Assign, ctx: RuleContext) -> None:
        """`self._mean_helper = jax.pmap(lambda data, w: ...)` in a method that runs again
        and again (jVMC's `jit_my_stuff`, run by every statistic it computes), which the
        class then calls through `self._mean_helper(...)`: each run stores a new function,
        traced and compiled again at its next call."""
        if ctx.in_loop or len(node.targets) != 1:
            return
        target, value = node.targets[0].target, node.value
        if not (
            type(target) is cst.Attribute
            and type(target.value) is cst.Name
            and target.value.value == "self"
            and type(value) is cst.Call
            and value.args
            and value.args[0].keyword is None
        ):
            return
        t = ctx.transform(value.func)
        made = value.args[0].value
        cls = ctx.enclosing_class
        if t is None or not t.caches or cls is None or not _made_per_call(ctx, made):
            return
        attr = target.attr.value
        if _stored_once(node, attr, ctx.scope):
            return
        what = self._fresh(made, ctx, t.qualname) or _local_def(made, ctx)
        if what is not None and any(
            type(n) is cst.Call
            and type(n.func) is cst.Attribute
            and n.func.attr.value == attr
            and type(n.func.value) is cst.Name
            and n.func.value.value == "self"
            for n in descendants(cls.body)
        ):
            self._per_call(ctx, value, what.removesuffix(", defined in the loop,"))

    def _note_fresh_object(self, node: cst.Assign, ctx: RuleContext) -> None:
        """Note `opt = optax.adam(lr)` (or a lambda, a `partial`, an instance of a project
        class that hashes by identity): a new object, unequal to every earlier one."""
        made: dict[int, dict[str, tuple[str, bool]]] = state(ctx, "JIT301.fresh", dict)
        names = made.setdefault(id(ctx.scope), {})
        for t in node.targets:
            if type(t.target) is cst.Name:
                names.pop(t.target.value, None)
        if len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
            return
        what = _identity_hashed(node.value, ctx)
        if what is not None:
            names[node.targets[0].target.value] = (what, ctx.in_loop)

    def _record_made_per_iteration(self, node: cst.Call, ctx: RuleContext) -> None:
        """`apply_model(state, x)`, jitted, given a train state that a loop of the script
        builds anew on every pass with `create_train_state(lr)`, which makes a new optax
        transformation for the state's static `tx`: jit compares static fields by equality,
        and a new transformation's functions equal no earlier ones, so every pass compiles
        again (Flower's quickstart, once per client message). The state may be handed to
        the function walked as a parameter, or made in its own loop."""
        if ctx.mode is not Mode.NONE or not node.args:
            return
        fresh = _records_made_per_iteration(ctx)
        if not fresh:
            return
        scope = ctx.scope
        where = scope.name.value if isinstance(scope, cst.FunctionDef) else None
        for a in node.args:
            if type(a.value) is not cst.Name or a.star:
                continue
            found = fresh.get((where, a.value.value))
            if found is None or ctx.jit_spec(node.func) is None:
                continue
            maker, what = found
            self.report(
                ctx,
                node,
                f"`{a.value.value}` is built anew on every pass of a loop by `{maker}`, "
                f"with {what} as its static field `tx`: jit compares static fields by "
                "equality, and a new optax transformation equals no earlier one, so this "
                "call traces and compiles again on every pass; make the optimizer once and "
                "hand it in",
            )
            return

    def _fresh_static(self, node: cst.Call, ctx: RuleContext) -> None:
        """`step(opt, state)` with `opt` static, and `opt = optax.adam(lr)` made anew on
        every iteration (or every call of a function that runs repeatedly): a static
        argument is part of the cache key, compared by hash and equality, and a new object
        equals no earlier one, so every call traces and compiles again (optax#197)."""
        made: dict[int, dict[str, tuple[str, bool]]] = state(ctx, "JIT301.fresh", dict)
        names = dict(made.get(id(ctx.scope)) or {})
        scope = ctx.scope
        if isinstance(scope, cst.FunctionDef) and any(
            type(a.value) is cst.Name and not a.star for a in node.args
        ):
            # a function the scope defines: a new object on every call of it (`def
            # q_loss_agent(params, obs): ...` in `update`, handed to a static position)
            local: dict[int, frozenset[str]] = state(ctx, "JIT301.local-defs", dict)
            defs = local.get(id(scope))
            if defs is None:
                defs = local[id(scope)] = frozenset(scope_names(scope.body, scope.params).defs)
            for name in defs - names.keys():
                names[name] = (f"the local function `{name}`", ctx.defined_in_loop(name))
        if not names:
            return
        given = [
            (k, a)
            for k, a in enumerate(node.args)
            if isinstance(a.value, cst.Name) and a.value.value in names and not a.star
        ]
        if not given:
            return
        # flax's `nnx.jit` keeps the static parts of every object it is given (an
        # optimizer's optax transformation among them) in its cache key.
        nnx = jitted_by(node.func, ctx, "flax.nnx.jit")
        spec = ctx.jit_spec(node.func)
        if spec is None and not nnx:
            return
        positions, keywords = spec or ((), ())
        for k, a in given:
            static = (
                nnx
                or (a.keyword is None and k in positions)
                or (a.keyword is not None and a.keyword.value in keywords)
            )
            assert isinstance(a.value, cst.Name)
            what, in_loop = names[a.value.value]
            if not static:
                continue
            if in_loop and ctx.in_loop:
                when = "on every iteration"
            elif not in_loop and runs_repeatedly_eagerly(ctx):
                assert isinstance(scope, cst.FunctionDef)
                when = f"on every call of `{scope.name.value}`"
            else:
                continue
            self.report(
                ctx,
                node,
                f"static argument `{a.value.value}` is {what} made anew {when}: a static "
                "argument is part of jit's cache key, and a new object equals no earlier one, "
                "so JAX traces and compiles again each time; build it once outside, or pass "
                "what it is made from as the static argument",
            )
            return

    def _fresh_module_field(self, node: cst.Assign, ctx: RuleContext) -> None:
        """`self._norm = ft.partial(f, axis=axis)` in an equinox module's `__init__`: a new
        function object per instance, which compares by identity; `filter_jit` keeps the
        module's non-array leaves in its cache key, so every new instance traces again."""
        scope, cls = ctx.scope, ctx.enclosing_class
        if not isinstance(scope, cst.FunctionDef) or scope.name.value != "__init__":
            return
        if cls is None or not equinox_module(cls, ctx) or len(node.targets) != 1:
            return
        target = node.targets[0].target
        if not (
            isinstance(target, cst.Attribute)
            and isinstance(target.value, cst.Name)
            and target.value.value == "self"
        ):
            return
        value = node.value
        fresh = isinstance(value, cst.Lambda) or (
            isinstance(value, cst.Call) and ctx.qualname(value.func) == "functools.partial"
        )
        what = "a lambda" if isinstance(value, cst.Lambda) else "a `partial(...)`"
        if (
            not fresh
            and isinstance(value, cst.Call)
            and value.args
            and type(value.func) is not cst.Call  # not `filter_vmap(make)(keys)`: its result
            and ctx.transform(value.func) is not None
        ):
            # `self.forward = jax.jit(fk_fn)`: a new wrapper object per instance
            fresh, what = True, f"a new `{snippet(value.func)}(...)` wrapper"
        if not fresh:
            local = _local_def(value, ctx)
            if local is None:
                return
            what = local
        self.report(
            ctx,
            value,
            f"`{snippet(target)}` holds {what} made anew for every `{cls.name.value}`: it "
            "compares by identity, and `eqx.filter_jit` keys its cache on a module's non-array "
            "fields, so every new instance traces again; build it from module-level functions "
            "in `__call__`, or store only its arguments",
        )

    def visit_Return(self, node: cst.Return, ctx: RuleContext) -> None:
        """Check `return jax.jit(loss)` of a local function in a factory called in a loop:
        each call hands back a new jitted function, compiled again when it is called."""
        value = _repeated_jit(node.value, ctx)
        if value is None:
            return
        target = value.args[0].value
        # A closure over the factory's values, made anew per call. A `partial` of a kernel
        # with keyword options, or a transform of one, is a configuration being tuned:
        # each is compiled once anyway.
        what = _local_def(target, ctx) or ("a `lambda`" if isinstance(target, cst.Lambda) else None)
        t = ctx.transform(value.func)
        if (
            what is None
            and type(target) is cst.Attribute
            and t is not None
            and not _equal_methods_hit(t.qualname)
            and _is_bound_method(target, ctx)
        ):
            # `return jit(self.outer_training_loop)`: a new bound method, a new cache entry
            what = f"the bound method `{snippet(target)}`"
        if what is not None:
            self._per_call(ctx, value, what)

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx: RuleContext) -> None:
        """Check a jit-decorated function defined in a loop or in a repeatedly called one."""
        for k, dec in enumerate(node.decorators):
            t = ctx.transform(dec.decorator)
            if t is None or not t.caches:
                continue
            if any(_caching(d.decorator, ctx) for d in node.decorators[k + 1 :]):
                return  # jit gets a function cached across calls (numpyro's `cached_by`)
            if ctx.in_loop:
                if ctx.in_sweep:
                    return  # `for axis in (2, -1):`: one compile per configuration
                self._report(ctx, dec, f"`{node.name.value}`, defined in the loop,")
            elif _made_per_call(ctx, node) and (
                _called_in(ctx.scope, node.name.value)
                or (_runs_counted(ctx) and _handed_out(ctx.scope, node.name.value))
            ):
                self._per_call(ctx, dec, f"`{node.name.value}`")
            return


def _stored_once(node: cst.Assign, attr: str, scope: cst.CSTNode) -> bool:
    """Tell whether ``node`` stores `self.<attr>` only under a test of it (`if not
    self._jitted_fn:`, `if self._fn is None:`, `if not hasattr(self, "_fn")`): a cache
    filled on the first call."""
    for stmt in descendants(scope):
        if type(stmt) is not cst.If or not any(n is node for n in descendants(stmt.body)):
            continue
        for n in descendants(stmt.test):
            if (type(n) is cst.Attribute and n.attr.value == attr) or (
                type(n) is cst.SimpleString and n.value[1:-1] == attr
            ):
                return True
    return False


def _repeated_jit(value: cst.BaseExpression | None, ctx: RuleContext) -> cst.Call | None:
    """Return ``value`` when it is `jax.jit(f, ...)` (a caching transform of a function
    given first) outside a loop, in a function that is evidently called repeatedly."""
    if (
        ctx.in_loop
        or type(value) is not cst.Call
        or not value.args
        or value.args[0].keyword is not None
    ):
        return None
    t = ctx.transform(value.func)
    if t is None or not t.caches or not _made_per_call(ctx, value.args[0].value):
        return None
    return value


_FRESH_CACHES = frozenset({"functools.cache", "functools.lru_cache"})


def _caching(decorator: cst.BaseExpression, ctx: RuleContext) -> bool:
    """Tell whether a decorator may hand back a function cached across calls of the
    enclosing function (`@cached_by(outer, key)`), not the new one: then jit's cache hits.
    `functools.cache` wraps each new function anew, so it does not count."""
    func = decorator.func if isinstance(decorator, cst.Call) else decorator
    q = ctx.qualname(func) or snippet(func)
    name = q.rsplit(".", 1)[-1].lower()
    return q not in _FRESH_CACHES and ("cache" in name or "memo" in name)


def _local_def(expr: cst.BaseExpression, ctx: RuleContext) -> str | None:
    """Name a function the scope being walked defines (a new object on every call)."""
    scope = ctx.scope
    if not isinstance(expr, cst.Name) or not isinstance(scope, cst.FunctionDef):
        return None
    name = expr.value
    if name in scope_names(scope.body, scope.params).defs:
        return f"the local function `{name}`"
    # `energy = lambda R: ...`, then `if jit: energy = jax.jit(energy)`: every binding of
    # the name is a lambda or wraps what it held, so it holds a new function on every call
    values = assigned_values(ctx).get(name)
    if not values or not any(type(v) is cst.Lambda for v in values):
        return None
    if all(
        type(v) is cst.Lambda
        or (
            type(v) is cst.Call
            and v.args
            and type(v.args[0].value) is cst.Name
            and v.args[0].value.value == name
        )
        for v in values
    ):
        return f"the lambda `{name}`"
    return None


def _jitted_def(name: str, ctx: RuleContext) -> bool:
    """Tell whether the function ``name`` the scope being walked defines has a decorator
    that jits it (`@jit def step`)."""
    scope = ctx.scope
    if not isinstance(scope, cst.FunctionDef):
        return False
    fn = scope_names(scope.body, scope.params).defs.get(name)
    return fn is not None and ctx.def_spec(fn) is not None


def _of_local_object(expr: cst.Attribute, ctx: RuleContext) -> bool:
    """Tell whether ``expr`` is `obj.f` of a local `obj` that every binding in this function
    builds by a call (`tx = optax.adam(lr)`). Not in a loop: an object built before it
    keeps the same functions (an optax transformation's `update` is a stored function)."""
    if ctx.in_loop or not isinstance(expr.value, cst.Name):
        return False
    if not isinstance(ctx.scope, cst.FunctionDef):
        return False
    values = assigned_values(ctx).get(expr.value.value, ())
    return bool(values) and all(isinstance(v, cst.Call) for v in values)


def _is_bound_method(expr: cst.Attribute, ctx: RuleContext) -> bool:
    """Tell whether ``expr`` makes a new bound method object each time it is evaluated:
    `obj.method` of a project class (or a classmethod through its class), whose cache entry
    in jit dies with it."""
    base = expr.value
    if isinstance(base, cst.Call) and ctx.qualname(base.func) == "super":
        return True  # `super().get_params`: a new bound method of the parent's function
    # Resolution binds the first parameter as Python does: `obj.m` and a classmethod bind
    # it, a staticmethod or `Cls.m` do not (`is_method`).
    target = ctx.resolve_function(expr)
    if target is None:
        return _inherited_method(expr, ctx) or _foreign_instance_method(expr, ctx)
    if not target.is_method:
        return False
    # `self.f = self.f` in `__init__`: the instance keeps one bound method (jax#19570)
    return target.cls is None or expr.attr.value not in self_assignments(target.cls, ctx)


def _foreign_instance_method(expr: cst.Attribute, ctx: RuleContext) -> bool:
    """Tell whether ``expr`` is `obj.m` of an `obj` that every binding makes by calling a
    class defined outside the project (`strategy = OpenES(...)`, or unpacked from what a
    function of this module returns so, then `jax.jit(strategy.ask)`): a method, bound anew
    on each access. Not a name the call passes by keyword (`TrainState(apply_fn=f)`: a
    stored function, the same object each time), not a dunder, not optax's
    `GradientTransformation` records of stored functions."""
    base, name = expr.value, expr.attr.value
    if type(base) is not cst.Name or name.startswith("__"):
        return False
    scope = ctx.scope
    values = assigned_values(ctx).get(base.value)
    if isinstance(scope, cst.FunctionDef):
        unpacked = unpacked_calls(scope.body).get(base.value)
        if unpacked is not None:  # its one binding
            values = _returned_at(*unpacked, ctx)
        elif values is None:
            if base.value in scope_names(scope.body, scope.params).locals:
                return False  # bound here some way the values do not show
            values = module_assignments(ctx).get(base.value)
    if not values:
        return False
    return all(_foreign_construction(v, name, ctx) for v in values)


def _returned_at(call: cst.Call, index: int, ctx: RuleContext) -> list[cst.BaseExpression]:
    """Return what the function of this module that ``call`` calls binds, on every path,
    to the name it returns at ``index`` of its tuple (`return strategy, params, state`)."""
    target = ctx.resolve_function(call.func)
    if target is None or not target.defined_here or target.is_method:
        return []
    fn = target.fn
    bound = scope_assignments(fn)
    out: list[cst.BaseExpression] = []
    for ret in return_statements(fn):
        value = ret.value
        if type(value) is not cst.Tuple or index >= len(value.elements):
            return []
        item = value.elements[index].value
        if type(item) is not cst.Name or not bound.get(item.value):
            return []
        out.extend(bound[item.value])
    return out


def _foreign_construction(value: cst.BaseExpression, name: str, ctx: RuleContext) -> bool:
    """Tell whether ``value`` builds an instance of a class from outside the project whose
    ``name`` is not a field the call sets (see `_foreign_instance_method`)."""
    if type(value) is not cst.Call:
        return False
    callee = last_name(value.func)
    if not _class_like(callee) or "GradientTransformation" in callee:
        return False
    cls = ctx.project_class(value.func)
    if cls is not None:  # a project class: `name` is one of its methods, not a field
        return _own_method(cls, name) and name not in self_assignments(cls, ctx)
    if ctx.resolve_function(value.func) is not None:
        return False  # a project function named like a class
    return not any(a.keyword is not None and a.keyword.value == name for a in value.args)


def _own_method(cls: cst.ClassDef, name: str) -> bool:
    """Tell whether ``cls`` defines ``name`` as a method bound to its instances (not a
    `staticmethod`)."""
    fn = scope_names(cls.body).defs.get(name)
    return fn is not None and not any(dotted(d.decorator) == "staticmethod" for d in fn.decorators)


def _class_like(name: str) -> bool:
    """`OpenES`, `SNES`, `RolloutWrapper`: a name spelled as Python spells classes."""
    return name[:1].isupper()


def _inherited_method(expr: cst.Attribute, ctx: RuleContext) -> bool:
    """Tell whether ``expr`` is `self.m` of a method `m` that the class inherits from a base
    defined elsewhere (`class SVI(svi.SVI)`, then `self.update`): the class neither defines
    `m` nor stores anything in it."""
    cls = ctx.enclosing_class
    if (
        cls is None
        or not isinstance(expr.value, cst.Name)
        or expr.value.value != "self"
        or not cls.bases
    ):
        return False
    if any(isinstance(b.value, cst.Name) and b.value.value == "object" for b in cls.bases):
        return False
    name = expr.attr.value
    if name in self_assignments(cls, ctx) or name in scope_names(cls.body).locals:
        return False  # stored on the object, or a class attribute: maybe not a method
    # every base is defined elsewhere: what it holds in `name` is read from its methods
    return all(ctx.class_named(dotted(b.value) or "") is None for b in cls.bases)


# Methods Python calls once per item: a model's `__call__` per batch, an iterator's
# `__next__` per step of the `for` loop over it, a dataset's `__getitem__` per index.
_CALLED_PER_ITEM = frozenset({"__call__", "__next__", "__getitem__"})


def _returns_closure(call: cst.Call, ctx: RuleContext) -> bool:
    """Tell whether ``call`` runs an undecorated project function whose every `return`
    hands back a function it makes there: a lambda, a `partial`, or a function it defines."""
    resolved = ctx.resolve_function(call.func)
    if resolved is None or not isinstance(resolved.fn, cst.FunctionDef) or resolved.fn.decorators:
        return False
    fn = resolved.fn
    returns = return_statements(fn)
    if not returns:
        return False
    defs = scope_names(fn.body, fn.params).defs
    for ret in returns:
        value = ret.value
        if type(value) is cst.Lambda:
            continue
        if type(value) is cst.Name and value.value in defs:
            continue
        if (
            type(value) is cst.Call
            and (resolved.import_qualname(value.func) or ctx.qualname(value.func))
            == "functools.partial"
        ):
            continue
        return False
    return True


def _reads_loop_targets(call: cst.Call, ctx: RuleContext) -> bool:
    """Tell whether ``call`` reads a name a `for` loop of the walked scope binds: a factory
    given each iteration's configuration (`for config in configs:`) makes the function that
    configuration asks for, compiled once for it."""
    targets = {
        name
        for n in _own_statements(ctx.scope)
        if type(n) is cst.For
        for name in target_names(n.target)
    }
    return any(type(n) is cst.Name and n.value in targets for n in descendants(call))


def _made_per_call(ctx: RuleContext, made: cst.CSTNode | None = None) -> bool:
    """Tell whether a function the walked function makes is made anew on each of its
    calls: it runs repeatedly (in a loop, or called more than once by a script's top-level
    code, directly or through the functions that code calls), and not under a caching
    transform (inside `jax.jit` or `eqx.filter_jit` its body runs once per compile of the
    outer function, and a jit made there is traced into the outer program, not compiled on
    its own)."""
    if ctx.mode is Mode.JIT:
        return False
    if runs_repeatedly(ctx):
        return True
    scope = ctx.scope
    if made is None or not isinstance(scope, cst.FunctionDef):
        return False
    eager = _eager_of(ctx)
    if id(scope) in eager.repeated:
        return True  # called in a loop: the same work again, each time with a new function
    if id(scope) in eager.twice:
        # A script calling a function again often runs another configuration
        # (`check(False)`, `check(True)`), whose jitted function rightly differs; one that
        # reads nothing of the call is the same function made again, and compiled again for
        # nothing.
        return not _reads_call_locals(made, scope, ctx)
    if id(scope) in eager.on_one_object and ctx.enclosing_class is not None:
        # `game.ai_move()` twice: `jax.jit(self.run_mcts)` reads the call's `self`, the same
        # object each time; only its other arguments make another configuration.
        first = [p.name.value for p in (*scope.params.posonly_params, *scope.params.params)]
        return not _reads_call_locals(made, scope, ctx, besides=frozenset(first[:1]))
    return False


def _called_alike_twice(ctx: RuleContext, made: cst.CSTNode) -> bool:
    """Tell whether the module's top-level code calls the function being walked twice with
    the same configuration for ``made`` (see `_called_alike`)."""
    scope = ctx.scope
    return (
        isinstance(scope, cst.FunctionDef)
        and id(scope) in _eager_of(ctx).twice
        and _called_alike(made, scope, ctx)
    )


def _called_alike(made: cst.CSTNode, scope: cst.FunctionDef, ctx: RuleContext) -> bool:
    """Tell whether the module's top-level code calls ``scope`` (a module function) twice
    with the same arguments for what ``made`` reads of the call: the parameters it reads,
    and those the locals it reads are computed from (`generate(model, key1, ...)` and
    `generate(model, key2, ...)` jit the same `inference_model` of `model` twice). An
    argument naming a variable bound more than once at module level may differ."""
    if ctx.enclosing_class is not None:
        return False
    names = scope_names(scope.body, scope.params)
    params = [p.name.value for p in (*scope.params.posonly_params, *scope.params.params)]
    every = set(params) | {p.name.value for p in scope.params.kwonly_params}
    own: set[str] = set()
    body: cst.CSTNode = names.defs.get(made.value, made) if type(made) is cst.Name else made
    if type(body) is cst.FunctionDef or type(body) is cst.Lambda:
        own.update(param_names(body.params))
        if type(body) is cst.FunctionDef:
            own.update(scope_names(body.body).locals)
        body = body.body
    read = {n.value for n in variable_names(body)} - own
    if any(isinstance(ctx.binding_scope(n), cst.FunctionDef) for n in read - names.locals - every):
        return False  # reads a function around this one
    needed = read & every
    bindings = scope_assignments(scope)
    for local in read & (names.locals - every):
        for value in bindings.get(local, [None]):
            if value is None:
                return False  # bound otherwise (a loop target, a `with`): not followed
            needed |= {n.value for n in variable_names(value)} & every
    assigned = module_assignments(ctx)
    seen: set[tuple[str, ...]] = set()
    for stmt in ctx.module.body:
        if isinstance(stmt, cst.FunctionDef | cst.ClassDef):
            continue
        for call in descendants(stmt):
            if type(call) is not cst.Call or type(call.func) is not cst.Name:
                continue
            if call.func.value != scope.name.value:
                continue
            passed = passed_to(params, call)
            if passed is None:
                continue
            given = dict(passed)
            if any(
                len(assigned.get(n.value, ())) > 1
                for p in needed
                if p in given
                for n in variable_names(given[p])
            ):
                continue
            signature = tuple(code(given[p]) if p in given else "<default>" for p in sorted(needed))
            if signature in seen:
                return True
            seen.add(signature)
    return False


def _reads_call_locals(
    made: cst.CSTNode,
    scope: cst.FunctionDef,
    ctx: RuleContext,
    besides: frozenset[str] = frozenset(),
) -> bool:
    """Tell whether ``made`` (a function the walked function makes, or the expression it
    jits) reads a parameter or local variable of ``scope`` (but those in ``besides``), or of
    a function around it (`tabular_rollout(key, env, policy)` defining the rollout that jits
    its loop body): it is built from the call."""
    names = scope_names(scope.body, scope.params)
    if type(made) is cst.Name:
        made = names.defs.get(made.value, made)
    own: set[str] = set()
    body: cst.CSTNode = made
    if type(made) is cst.FunctionDef or type(made) is cst.Lambda:
        own.update(param_names(made.params))
        body = made.body
        if type(made) is cst.FunctionDef:
            own.update(scope_names(made.body).locals)
            own.add(made.name.value)
    outer = names.locals - own
    return any(
        n.value in outer
        or (n.value not in own and isinstance(ctx.binding_scope(n.value), cst.FunctionDef))
        for n in variable_names(body)
        if n.value not in besides
    )


def runs_repeatedly(ctx: RuleContext) -> bool:
    """Tell whether the function being walked is evidently called more than once.

    A module's `__call__` is (a model applied per batch), an iterator's `__next__` and a
    dataset's `__getitem__` are (once per item), and so is a function or method that this
    module calls inside a loop (`agent.act(obs)` in the episode loop). Being a
    method is no evidence: a test method runs once.
    """
    scope = ctx.scope
    if not isinstance(scope, cst.FunctionDef) or scope.name.value == "__init__":
        return False
    if ctx.enclosing_class is not None and scope.name.value in _CALLED_PER_ITEM:
        return True
    name = scope.name.value
    if not ctx.may_call(name) and name not in _returned_functions_of(ctx):
        return False  # not called in this module at all, nor handed back: no walk needed
    called: set[str] = state(
        ctx, "JIT301.called-in-loops", lambda: _called_in_loops(ctx.module, _returned_of(ctx))
    )
    return name in called


def _returned_of(ctx: RuleContext) -> dict[str, list[tuple[str | None, ...]]]:
    """Return `_returned_functions` of the module walked, once per module."""
    found: dict[str, list[tuple[str | None, ...]]] = state(
        ctx, "JIT301.returned", lambda: _returned_functions(ctx.module)
    )
    return found


def _returned_functions_of(ctx: RuleContext) -> frozenset[str]:
    """Return the names of the functions the module's functions define and return."""
    return frozenset(n for returns in _returned_of(ctx).values() for r in returns for n in r if n)


def _returned_functions(module: cst.Module) -> dict[str, list[tuple[str | None, ...]]]:
    """Map each function of ``module`` that returns functions it defines (`def
    _initialize(self): def compute(R): ...; return displacement_fn, compute`) to what each
    of its `return` statements gives, by position: the name of such a function, or None."""
    out: dict[str, list[tuple[str | None, ...]]] = {}
    for fn in statements(module):
        if type(fn) is not cst.FunctionDef:
            continue
        local = scope_names(fn.body, fn.params).defs
        if not local:
            continue
        returns: list[tuple[str | None, ...]] = []
        for ret in return_statements(fn):
            value = ret.value
            parts = value.elements if isinstance(value, cst.Tuple) else None
            given = [e.value for e in parts] if parts is not None else [value]
            names = tuple(
                v.value if type(v) is cst.Name and v.value in local else None for v in given
            )
            if any(names):
                returns.append(names)
        if returns:
            out.setdefault(fn.name.value, []).extend(returns)
    return out


def _note_returned_alias(
    node: cst.Assign,
    returned: dict[str, list[tuple[str | None, ...]]],
    aliases: dict[str, set[str]],
) -> None:
    """Record `self._fn = self._initialize()` (or `self.a, self._fn = ...`), where the
    method returns functions it defines: calling `self._fn` calls them."""
    if len(node.targets) != 1 or type(node.value) is not cst.Call:
        return
    callee = last_name(node.value.func)
    if callee not in returned:
        return
    target = node.targets[0].target
    targets = [e.value for e in target.elements] if isinstance(target, cst.Tuple) else [target]
    for names in returned[callee]:
        if len(names) != len(targets):
            continue
        for t, name in zip(targets, names, strict=True):
            key = (
                t.value
                if type(t) is cst.Name
                else t.attr.value
                if type(t) is cst.Attribute
                else None
            )
            if key is not None and name is not None:
                aliases.setdefault(key, set()).add(name)


def _runs_counted(ctx: RuleContext) -> bool:
    """Tell whether the function being walked is called in a counting loop (`for step in
    range(n)`, `while`), directly or through the functions that loop calls: the same work
    again on each pass, not one configuration of a sweep over values (`for s in scales`)."""
    scope = ctx.scope
    if not isinstance(scope, cst.FunctionDef) or not runs_repeatedly(ctx):
        return False
    counted: set[str] = state(
        ctx,
        "JIT301.called-in-counting-loops",
        lambda: _called_in_loops(ctx.module, _returned_of(ctx), True),
    )
    return scope.name.value in counted


def _identity_hashed(value: cst.BaseExpression, ctx: RuleContext) -> str | None:
    """Describe ``value`` when it builds an object that hashes and compares by identity."""
    if type(value) is cst.Lambda:
        return "a lambda"
    if type(value) is not cst.Call:
        return None
    q = ctx.qualname(value.func) or ""
    if q == "functools.partial":
        return "a `partial(...)`"
    if q.startswith("optax.") and q.count(".") == 1 and q[6:7].islower():
        # an optimizer: a record of new closures, equal only to itself
        return f"a new `{snippet(value.func)}(...)` optimizer"
    if q == "flax.nnx.Optimizer" and any(
        _identity_hashed(a.value, ctx) is not None for a in value.args[1:]
    ):
        # its transformation is a static part of its graph
        return "an `nnx.Optimizer` around a new optax transformation"
    if type(value.func) is cst.Name:
        cls = ctx.class_named(value.func.value)
        if cls is not None and _plain_class(cls):
            return f"a new `{value.func.value}`"
    return None


def _fresh_tx_maker(fn: cst.FunctionDef, ctx: RuleContext) -> str | None:
    """Describe the new optax transformation ``fn`` returns in a record's `tx`
    (`return TrainState.create(apply_fn=..., params=p, tx=optax.sgd(lr))`, or a local
    bound to one), if it does."""
    returned = returned_call(fn)
    given = None if returned is None else arg(returned, None, "tx")
    if given is None:
        return None
    value = given.value
    if type(value) is cst.Name:
        values = scope_assignments(fn).get(value.value, [])
        value = values[0] if len(values) == 1 else value
    if type(value) is not cst.Call or not (ctx.qualname(value.func) or "").startswith("optax."):
        return None
    return _identity_hashed(value, ctx)


def _records_made_per_iteration(ctx: RuleContext) -> dict[tuple[str | None, str], tuple[str, str]]:
    """Map (function name or None for the script, name) to the maker and what it makes, for
    names holding a record with a new optax transformation per pass of a loop: bound in a
    loop to a call of a project function that makes one (`train_state =
    create_train_state(lr)`), and the parameters of module functions that such a loop hands
    the name to (`train(train_state, loader)`). Once per module."""

    def find() -> dict[tuple[str | None, str], tuple[str, str]]:
        if not ctx.mentions("tx="):
            return {}
        module = ctx.module
        defs = {fn.name.value: fn for fn in module.body if type(fn) is cst.FunctionDef}
        makers = {name: what for name, fn in defs.items() if (what := _fresh_tx_maker(fn, ctx))}
        out: dict[tuple[str | None, str], tuple[str, str]] = {}
        if not makers:
            return out
        for owner in [None, *defs.values()]:
            body = module if owner is None else owner.body
            where = None if owner is None else owner.name.value
            for loop in own_statements(body):
                if type(loop) is not cst.For and type(loop) is not cst.While:
                    continue
                if type(loop) is cst.For:
                    if constant_sweep(loop):
                        continue  # one configuration per pass: each compiles anyway
                    varying = set(target_names(loop.target))
                elif type(loop) is cst.While:
                    varying = set()
                else:
                    continue
                held: dict[str, tuple[str, str]] = {}
                for stmt in statements(loop.body):
                    if type(stmt) is not cst.Assign:
                        continue
                    value = stmt.value
                    callee = value.func if type(value) is cst.Call else None
                    made = (
                        type(callee) is cst.Name
                        and callee.value in makers
                        and not any(n.value in varying for n in variable_names(value))
                    )
                    for t in stmt.targets:
                        if type(t.target) is not cst.Name:
                            continue
                        name = t.target.value
                        if made:
                            assert type(callee) is cst.Name
                            held[name] = (callee.value, makers[callee.value])
                        elif name in held and not (
                            type(value) is cst.Call
                            and (
                                root_name(value.func) == name  # `state.replace(...)`
                                or any(
                                    type(a.value) is cst.Name and a.value.value == name
                                    for a in value.args
                                )
                            )
                        ):
                            del held[name]  # bound to something else, not derived from it
                for name, found in held.items():
                    out[(where, name)] = found
                for call in descendants(loop.body):
                    if type(call) is not cst.Call or type(call.func) is not cst.Name:
                        continue
                    target = defs.get(call.func.value)
                    if target is None:
                        continue
                    positional = [
                        p.name.value for p in (*target.params.posonly_params, *target.params.params)
                    ]
                    for param, value in passed_to(positional, call) or []:
                        if type(value) is cst.Name and value.value in held:
                            out[(target.name.value, param)] = held[value.value]
        return out

    found: dict[tuple[str | None, str], tuple[str, str]] = state(
        ctx, "JIT301.records-per-iteration", find
    )
    return found


def _plain_class(cls: cst.ClassDef) -> bool:
    """Tell whether instances of ``cls`` hash by identity: no decorator (a dataclass
    compares by value), no base but `object`, no `__eq__` or `__hash__` of its own."""
    if cls.decorators or any(
        not (isinstance(b.value, cst.Name) and b.value.value == "object") for b in cls.bases
    ):
        return False
    defined = scope_names(cls.body).defs
    return "__eq__" not in defined and "__hash__" not in defined


def runs_repeatedly_eagerly(ctx: RuleContext) -> bool:
    """Tell whether the function being walked evidently runs more than once: called in a
    loop (`runs_repeatedly`), or more than once by the module's top-level code."""
    scope = ctx.scope
    if not isinstance(scope, cst.FunctionDef):
        return False
    if runs_repeatedly(ctx):
        return True
    eager = _eager_of(ctx)
    return id(scope) in eager.twice or id(scope) in eager.on_one_object


def runs_once_eagerly(ctx: RuleContext, fn: cst.FunctionDef) -> bool:
    """Tell whether the module's top-level code runs ``fn`` (a function or method) and
    never repeatedly: not in a loop, not twice, not twice on one object (a `setup` step)."""
    eager = _eager_of(ctx)
    key = id(fn)
    return (
        key in eager.called
        and key not in eager.repeated
        and key not in eager.twice
        and key not in eager.on_one_object
    )


def swept_only(ctx: RuleContext) -> bool:
    """Tell whether every call of the function walked that a loop holds is in a sweep over
    a display of a few constants (`for unroll in (False, True): main(args)`, `for scale in
    (1.0, 2.0)`): a run per configuration, each meant to start alike."""
    scope = ctx.scope
    if not isinstance(scope, cst.FunctionDef):
        return False
    _, swept, repeated = state(ctx, "JIT301.sweeps", lambda: _loop_calls(ctx.module, False))
    return scope.name.value in swept and scope.name.value not in repeated


def _loop_calls(
    module: cst.Module, values_repeat: bool, counting: bool = False
) -> tuple[list[cst.Call], frozenset[str], frozenset[str]]:
    """Return the calls in loop bodies and comprehension elements (sweeps too), the names
    (or method names) called inside sweeps only, and those called inside some loop that is
    not a sweep. ``values_repeat``: a sweep over floats (`for lr in (0.1, 0.2)`) counts as a
    loop, its values as ones an argument could carry. ``counting``: only a counting loop
    (`range(...)`, `while`) counts; one over values is a sweep."""

    def sweep(loop: cst.CSTNode) -> bool:
        if counting and not _counting_loop(loop):
            return True
        return constant_sweep(loop) and not (values_repeat and _float_sweep(loop))

    found, counted = nodes_under_split(module, _LOOP_BODIES, cst.Call, sweep)
    looped = cast(list[cst.Call], found)
    swept: set[str] = set()
    repeated: set[str] = set()
    for call, real in zip(looped, counted, strict=True):
        func = call.func
        if type(func) is cst.Name:
            (repeated if real else swept).add(func.value)
        elif type(func) is cst.Attribute:
            (repeated if real else swept).add(func.attr.value)
    return looped, frozenset(swept), frozenset(repeated)


def _counting_loop(loop: cst.CSTNode) -> bool:
    """Tell whether ``loop`` counts passes (`while`, `for i in range(n)`, `for i, x in
    enumerate(range(n))`) rather than running over values."""
    if type(loop) is cst.While:
        return True
    if type(loop) is cst.For:
        it = loop.iter
    elif type(loop) is cst.ListComp or type(loop) is cst.GeneratorExp or type(loop) is cst.SetComp:
        it = loop.for_in.iter
    else:
        return False
    while type(it) is cst.Call and type(it.func) is cst.Name and it.args:
        if it.func.value == "range":
            return True
        if it.func.value not in ("enumerate", "tqdm", "trange"):
            return False
        it = it.args[0].value
    return type(it) is cst.Call and type(it.func) is cst.Name and it.func.value == "trange"


def _float_sweep(loop: cst.CSTNode) -> bool:
    """Tell whether a sweep (``loop``, a `for` or a comprehension) has a float among its
    values: a learning rate or a scale, not a choice of structure."""
    return any(
        type(n) is cst.Float
        for n in descendants(
            loop.iter if type(loop) is cst.For else cast(cst.ListComp, loop).for_in.iter
        )
    )


def _called_in(scope: cst.CSTNode, name: str) -> bool:
    """Tell whether ``scope`` calls ``name``, or hands it to a function it calls (romb's
    `_difftrap1(vfunc, ...)`): the jitted function is used here, not returned."""
    return any(
        isinstance(n, cst.Call)
        and (
            (isinstance(n.func, cst.Name) and n.func.value == name)
            or any(isinstance(a.value, cst.Name) and a.value.value == name for a in n.args)
        )
        for n in descendants(scope)
    )


def _handed_out(scope: cst.CSTNode | None, name: str) -> bool:
    """Tell whether ``scope`` (a function) returns the function ``name`` it defines, alone
    or among others, or stores it on an object (`self.update = _apply`): each call hands out
    a new function, and each of those compiles on its first call."""
    if type(scope) is not cst.FunctionDef:
        return False
    for ret in return_statements(scope):
        value = ret.value
        parts = [e.value for e in value.elements] if isinstance(value, cst.Tuple) else [value]
        if any(type(v) is cst.Name and v.value == name for v in parts):
            return True
    for n in descendants(scope.body):
        if (
            type(n) is cst.Assign
            and type(n.value) is cst.Name
            and n.value.value == name
            and any(type(t.target) is cst.Attribute for t in n.targets)
        ):
            return True
    return False


def _looped_in(scope: cst.CSTNode, name: str) -> bool:
    """Tell whether ``scope`` calls ``name`` in a loop of its own: a driver (`fit`, `train`)
    that jits once per call and then steps many times pays one compile per run, as it must
    when what it jits is built per call (`svi = SVI(model, ...)`)."""
    return any(
        isinstance(n.func, cst.Name) and n.func.value == name
        for n in nodes_under(scope, _LOOP_BODIES, cst.Call)
        if isinstance(n, cst.Call)
    )


def _called_in_loops(
    module: cst.Module,
    returned: dict[str, list[tuple[str | None, ...]]] | None = None,
    counting: bool = False,
) -> set[str]:
    """Return the names of the functions called in a loop body or a comprehension (in a
    counting loop, with ``counting``); ``returned``: `_returned_functions` of ``module``,
    when known already."""
    if returned is None:
        returned = _returned_functions(module)
    out: set[str] = set()
    named: dict[str, int] = {}
    looped, swept, repeated = _loop_calls(module, True, counting)
    for n in looped:
        if isinstance(n.func, cst.Name):
            named[n.func.value] = named.get(n.func.value, 0) + 1
        elif isinstance(n.func, cst.Attribute):
            out.add(n.func.attr.value)
    # A parameter of the same name is another object (a pytest fixture's value, given to
    # the test under the fixture's name): its calls are not calls of the function.
    shadowed: dict[str, int] = {}
    aliases: dict[str, set[str]] = {}
    bodies: dict[str, list[cst.FunctionDef]] = {}
    handed: set[str] = set()
    classes: dict[str, cst.ClassDef] = {}
    methods: set[int] = set()
    # names a loop calls that some assignment binds to a lambda (rare: read them only then)
    lambda_bound = _lambda_names(module) & named.keys() if named else set()
    for fn in descendants(module):
        kind = type(fn)
        if kind is cst.Call:
            for a in cast(cst.Call, fn).args:
                if type(a.value) is cst.Name:
                    handed.add(a.value.value)
            continue
        if kind is cst.Assign:
            _note_alias(cast(cst.Assign, fn), aliases)
            if returned:
                _note_returned_alias(cast(cst.Assign, fn), returned, aliases)
            continue
        if kind is cst.ClassDef:
            cls = cast(cst.ClassDef, fn)
            classes[cls.name.value] = cls
            methods.update(id(m) for m in cls.body.body if type(m) is cst.FunctionDef)
            continue
        if kind is not cst.FunctionDef:
            continue
        assert isinstance(fn, cst.FunctionDef)
        bodies.setdefault(fn.name.value, []).append(fn)
        if any(
            last_name(d.decorator) not in ("staticmethod", "classmethod") for d in fn.decorators
        ):
            handed.add(fn.name.value)  # (a static method is called as it is written)
        params = fn.params
        names = {
            p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)
        }
        # So is a local name bound to a lambda (`f = lambda: method(ts)`, then `f()`).
        if lambda_bound:
            names.update(_lambda_names(fn.body) & lambda_bound)
        for name in names & named.keys():
            shadowed[name] = shadowed.get(name, 0) + sum(
                1
                for n in nodes_under(fn.body, _LOOP_BODIES, cst.Call)
                if isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == name
            )
    out.update(name for name, count in named.items() if shadowed.get(name, 0) < count)
    # A function called only in sweeps over a few constants that choose a structure
    # (strings, flags, sizes) runs once per configuration; floats could be arguments.
    out -= swept - repeated
    out |= _aliased(aliases, out)
    # A class of the module built in a loop runs its constructor each time: what that
    # calls runs repeatedly (`SupportVectorMachine(...)` per class pair, its `__init__`
    # calling `Kernel.build_fast_jit_function(...)`).
    constructors = [
        m
        for name in (named.keys() - (swept - repeated)) & classes.keys()
        for m in classes[name].body.body
        if type(m) is cst.FunctionDef and m.name.value in ("__init__", "__post_init__")
    ]
    return out | _called_by(
        bodies, handed, out, aliases, constructors, frozenset(classes), frozenset(methods)
    )


def _lambda_names(node: cst.CSTNode) -> set[str]:
    """Return the names assignments under ``node`` bind to a lambda."""
    return {
        t.target.value
        for n in descendants(node)
        if type(n) is cst.Assign and type(n.value) is cst.Lambda
        for t in n.targets
        if type(t.target) is cst.Name
    }


def _called_by(
    bodies: dict[str, list[cst.FunctionDef]],
    handed: set[str],
    repeated: set[str],
    aliases: dict[str, set[str]] | None = None,
    constructors: Iterable[cst.FunctionDef] = (),
    classes: frozenset[str] = frozenset(),
    methods: frozenset[int] = frozenset(),
) -> set[str]:
    """Return the functions of the module (``bodies``, by name) that a function in
    ``repeated`` calls by name, and those they call, and so on: a function called from one
    that runs repeatedly runs repeatedly too (`policy_params_fn`, called once per
    evaluation, calls `setup_training_logging`), and the methods a method calls on `self`
    (`act` calling `self.actions(obs)`). Methods called through another object are not
    followed, nor a function in ``handed``, decorated or handed to another call
    (`jax.jit(step)`, `lax.scan(f, ...)`): traced, its body runs once per compile. A call
    on `self` (or a class) is a method's (``methods``: their ids), a call of a bare name
    is not: `self.updater(...)` calls what `__init__` stored under that name, not the
    module's function `updater` that made it."""
    repeated = repeated - handed
    found: set[str] = set()
    pending: list[str | cst.FunctionDef] = [name for name in repeated if name in bodies]
    pending.extend(constructors)
    while pending:
        top = pending.pop()
        for fn in bodies[top] if isinstance(top, str) else [top]:
            params = {p.name.value for p in (*fn.params.posonly_params, *fn.params.params)}
            for n in descendants(fn.body):
                if type(n) is not cst.Call:
                    continue
                func = n.func
                if (
                    type(func) is cst.Attribute
                    and type(func.value) is cst.Name
                    and (func.value.value == "self" or func.value.value in classes)
                ):
                    # `self.actions(obs)`, or `Kernel.build(...)` of a class of the module
                    callee = func.attr.value
                    on_object = True
                elif type(func) is cst.Name:
                    callee = func.value
                    on_object = False
                else:
                    continue
                if callee in params:
                    continue
                # a method of that name called bare, or a function's name called on `self`,
                # is another object; `self._fn(R)`, `self._fn` bound to a function a
                # method returned, is that function
                direct = callee in bodies and any(
                    (id(f) in methods) is on_object for f in bodies[callee]
                )
                for name in ((callee,) if direct else ()) + tuple((aliases or {}).get(callee, ())):
                    if name in bodies and name not in handed and name not in repeated | found:
                        found.add(name)
                        pending.append(name)
    return found


def _note_alias(node: cst.Assign, aliases: dict[str, set[str]]) -> None:
    """Record `sample = implicit` or `sample_fn = partial(sample, steps=20)`."""
    if len(node.targets) != 1 or type(node.targets[0].target) is not cst.Name:
        return
    value = node.value
    if type(value) is cst.Call and value.args and last_name(value.func) == "partial":
        value = value.args[0].value
    if type(value) is cst.Name:
        target = node.targets[0].target
        aliases.setdefault(target.value, set()).add(value.value)


def _aliased(aliases: dict[str, set[str]], called: set[str]) -> set[str]:
    """Return the functions that names in ``called`` are bound to (``aliases``: `sample =
    implicit`, `sample_fn = partial(sample, steps=20)`, through any chain of such
    bindings): calling the name calls the function."""
    found: set[str] = set()
    pending = [name for name in called if name in aliases]
    while pending:
        for original in aliases.get(pending.pop(), ()):
            if original not in found and original not in called:
                found.add(original)
                pending.append(original)
    return found


# Where eager `lax` control flow takes its functions: by position and by keyword.
_LAX_FUNCTIONS: dict[str, frozenset[int | str]] = {
    q: frozenset((*TRANSFORMS[q].fn_positions, *TRANSFORMS[q].fn_keywords)) for q in EAGER_CACHED
}


@dataclass(frozen=True)
class _Eager:
    """The functions this module's top-level code runs outside any trace (ids of their
    definitions), and those it runs repeatedly: called in its loops, or by such a function."""

    called: frozenset[int]
    repeated: frozenset[int]
    # called more than once by the top-level code itself, or by such a function
    twice: frozenset[int] = frozenset()
    # methods the top-level code calls more than once on one object (`game.ai_move()`
    # twice), and what they call: their `self` is the same each time
    on_one_object: frozenset[int] = frozenset()


def _definitions(
    module: cst.Module,
) -> tuple[dict[str, list[cst.FunctionDef]], dict[int, dict[str, list[cst.FunctionDef]]]]:
    """Return the functions defined outside any function (module level, classes, `if`
    blocks), by name, and for each function the functions defined in its body."""
    outer: dict[str, list[cst.FunctionDef]] = {}
    inner: dict[int, dict[str, list[cst.FunctionDef]]] = {}
    pending: list[tuple[cst.CSTNode, cst.FunctionDef | None]] = [(module, None)]
    while pending:
        node, owner = pending.pop()
        for child in statement_children(node):
            if type(child) is cst.FunctionDef:
                table = outer if owner is None else inner.setdefault(id(owner), {})
                table.setdefault(child.name.value, []).append(child)
                pending.append((child, child))
            elif type(child) is not cst.Lambda:
                pending.append((child, owner))
    return outer, inner


def _eager_of(ctx: RuleContext) -> _Eager:
    """Return the module's `_Eager` table, built once per module."""
    table: _Eager = state(ctx, "JIT301.eager", lambda: _eager(ctx))
    return table


def _eager(ctx: RuleContext) -> _Eager:
    """Start from the module's own top-level code (a script, its `__main__` block): a
    library's functions may all run under a user's jit, a script's run as it calls them.
    Only the functions reached from there are read. A name a function calls is looked up
    where Python looks it up: the functions defined in it or in the functions around it,
    then the module's (a function a factory defines and returns is not the caller's
    variable of the same name)."""
    module = ctx.module
    top: set[str] = set()
    looped: set[str] = set()
    twice: set[str] = set()
    method_calls: set[tuple[str, str]] = set()
    on_one: set[str] = set()
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef | cst.ClassDef):
            continue
        # what runs under `with jax.disable_jit():` runs as plain Python: a `lax` loop
        # there is a Python loop, and compiles nothing
        plain = frozenset(
            id(n)
            for n in descendants(stmt)
            if type(n) is cst.With
            and any(
                type(i.item) is cst.Call and ctx.qualname(i.item.func) == "jax.disable_jit"
                for i in n.items
            )
        )
        nodes = list(_pruned(stmt, plain) if plain else descendants(stmt))
        for n in nodes:
            if type(n) is not cst.Call:
                continue
            func = n.func
            if isinstance(func, cst.Name):
                (twice if func.value in top else top).add(func.value)
            elif (
                type(func) is cst.Attribute
                and type(func.value) is cst.Name
                and not ctx.is_imported(func.value.value)  # not `plt.plot()`, a module's
            ):
                # `game.ai_move()` again, `game` bound once: the same object
                pair = (func.value.value, func.attr.value)
                if pair not in method_calls:
                    method_calls.add(pair)
                elif len(module_assignments(ctx).get(pair[0], ())) <= 1:
                    on_one.add(pair[1])
        top.update(_callees(nodes))
        looped.update(_repeated_calls(stmt, swept=twice, pruned=plain))
    outer = {s.name.value for s in module.body if isinstance(s, cst.FunctionDef)}
    for stmt in module.body:
        if isinstance(stmt, cst.ClassDef):
            outer.add(stmt.name.value)  # its constructor, and then its methods
            outer.update(scope_names(stmt.body).defs)
    if not top & outer:
        return _Eager(frozenset(), frozenset())  # a library: its top level calls none of it
    defs, nested = _definitions(module)
    # `jax.jit(step)` in top-level code: `step` runs traced, not eagerly; so does a method
    # jitted through its object (`jax.jit(buffer.insert_internal)`), and a call of the name
    # bound to the result (`insert_internal = jax.jit(...)`) calls the jitted function.
    traced: set[str] = set()
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef | cst.ClassDef):
            continue
        for n in descendants(stmt):
            if (
                isinstance(n, cst.Assign)
                and isinstance(n.value, cst.Call)
                and n.value.args
                and ctx.transform(n.value.func) is not None
            ):
                traced.update(t.target.value for t in n.targets if isinstance(t.target, cst.Name))
            if not isinstance(n, cst.Call) or not n.args or ctx.transform(n.func) is None:
                continue
            given = n.args[0].value
            if isinstance(given, cst.Name):
                traced.add(given.value)
            elif isinstance(given, cst.Attribute):
                traced.add(given.attr.value)
    # `self.update = jax.jit(partial(self.update, ...))` in a method: the object's attribute
    # shadows the method, so `agent.update(...)` calls the jitted function.
    for stmt in module.body:
        if type(stmt) is cst.ClassDef:
            traced.update(
                attr
                for attr, value in self_attribute_stores(stmt)
                if type(value) is cst.Call and ctx.transform(value.func) is not None
            )

    Scopes = tuple[cst.FunctionDef, ...]

    def lookup(name: str, scopes: Scopes) -> tuple[list[cst.FunctionDef], Scopes]:
        for k in range(len(scopes) - 1, -1, -1):
            found = nested.get(id(scopes[k]), {}).get(name)
            if found:
                return found, scopes[: k + 1]
        return defs.get(name, []), ()

    def reached(start: set[str]) -> tuple[frozenset[int], set[str]]:
        found: set[int] = set()
        loops: set[str] = set()
        pending: list[tuple[str, Scopes]] = [(name, ()) for name in start]
        while pending:
            name, scopes = pending.pop()
            if name in traced:
                continue
            fns, where = lookup(name, scopes)
            for fn in fns:
                if id(fn) in found or any(
                    ctx.transform(d.decorator) is not None for d in fn.decorators
                ):
                    continue  # seen, or jitted (or vmapped...) where it is defined
                found.add(id(fn))
                inside = (*where, fn)
                # `outer_loss = jit(self.batch_outer_loss)`, then `outer_loss(...)`: a
                # variable of the function, not the method of that name
                own = scope_names(fn.body)
                plain = frozenset(own.locals - own.defs.keys())
                # not what a function it defines under `@jax.jit` calls: that runs traced
                jitted = frozenset(
                    id(n)
                    for n in descendants(fn.body)
                    if type(n) is cst.FunctionDef
                    and any(ctx.transform(d.decorator) is not None for d in n.decorators)
                )
                eager_nodes = _pruned(fn.body, jitted) if jitted else descendants(fn.body)
                pending.extend((callee, inside) for callee in _callees(eager_nodes, plain))
                loops.update(_repeated_calls(fn.body, plain, pruned=jitted))
        return frozenset(found), loops

    called, loops_in_called = reached(top)
    repeated, _ = reached(looped | loops_in_called | _handed_to_loops(module, defs))
    again, _ = reached(twice)  # and what they call: it runs once per call of theirs
    same_self, _ = reached(on_one - twice)
    return _Eager(called, repeated, again, same_self)


def _handed_to_loops(module: cst.Module, defs: dict[str, list[cst.FunctionDef]]) -> set[str]:
    """Return the functions the module's top-level code hands to a module function that
    calls that parameter in a loop of its own (`benchmark(train_step_jit, num_steps=4)`,
    with `for _ in range(num_steps): ... = train_step_fn(...)`): they run repeatedly."""
    out: set[str] = set()
    looped_params: dict[int, tuple[list[str], set[str]]] = {}  # per function, read once
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef | cst.ClassDef):
            continue
        for n in descendants(stmt):
            if type(n) is not cst.Call or type(n.func) is not cst.Name:
                continue
            if not any(type(a.value) is cst.Name for a in n.args):
                continue
            for fn in defs.get(n.func.value, []):
                if id(fn) not in looped_params:
                    names = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
                    looped_params[id(fn)] = (names, _repeated_calls(fn.body) & set(names))
                params, looped = looped_params[id(fn)]
                for param, value in passed_to(params, n) or ():
                    if param in looped and type(value) is cst.Name:
                        out.add(value.value)
    return out


def _pruned(node: cst.CSTNode, pruned: frozenset[int]) -> Iterator[cst.CSTNode]:
    """Yield the nodes under ``node``, not entering those whose ids ``pruned`` holds."""
    stack = list(child_nodes(node))
    while stack:
        current = stack.pop()
        if id(current) in pruned:
            continue
        yield current
        stack.extend(child_nodes(current))


def _repeated_calls(
    node: cst.CSTNode,
    variables: frozenset[str] = frozenset(),
    swept: set[str] | None = None,
    pruned: frozenset[int] = frozenset(),
) -> set[str]:
    """Return the simple names called in a loop body or a comprehension's element under
    ``node``, except in a loop over a short display of constants (`for solver in ["full",
    "randomized"]:`): a sweep runs each configuration once, not the same work again; those
    it calls go to ``swept``, when given (called once per configuration, like a script's
    repeated call). ``variables``: names a bare call of which calls a variable, not a
    function of the module."""
    out: set[str] = set()
    stack: list[tuple[cst.CSTNode, bool, bool]] = [(node, False, False)]
    while stack:
        current, inside, in_sweep = stack.pop()
        if id(current) in pruned:
            continue
        kind = type(current)
        if kind is cst.Call:
            if inside:
                out |= _callees([current], variables)
            elif in_sweep and swept is not None:
                swept |= _callees([current], variables)
        field = None if inside else _LOOP_BODIES.get(kind)
        if field is not None:
            body = getattr(current, field)
            if constant_sweep(current):
                stack.extend((c, False, in_sweep or c is body) for c in child_nodes(current))
            else:
                stack.extend((c, c is body, in_sweep) for c in child_nodes(current))
        else:
            stack.extend((c, inside, in_sweep) for c in child_nodes(current))
    return out


def _callees(nodes: Iterable[cst.CSTNode], variables: frozenset[str] = frozenset()) -> set[str]:
    """Return the simple names the calls among ``nodes`` call (`f(x)`, `obj.f(x)`), but a
    bare call of one of ``variables``."""
    out: set[str] = set()
    for n in nodes:
        if type(n) is cst.Call:
            func = n.func
            if isinstance(func, cst.Name):
                if func.value not in variables:
                    out.add(func.value)
            elif isinstance(func, cst.Attribute):
                out.add(func.attr.value)
    return out


# Methods of a jitted function that trace it as calling it would (`jax.jit(f).lower(x)`).
_STAGING_METHODS = frozenset({"lower", "trace", "eval_shape"})

# The field of each loop that runs repeatedly: a loop's body, a comprehension's element.
_LOOP_BODIES: dict[type, str] = {
    cst.For: "body",
    cst.While: "body",
    cst.ListComp: "elt",
    cst.GeneratorExp: "elt",
    cst.SetComp: "elt",
}


def _range_targets(ctx: RuleContext) -> frozenset[str]:
    """Return the names the scope walked binds only as targets of `for ... in range(...)`:
    Python integers, a new one each iteration."""
    found: dict[int, frozenset[str]] = state(ctx, "JIT301.range-targets", dict)
    scope = ctx.scope
    if id(scope) not in found:
        names: set[str] = set()
        for n in _own_statements(scope):
            if (
                type(n) is cst.For
                and isinstance(n.iter, cst.Call)
                and isinstance(n.iter.func, cst.Name)
                and n.iter.func.value == "range"
                and isinstance(n.target, cst.Name)
            ):
                names.add(n.target.value)
        values = assigned_values(ctx)
        found[id(scope)] = frozenset(
            n for n in names if all(_is_none(v) for v in values.get(n, ()))
        )
    return found[id(scope)]


def _own_statements(scope: cst.CSTNode) -> list[cst.CSTNode]:
    """Return the statements of ``scope``, leaving out the functions and classes nested in it."""
    out: list[cst.CSTNode] = []
    stack: list[cst.CSTNode] = [scope]
    while stack:
        node = stack.pop()
        out.append(node)
        if node is scope or not (type(node) is cst.FunctionDef or type(node) is cst.ClassDef):
            stack.extend(statement_children(node))
    return out


def _is_none(value: cst.BaseExpression) -> bool:
    return isinstance(value, cst.Name) and value.value == "None"


def _counts(expr: cst.BaseExpression, counters: frozenset[str]) -> bool:
    """Tell whether ``expr`` is a loop counter, or Python arithmetic on one and numbers."""
    if isinstance(expr, cst.Name):
        return expr.value in counters
    if isinstance(expr, cst.BinaryOperation):
        parts = [expr.left, expr.right]
        return any(_counts(p, counters) for p in parts) and all(
            _counts(p, counters) or isinstance(p, cst.Integer | cst.Float) for p in parts
        )
    return False


def _filter_jitted(func: cst.BaseExpression, ctx: RuleContext) -> bool:
    """Tell whether ``func`` names a function decorated with `eqx.filter_jit`."""
    return jitted_by(func, ctx, "equinox.filter_jit")


def _equal_methods_hit(transform: str) -> bool:
    """Tell whether ``transform``'s cache finds a bound method made again for the same object
    (bound methods compare equal): `jax.pmap` and equinox's filtered transforms do, `jax.jit`
    does not (its entry dies with the method object). Measured on jax 0.10.2: three
    iterations of `f(obj.m)` compile once under `pmap` and `eqx.filter_jit`, three times
    under `jax.jit`."""
    return transform == "jax.pmap" or transform.startswith("equinox.")


def _equinox_cache_hit(transform: str, expr: cst.BaseExpression, ctx: RuleContext) -> bool:
    """Tell whether `eqx.filter_jit` (or `filter_pmap`) given ``expr`` anew on every call
    finds its cache: equinox keys it by the callable's pytree structure and compares its
    static parts by equality, so a callable built alike each time from a bound method or a
    module function (`eqx.filter_vmap(jax.tree_util.Partial(self.sample, kernel))`) is the
    same key (checked: one trace for three calls, where `jax.jit` of it traces three times and
    `eqx.filter_jit` of a closure defined in the call traces three times too)."""
    if not transform.startswith("equinox."):
        return False
    if isinstance(expr, cst.Call):
        q = ctx.qualname(expr.func) or ""
        if not expr.args or expr.args[0].keyword is not None:
            return False
        if q == "jax.tree_util.Partial" or q.startswith("equinox.filter_"):
            return _equinox_cache_hit(transform, expr.args[0].value, ctx)
        return False
    if isinstance(expr, cst.Attribute):
        return isinstance(expr.value, cst.Name) and expr.value.value == "self"
    if isinstance(expr, cst.Name):
        return not ctx.defined_in_loop(expr.value) and _local_def(expr, ctx) is None
    return False
