"""Rule on arguments read after their buffers were donated to a jitted call (JIT504)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst

from jitlint.analysis import transforms
from jitlint.analysis.cst_util import descendants, literal, passed_to
from jitlint.analysis.scopes import suite_statements
from jitlint.model import Mode
from jitlint.rules.base import Rule, snippet
from jitlint.rules.flow import Flow
from jitlint.rules.helpers import assigned_values, code, state, visible_values

if TYPE_CHECKING:
    from jitlint.analysis.context import RuleContext


@dataclass(frozen=True)
class Donation:
    """Say which parameters of a jitted callable are donated, by position and by name."""

    positions: frozenset[int] = frozenset()
    names: frozenset[str] = frozenset()
    # equinox's `donate=`: the array leaves of the arguments, whatever they are; a value
    # holding no array (an optax transformation, a number) gives nothing up
    leaves: bool = False


# equinox's `filter_jit(donate=...)` modes, and whether they spare the first argument.
_EQUINOX_DONATE = {"all": False, "warn": False, "all-except-first": True, "warn-except-first": True}
# Arguments counted when the function is not known: past any real signature.
_MANY = 64


def _read_donation(call: cst.Call, fn: cst.FunctionDef | None) -> Donation | None:
    """Read `donate_argnums`/`donate_argnames` from a jit call (or `partial(jit, ...)`)."""
    positions: set[int] = set()
    names: set[str] = set()
    leaves = False
    for a in call.args:
        if a.keyword is None:
            continue
        value = literal(a.value)
        items = value if isinstance(value, tuple | list) else (value,)
        if a.keyword.value == "donate" and isinstance(value, str) and value in _EQUINOX_DONATE:
            count = _MANY if fn is None else len((*fn.params.posonly_params, *fn.params.params))
            positions.update(range(int(_EQUINOX_DONATE[value]), count))
            leaves = True
        elif a.keyword.value == "donate_argnums":
            positions.update(i for i in items if isinstance(i, int) and not isinstance(i, bool))
        elif a.keyword.value == "donate_argnames":
            names.update(i for i in items if isinstance(i, str))
    if not positions and not names:
        return None
    if fn is not None:
        params = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
        positions = {p + len(params) if p < 0 else p for p in positions}
        names.update(params[p] for p in positions if 0 <= p < len(params))
        positions.update(i for i, n in enumerate(params) if n in names)
    return Donation(frozenset(positions), frozenset(names), leaves)


def _jit_call(expr: cst.BaseExpression, ctx: RuleContext) -> bool:
    t = ctx.transform_named(ctx.qualname(expr))
    # A stateful transform (flax `nnx.jit`) writes the new state back into the modules it
    # was given: the objects stay readable after a call that donates their arrays.
    return t is not None and t.caches and not t.qualname.startswith("flax.nnx.")


def _from_call(call: cst.Call, ctx: RuleContext) -> Donation | None:
    """Return the donation of ``jax.jit(f, donate_argnums=...)``."""
    if not _jit_call(call.func, ctx) or not call.args or call.args[0].keyword is not None:
        return None
    target = ctx.resolve_function(call.args[0].value)
    return _read_donation(call, None if target is None else target.fn)


def _from_def(fn: cst.FunctionDef, ctx: RuleContext) -> Donation | None:
    """Return the donation a decorator such as `@partial(jax.jit, donate_argnums=0)` makes."""
    for dec in fn.decorators:
        expr = dec.decorator
        if not isinstance(expr, cst.Call):
            continue
        q = ctx.qualname(expr.func)
        if q in transforms.PARTIAL and expr.args and _jit_call(expr.args[0].value, ctx):
            return _read_donation(expr, fn)
        if _jit_call(expr.func, ctx):
            return _read_donation(expr, fn)
    return None


def donation(func: cst.BaseExpression, ctx: RuleContext) -> Donation | None:
    """Return what calling ``func`` donates, if it is a jitted callable with donation."""
    if isinstance(func, cst.Call):
        return _from_call(func, ctx)
    if isinstance(func, cst.Attribute):
        return _method_donation(func, ctx)
    if not isinstance(func, cst.Name):
        return None
    values = assigned_values(ctx).get(func.value)
    if values:
        calls = [v for v in values if isinstance(v, cst.Call)]
        if len(values) == 1 and calls:
            return _from_call(calls[0], ctx)
        if len(values) == 2 and len(calls) == 1 and _rewraps(calls[0], func.value):
            return _from_call(calls[0], ctx)  # `def fn(...)`, then `fn = jax.jit(fn, ...)`
        if len(values) > 1 or calls or not _defined(func.value, ctx):
            return None
        # bound only by its `def` (a module's function, or one in the calling scope): its
        # decorators
    resolved = ctx.resolve_function(func)
    if resolved is not None and isinstance(resolved.fn, cst.FunctionDef):
        decorated = _from_def(resolved.fn, ctx)
        rebound = _module_assignments(ctx).get(func.value)
        if decorated is None and rebound is not None and ctx.is_module_global(func.value):
            return _from_call(rebound, ctx)  # `step = jax.jit(step, donate_argnums=1)`
        return decorated
    if ctx.is_module_global(func.value):
        found = _module_assignments(ctx).get(func.value)
        if found is not None:
            return _from_call(found, ctx)
    return None


def _defined(name: str, ctx: RuleContext) -> bool:
    """Tell whether ``name`` is a function the module, or the scope walked, defines."""
    if ctx.defines_function(name):
        return True
    scope = ctx.scope
    body = scope.body if isinstance(scope, cst.FunctionDef) else None
    return body is not None and any(
        isinstance(s, cst.FunctionDef) and s.name.value == name for s in suite_statements(body)
    )


def _method_donation(func: cst.Attribute, ctx: RuleContext) -> Donation | None:
    """Return what `self.step(...)` donates when the method is jitted with donation."""
    resolved = ctx.resolve_function(func)
    if resolved is None or not resolved.is_method:
        return None
    found = _from_def(resolved.fn, ctx)
    if found is None:
        return None
    # The call binds `self`, so the caller's argument i is the method's parameter i + 1.
    return Donation(frozenset(p - 1 for p in found.positions if p >= 1), found.names, found.leaves)


_DONATE = frozenset({"donate_argnums", "donate_argnames", "donate"})
_METADATA_CALLS = frozenset({"isinstance", "len", "type", "id"})


def _has_donate(call: cst.BaseExpression) -> bool:
    return isinstance(call, cst.Call) and any(
        a.keyword is not None and a.keyword.value in _DONATE for a in call.args
    )


def _holds_no_array(name: cst.Name, ctx: RuleContext) -> bool:
    """Tell whether ``name`` is bound (in the scope walked, else at module level) only to
    values holding no array: a number, a string, a lambda, or an optax transformation
    (`optax.adam(1e-3)`, `optax.chain(...)`), whose state is what `.init` returns."""
    values = visible_values(name.value, ctx)
    if not values:
        return False
    for value in values:
        if type(value) in (cst.Integer, cst.Float, cst.SimpleString, cst.Lambda):
            continue
        if type(value) is cst.Call and (ctx.qualname(value.func) or "").startswith("optax."):
            continue
        return False
    return True


def _callee_name(func: cst.BaseExpression) -> str | None:
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
        return f"{func.value.value}.{func.attr.value}"
    return "" if isinstance(func, cst.Call) else None


def _donors(ctx: RuleContext) -> set[str]:
    """Return the module-level names jitted with donation (a cheap scan of top-level code)."""

    def collect() -> set[str]:
        out: set[str] = set()
        for stmt in ctx.module.body:
            if type(stmt) is cst.FunctionDef:
                if any(_has_donate(d.decorator) for d in stmt.decorators):
                    out.add(stmt.name.value)
            elif type(stmt) is cst.ClassDef:
                out.update(
                    f"self.{m.name.value}"
                    for m in suite_statements(stmt.body)
                    if isinstance(m, cst.FunctionDef)
                    and any(_has_donate(d.decorator) for d in m.decorators)
                )
            elif isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if type(small) is cst.Assign and _has_donate(small.value):
                        out.update(
                            t.target.value for t in small.targets if isinstance(t.target, cst.Name)
                        )
        return out

    return state(ctx, "JIT504.donors", collect)


def _module_assignments(ctx: RuleContext) -> dict[str, cst.Call]:
    def collect() -> dict[str, cst.Call]:
        out: dict[str, cst.Call] = {}
        for stmt in ctx.module.body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if (
                        isinstance(small, cst.Assign)
                        and len(small.targets) == 1
                        and isinstance(small.targets[0].target, cst.Name)
                        and isinstance(small.value, cst.Call)
                        and (
                            ctx.assignment_count(small.targets[0].target.value) == 1
                            or _rewraps(small.value, small.targets[0].target.value)
                        )
                    ):
                        out[small.targets[0].target.value] = small.value
        return out

    return state(ctx, "JIT504.module", collect)


def _rewraps(call: cst.Call, name: str) -> bool:
    """Tell whether ``call`` wraps the function it is bound over: `f = jax.jit(f, ...)`."""
    return (
        bool(call.args)
        and isinstance(call.args[0].value, cst.Name)
        and call.args[0].value.value == name
    )


def _pruned_arguments(call: cst.Call, ctx: RuleContext) -> set[int]:
    """Return the ids of the arguments of a call of a jitted project function that its
    body never reads: jit prunes unused arguments (unless `keep_unused=True`) and does not
    look at their buffers, so a deleted array passed there raises nothing."""
    if ctx.jit_spec(call.func) is None:
        return set()
    fn: cst.FunctionDef | cst.Lambda | None = None
    is_method = False
    target = ctx.resolve_function(call.func)
    if target is not None:
        fn, is_method = target.fn, target.is_method
    elif type(call.func) is cst.Name:
        # `step = jax.jit(_step)` or `jax.jit(lambda p, x: ...)`, bound once
        values = visible_values(call.func.value, ctx) or []
        made = values[0] if len(values) == 1 else None
        if (
            isinstance(made, cst.Call)
            and made.args
            and ctx.transform(made.func) is not None
            and not any(
                a.keyword is not None and a.keyword.value == "keep_unused" for a in made.args
            )
        ):
            inner = made.args[0].value
            found = inner if isinstance(inner, cst.Lambda) else ctx.resolve_function(inner)
            fn = found if isinstance(found, cst.Lambda) else None if found is None else found.fn
    if fn is None:
        return set()
    if isinstance(fn, cst.FunctionDef) and any(
        "keep_unused" in code(d.decorator) for d in fn.decorators
    ):
        return set()
    read = {n.value for n in descendants(fn.body) if type(n) is cst.Name}
    params = fn.params
    positional = [p.name.value for p in (*params.posonly_params, *params.params)]
    named = set(positional[1:] if is_method else positional)
    named |= {p.name.value for p in params.kwonly_params}
    passed = passed_to(positional[1:] if is_method else positional, call) or []
    return {id(value) for name, value in passed if name in named and name not in read}


class _DonationFlow(Flow[dict[str, object]]):
    """Track which names refer to donated buffers; report the first read of each."""

    def __init__(self, rule: DonatedBufferReuse, ctx: RuleContext) -> None:
        super().__init__()
        self.rule = rule
        self.ctx = ctx

    def join(self, a: dict[str, object], b: dict[str, object]) -> dict[str, object]:
        out = dict(b)
        out.update(a)
        return out

    def _token(self, name: str, s: dict[str, object]) -> object:
        return s.get("token:" + name, name)

    def expr(self, e: cst.CSTNode, s: dict[str, object]) -> None:
        """Walk an expression; `isinstance(x, T)`, `len(x)` and `type(x)` read no buffers."""
        if isinstance(e, cst.Call) and self.ctx.qualname(e.func) in _METADATA_CALLS:
            return
        if isinstance(e, cst.Call) and any(isinstance(a.value, cst.Name) for a in e.args):
            pruned = _pruned_arguments(e, self.ctx)
            if pruned:
                self.expr(e.func, s)
                for a in e.args:
                    if id(a.value) not in pruned:
                        self.expr(a.value, s)
                self.on_call(e, s)
                return
        super().expr(e, s)

    def on_name(self, node: cst.Name, s: dict[str, object]) -> None:
        callee = s.pop("donated:" + node.value, None)
        if isinstance(callee, str):
            self.rule.use_after_donation(self.ctx, node, callee)

    def on_call(self, node: cst.Call, s: dict[str, object]) -> None:
        spec = donation(node.func, self.ctx)
        if spec is None:
            return
        callee = (
            code(node.func)
            if isinstance(node.func, cst.Name | cst.Attribute)
            else snippet(node.func)  # `jax.jit(add, donate_argnums=1)`, called at once
        )
        index = 0
        donated: list[str] = []
        for a in node.args:
            if a.star:
                break
            if a.keyword is None:
                hit = index in spec.positions
                index += 1
            else:
                hit = a.keyword.value in spec.names
            if hit and isinstance(a.value, cst.Name):
                if spec.leaves and _holds_no_array(a.value, self.ctx):
                    continue
                donated.append(a.value.value)
        # `f(x, x)` donating the first, or `f(x, batch)` after `batch = x`: the call itself
        # reads the buffer it donates
        passed = [a.value for a in node.args if isinstance(a.value, cst.Name)]
        for name in dict.fromkeys(donated):
            token = self._token(name, s)
            again = [n for n in passed if self._token(n.value, s) == token][1:]
            if again:
                other = again[0].value
                held = f"`{other}`" if other == name else f"`{other}` (the same array as `{name}`)"
                self.rule.report(
                    self.ctx,
                    again[0],
                    f"{held} is passed to `{callee}` in the same call that donates `{name}`; "
                    'XLA refuses a donated buffer used twice in one call ("Attempt to use a '
                    'buffer that was previously donated"): pass a copy, or stop donating it',
                )
        for donor in donated:
            token = self._token(donor, s)
            for key in [k for k in s if k.startswith("token:")] + ["token:" + donor]:
                name = key.removeprefix("token:")
                if self._token(name, s) == token:
                    s["donated:" + name] = callee

    def on_bind(
        self, name: str, node: cst.CSTNode, value: cst.BaseExpression | None, s: dict[str, object]
    ) -> None:
        s.pop("donated:" + name, None)
        if isinstance(value, cst.Name):
            s["token:" + name] = self._token(value.value, s)  # an alias of the same object
        else:
            s["token:" + name] = object()  # a new object: aliases of nothing


class DonatedBufferReuse(Rule):
    """
    ## What it does
    Flags a read of a variable after it was passed, as a donated argument, to a function
    jitted with `donate_argnums`/`donate_argnames` (`@partial(jax.jit, donate_argnums=0)` on
    a function or a method called as `self.step(...)`, or `step = jax.jit(f,
    donate_argnums=0)`, or equinox's `eqx.filter_jit(donate="all")`, which donates the
    array leaves of every argument, or of all but the first with `"all-except-first"`: a
    value holding no array, an optax transformation or a number, gives nothing up), when
    the variable was not rebound in between. A donating call inside a jitted function is
    traced into the caller's program, and donates nothing.
    Names that alias the donated value (`prev = state` before the call) count too, and so
    does an alias passed in the same call (`batch = x`, then `update(x, batch)`). flax's
    `nnx.jit(donate_argnums=...)` writes the new state back into the modules it was given,
    which stay readable, and is not followed.

    ## Why is this bad?
    Donation lets XLA reuse the argument's memory for the result; after the call the donated
    arrays are deleted. Reading them raises `RuntimeError: Array has been deleted` (checked
    on jax 0.10.2 CPU; where a backend cannot reuse a buffer, JAX warns "Some donated buffers
    were not usable" and keeps it, so code that passes there can still fail elsewhere).
    `state = step(state)` is the intended pattern and is fine.

    ## Example
    ```python
    step = jax.jit(_step, donate_argnums=0)

    def run(state, batch):
        new_state = step(state, batch)
        print(state.sum())
        return new_state
    ```

    ## Use instead
    ```python
    def run(state, batch):
        print(state.sum())
        state = step(state, batch)
        return state
    ```
    Or copy what you need before the call, or stop donating that argument.

    ## Fix safety
    There is no automatic fix.
    """

    code = "JIT504"
    name = "donated-buffer-reuse"
    message = (
        "`{name}` was donated to `{callee}` and its buffers are deleted after the call; reading "
        "it raises `RuntimeError: Array has been deleted`: rebind it (`{name} = "
        "{callee}(...)`), read it before the call, "
        "or stop donating it"
    )
    # Inside a jitted function a donating call is traced into the caller's program: its
    # arguments are tracers, and nothing is donated (eager `grad` and `vmap` still donate).
    modes = frozenset({Mode.NONE, Mode.GRAD, Mode.TRACE})
    VALID = (
        """
from functools import partial
import jax

@partial(jax.jit, donate_argnums=0)
def update(params, grads):
    return params - 0.1 * grads

def train(params, grads_seq):
    for grads in grads_seq:
        params = update(params, grads)
    return params
""",
        """
import jax

def _step(state, batch):
    return state + batch

step = jax.jit(_step, donate_argnames=("state",))

def run(state, batch):
    print(state.shape)
    state = step(state, batch)
    return state, batch.sum()
""",
        """
from functools import partial
import equinox as eqx
import jax
import optax

@partial(jax.jit, donate_argnums=0)
def scale(x):
    return 2.0 * x

@eqx.filter_jit(donate="all")
def step(params, opt_state, grads, optim):
    updates, opt_state = optim.update(grads, opt_state)
    twice = scale(params)  # traced: nothing is donated inside a jitted function
    return optax.apply_updates(params, updates), opt_state, params + twice

def train(params, grads_seq):
    optim = optax.sgd(0.1)
    opt_state = optim.init(params)
    for grads in grads_seq:
        params, opt_state, _ = step(params, opt_state, grads, optim)
    return params
""",
    )
    INVALID = (
        """
import jax

def _step(state, batch):
    return state + batch

step = jax.jit(_step, donate_argnums=0)

def run(state, batch):
    new = step(state, batch)
    print(state.sum())  # JIT504
    return new
""",
        """
from functools import partial
import jax

@partial(jax.jit, donate_argnums=(0,))
def train_step(state, batch):
    return state * batch

def fit(state, batches):
    for batch in batches:
        prev = state
        state = train_step(state, batch)
        print(state - prev)  # JIT504
    return state
""",
        """
import jax

def step(x, y):
    return x + y

step = jax.jit(step, donate_argnums=1)

def run(x, y):
    out = step(x, y)
    return out + y  # JIT504
""",
        """
from functools import partial
import jax

@partial(jax.jit, donate_argnums=0)
def update(x, batch):
    return x + batch

def train(x, steps):
    for _ in range(steps):
        batch = x
        x = update(x, batch)  # JIT504
    return x
""",
        """
import equinox as eqx
import jax

@eqx.filter_jit(donate="all")
def make_step(model, disc, x):
    return jax.tree_util.tree_map(lambda w: w - 0.1 * x, model), disc

def train(model, disc, xs):
    for x in xs:
        model, new_disc = make_step(model, disc, x)  # JIT504
    return model, new_disc
""",
    )

    def visit_Call(self, node: cst.Call, ctx: RuleContext) -> None:
        """Analyse the enclosing scope once, the first time it calls a donating function."""
        seen = _donors(ctx)
        if _has_donate(node) or (type(node.func) is cst.Call and _has_donate(node.func)):
            # a jit with donation inside a function, or called at once
            # (`jax.jit(add, donate_argnums=1)(x, y)`): check every call from now
            seen.add("")
        if not seen or not ("" in seen or _callee_name(node.func) in seen):
            return
        if donation(node.func, ctx) is None:
            return
        done: set[int] = state(ctx, "JIT504.scopes", set)
        scope = ctx.scope
        if id(scope) in done:
            return
        done.add(id(scope))
        _DonationFlow(self, ctx).run(scope, {})

    def use_after_donation(self, ctx: RuleContext, node: cst.Name, callee: str) -> None:
        """Report a read of ``node`` after its buffers were donated to ``callee``."""
        self.report(ctx, node, name=node.value, callee=callee)
