"""Rule on PRNG keys consumed more than once (JIT502)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from jitlint.analysis.cst_util import NOT_LITERAL, child_nodes, literal, passed_to
from jitlint.analysis.knowledge import words
from jitlint.analysis.scopes import scope_names, target_names
from jitlint.model import Mode
from jitlint.rules.base import Rule, snippet
from jitlint.rules.flow import Flow
from jitlint.rules.helpers import ALL_MODES, arg, state

if TYPE_CHECKING:
    from jitlint.analysis.context import FunctionTarget, RuleContext

# jax.random functions that take a key but do not use up its randomness.
_NOT_CONSUMING = words("""
    PRNGKey key key_data wrap_key_data key_impl fold_in clone default_prng_impl
    """)


def consumer(call: cst.Call, ctx: RuleContext) -> str | None:
    """Return the name of the key ``call`` consumes (a `jax.random` sampler or `split`)."""
    if not _is_sampler(ctx.qualname(call.func)):
        return None
    key = arg(call, 0, "key")
    return None if key is None else key_name(key.value)


def key_name(expr: cst.BaseExpression) -> str | None:
    """Name a key expression we can follow: `key`, `self.key`, or `keys[0]` (a constant
    index)."""
    if isinstance(expr, cst.Name):
        return expr.value
    if _is_self_attribute(expr):
        assert isinstance(expr, cst.Attribute)
        return f"self.{expr.attr.value}"
    if (
        isinstance(expr, cst.Subscript)
        and isinstance(expr.value, cst.Name)
        and len(expr.slice) == 1
        and isinstance(expr.slice[0].slice, cst.Index)
    ):
        index = expr.slice[0].slice.value
        if isinstance(index, cst.UnaryOperation) and isinstance(index.operator, cst.Minus):
            index = index.expression
            sign = "-"
        else:
            sign = ""
        if isinstance(index, cst.Integer):
            return f"{expr.value.value}[{sign}{index.value}]"
    return None


_KEY_MAKERS = frozenset({"jax.random.PRNGKey", "jax.random.key"})


def _is_self(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "self"


def _is_self_attribute(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Attribute) and _is_self(expr.value)


def _may_change_self(call: cst.Call) -> bool:
    """Tell whether ``call`` may rebind attributes of `self`: a method of `self`, or a
    function given `self`."""
    if isinstance(call.func, cst.Attribute) and _is_self(call.func.value):
        return True
    return any(_is_self(a.value) for a in call.args)


def _is_sampler(q: str | None) -> bool:
    return (
        q is not None
        and q.startswith("jax.random.")
        and q.count(".") == 2
        and q.rsplit(".", 1)[-1] not in _NOT_CONSUMING
    )


def helper_consumer(call: cst.Call, ctx: RuleContext) -> str | None:
    """Return the key a same-module helper consumes when ``call`` passes it one.

    A helper consumes a parameter when its body hands that parameter, before rebinding it,
    straight to a `jax.random` sampler or `split`.
    """
    global_keys = _module_keys(ctx)
    if not global_keys and not any(isinstance(a.value, cst.Name) for a in call.args):
        return None  # keys are handed over by name, or read from the module
    # Another module is read only if it can sample at all.
    resolved = ctx.resolve_function(call.func, needle=b"random")
    if resolved is None:
        return None
    fn = resolved.fn
    cache: dict[int, tuple[frozenset[str], frozenset[str]]] = state(ctx, "JIT502.helpers", dict)
    if id(fn) not in cache:
        # A module draws from `jax.random` only through a name its text spells with
        # "random" (`jax.random.normal`, `import jax.random as jr`, `from jax import random`).
        samples = ctx.mentions("random", resolved)
        cache[id(fn)] = _consumed_params(fn, resolved, ctx) if samples else _NOTHING
    consumed, free = cache[id(fn)]
    if resolved.defined_here:
        # `key = jax.random.key(0)` at module level and `def f(): return bits(key)`: every
        # call of f draws from the same global key (jax#20704).
        for free_name in sorted(free & global_keys):
            if ctx.is_module_global(free_name):
                return free_name
    if not consumed:
        return None
    params = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
    for name, given in passed_to(params[1 if resolved.is_method else 0 :], call) or ():
        if name in consumed and isinstance(given, cst.Name):
            return given.value
    return None


_NOTHING: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())


def _module_keys(ctx: RuleContext) -> frozenset[str]:
    """Return the module-level names bound to a new key (`key = jax.random.key(0)`)."""

    def find() -> frozenset[str]:
        found: set[str] = set()
        for line in ctx.module.body:
            if isinstance(line, cst.SimpleStatementLine):
                for small in line.body:
                    if (
                        isinstance(small, cst.Assign)
                        and isinstance(small.value, cst.Call)
                        and ctx.import_qualname(small.value.func) in _KEY_MAKERS
                    ):
                        found.update(n for t in small.targets for n in target_names(t.target))
        return frozenset(found)

    keys: frozenset[str] = state(ctx, "JIT502.module-keys", find)
    return keys


def _consumed_params(
    fn: cst.FunctionDef, target: FunctionTarget, ctx: RuleContext
) -> tuple[frozenset[str], frozenset[str]]:
    """Return the parameters ``fn`` hands to a sampler before rebinding them, and the names
    from outside it that it hands to one (none for a generator function: calling it runs
    none of its body)."""
    params = {p.name.value for p in (*fn.params.posonly_params, *fn.params.params)}
    params |= {p.name.value for p in fn.params.kwonly_params}
    used: set[str] = set()
    bound: set[str] = set()
    # Source order, parents first; a list on the stack is the names an assignment binds,
    # bound once its value has run (`key, sub = split(key)` draws from the caller's key).
    stack: list[cst.CSTNode | list[str]] = [fn.body]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            bound.update(node)
            continue
        kind = type(node)
        if kind is cst.FunctionDef or kind is cst.Lambda:
            continue  # runs when called, not here
        if kind is cst.Yield:
            return frozenset(), frozenset()
        if kind is cst.Call:
            assert isinstance(node, cst.Call)
            # Read through the imports of the helper's own module.
            q = target.import_qualname(node.func) or ctx.import_qualname(node.func)
            key = arg(node, 0, "key") if _is_sampler(q) else None
            if key is not None and isinstance(key.value, cst.Name) and key.value.value not in bound:
                used.add(key.value.value)
        elif kind is cst.Assign:
            assert isinstance(node, cst.Assign)
            stack.append([n for t in node.targets for n in target_names(t.target)])
            stack.append(node.value)
            continue
        elif kind is cst.For:
            assert isinstance(node, cst.For)
            bound.update(target_names(node.target))
        stack.extend(reversed(child_nodes(node)))
    # A lambda binds nothing but its parameters.
    names = scope_names(fn.body if isinstance(fn, cst.FunctionDef) else [], fn.params)
    free = used - names.locals - names.declared_outer
    return frozenset(used & params), frozenset(free)


class _KeyFlow(Flow[dict[str, Any]]):
    """Track which names hold a consumed key, and which call consumed it, on some path.

    ``used:<name>`` is the call that consumed the key the name holds; ``tok:<name>`` says
    which key object it holds, so that consuming ``k`` after ``k = key`` marks ``key`` too.
    """

    def __init__(self, rule: PrngKeyReuse, ctx: RuleContext) -> None:
        super().__init__()
        self.rule = rule
        self.ctx = ctx

    def join(self, a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
        out = dict(b)
        out.update(a)
        for key in a.keys() & b.keys():
            if key.startswith("tok:") and a[key] != b[key]:
                out[key] = f"{a[key]}|{b[key]}"  # one object or the other: alias of neither
        return out

    def on_call(self, node: cst.Call, s: dict[str, Any]) -> None:
        if _may_change_self(node):
            for k in [k for k in s if k.startswith("used:self.")]:
                del s[k]  # `self.key` may hold a new key after `self.refresh()`
        name = consumer(node, self.ctx) or helper_consumer(node, self.ctx)
        if name is None:
            return
        first = s.get("used:" + name)
        if first is not None:
            self.rule.reuse(self.ctx, node, name, first)
        token = s.get("tok:" + name, name)
        aliases = [
            k.removeprefix("tok:") for k, v in s.items() if k.startswith("tok:") and v == token
        ]
        if token.isidentifier() and "tok:" + token not in s:
            aliases.append(token)  # the name that first held this key
        for alias in {name, *aliases}:
            s["used:" + alias] = node

    def on_bind(
        self, name: str, node: cst.CSTNode, value: cst.BaseExpression | None, s: dict[str, Any]
    ) -> None:
        s.pop("used:" + name, None)
        for element in [k for k in s if k.startswith(f"used:{name}[")]:
            del s[element]  # a rebound `keys` holds new keys at every index
        if isinstance(value, cst.Name):
            s["tok:" + name] = s.get("tok:" + value.value, value.value)
            if "used:" + value.value in s:
                s["used:" + name] = s["used:" + value.value]
        else:
            s["tok:" + name] = f"{name}#{id(node)}"  # a new object


class PrngKeyReuse(Rule):
    """
    ## What it does
    Flags the second consumption of the same PRNG key in one function: a `jax.random` sampler
    (`normal`, `uniform`, `bernoulli`, ...) or `jax.random.split` given a key that an earlier
    sampler or `split` already used, on some path, without the name being rebound in between.
    A key used inside a loop without being split again in that loop is reused on the next
    iteration. Passing the key to a function of the same module that hands it straight to a
    sampler (before any rebinding of its parameter: `u = normal(key)` then
    `key, sub = split(key)` inside it still used the caller's key) counts as using it, and so
    does using a plain alias (`k = key`). A key held in `self.key` is followed in a method until
    it is rebound or a method of `self` (or a function given `self`) is called. A key made
    from a constant seed where it is consumed (`normal(PRNGKey(0), shape)`) in a loop of
    traced code, or in a body a `lax` loop calls, gives the same draws on every iteration. An
    element of split keys with a constant index (`keys[0]`) is followed as a key of its own.
    A function of the module that samples from a module-level key (`key = jax.random.key(0)`
    at the top, read and never rebound inside) uses that key on each call: calling it twice
    draws the same numbers. `fold_in(key, i)` derives a new key and does not use `key` up.

    ## Why is this bad?
    JAX's random numbers are a pure function of the key. Two draws from one key are not
    independent: `normal(key, s)` twice gives the same numbers, and `uniform(key)` after
    `normal(key)` is correlated with it. The result looks random but is statistically wrong,
    inside `jax.jit` and outside it.

    ## Example
    ```python
    def init_linear(key, fan_in, fan_out):
        w = jax.random.normal(key, (fan_in, fan_out))
        b = jax.random.normal(key, (fan_out,))
        return w, b
    ```

    ## Use instead
    ```python
    def init_linear(key, fan_in, fan_out):
        w_key, b_key = jax.random.split(key)
        w = jax.random.normal(w_key, (fan_in, fan_out))
        b = jax.random.normal(b_key, (fan_out,))
        return w, b
    ```
    In a loop, split on every iteration: `key, sub = jax.random.split(key)`.

    ## Fix safety
    There is no automatic fix.
    """

    code = "JIT502"
    name = "prng-key-reuse"
    message = (
        "PRNG key `{name}` is consumed {where}; reusing a key gives correlated random numbers: "
        "split it first (`{name}, sub = jax.random.split({name})`) and use `sub`"
    )
    modes = ALL_MODES
    VALID = (
        """
import jax
from jax import random

def init(key, n):
    key, w_key, b_key = random.split(key, 3)
    w = random.normal(w_key, (n, n))
    b = random.normal(b_key, (n,))
    return w, b, key

def layers(key, xs):
    out = []
    for i, x in enumerate(xs):
        k = random.fold_in(key, i)
        out.append(random.bernoulli(k, 0.5, x.shape))
    return out

def loop(key, n):
    total = 0.0
    for _ in range(n):
        key, sub = random.split(key)
        total += random.normal(sub)
    return total

def pick(key, flag):
    if flag:
        return random.normal(key)
    return random.uniform(key)

def make_data(n):
    return random.normal(random.PRNGKey(0), (n, 2))  # once: a fixed dataset
""",
    )
    INVALID = (
        """
import jax

def init_linear(key, fan_in, fan_out):
    w = jax.random.normal(key, (fan_in, fan_out))
    b = jax.random.normal(key, (fan_out,))  # JIT502
    return w, b

def noisy(key, x):
    eps = jax.random.normal(key, x.shape)
    k1, k2 = jax.random.split(key)  # JIT502
    return x + eps, k1, k2
""",
        """
import jax
import jax.numpy as jnp

def paths(key, n):
    out = []
    for _ in range(n):
        out.append(jax.random.normal(key, (10,)))  # JIT502
    return jnp.stack(out)
""",
        """
import jax

def sample(key):
    u = jax.random.uniform(key)
    key, sub = jax.random.split(key)  # JIT502
    return u, jax.random.uniform(sub)

def twice(key):
    first = sample(key)
    key, sub = jax.random.split(key)  # JIT502
    return first, sample(sub)
""",
        """
import jax

class Agent:
    def __init__(self, seed):
        self.key = jax.random.PRNGKey(seed)

    def act(self, obs):
        noise = jax.random.normal(self.key, obs.shape)
        drift = jax.random.normal(self.key, obs.shape)  # JIT502
        return obs + noise + drift
""",
        """
import jax

def body(i, x):
    return x + jax.random.normal(jax.random.PRNGKey(0), x.shape)  # JIT502

@jax.jit
def diffuse(x):
    return jax.lax.fori_loop(0, 3, body, x)
""",
        """
import jax

key = jax.random.key(0)

@jax.jit
def noise():
    return jax.random.normal(key, (3,))

first = noise()
second = noise()  # JIT502
""",
    )

    def visit_Call(self, node: cst.Call, ctx: RuleContext) -> None:
        """Analyse the enclosing scope once, the first time it consumes a key."""
        self._fixed_seed(node, ctx)
        done: set[int] = state(ctx, "JIT502.scopes", set)
        scope = ctx.scope
        if id(scope) in done:
            return  # analysed already: its other calls need no look
        if consumer(node, ctx) is None and helper_consumer(node, ctx) is None:
            return
        done.add(id(scope))
        _KeyFlow(self, ctx).run(scope, {})

    def _fixed_seed(self, node: cst.Call, ctx: RuleContext) -> None:
        """`normal(PRNGKey(0), shape)` in a loop body of traced code: the same key, so the
        same draws, on every iteration. (A Python loop outside a trace that draws fixed
        inputs per configuration, as benchmarks do, means it.)"""
        if ctx.mode is Mode.NONE or not ctx.repeats:
            return
        if not _is_sampler(ctx.qualname(node.func)):
            return
        key = arg(node, 0, "key")
        made = key.value if key is not None else None
        if not isinstance(made, cst.Call) or ctx.qualname(made.func) not in _KEY_MAKERS:
            return
        if not made.args or not all(
            literal(a.value, NOT_LITERAL) is not NOT_LITERAL for a in made.args
        ):
            return
        self.report(
            ctx,
            node,
            f"PRNG key `{snippet(made)}` is made from the same seed each time this runs (a loop "
            "body), so every iteration draws the same numbers; pass a key in and split it "
            "per iteration (`jax.random.fold_in(key, i)`)",
        )

    def reuse(self, ctx: RuleContext, node: cst.Call, name: str, first: cst.Call) -> None:
        """Report ``node`` consuming key ``name`` that ``first`` already consumed."""
        where = (
            "on every iteration of the enclosing loop"
            if first is node
            else f"after `{snippet(first)}` already used it"
        )
        self.report(ctx, node, name=name, where=where)
