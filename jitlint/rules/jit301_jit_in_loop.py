"""Rules on code that makes jit recompile or fail on its cache key (JIT30x)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from jitlint.fixes.builders import hashable_literal
from jitlint.model import Applicability, Mode
from jitlint.rules.base import Rule

if TYPE_CHECKING:
    from jitlint.analysis.analyzer import Analysis

_ALL_MODES = frozenset(Mode)
_ARRAY_FACTORIES = frozenset(
    f"{mod}.{fn}"
    for mod in ("numpy", "jax.numpy")
    for fn in [
        "array",
        "asarray",
        "zeros",
        "ones",
        "empty",
        "full",
        "arange",
        "linspace",
        "eye",
        "zeros_like",
        "ones_like",
    ]
)
_UNHASHABLE_CALLS = frozenset({"list", "dict", "set", "bytearray"}) | _ARRAY_FACTORIES


class JitInLoop(Rule):
    """
    ## What it does
    Flags `jax.jit` (or `pmap`, `eqx.filter_jit`, ...) applied inside a loop to a `lambda`, a
    `functools.partial(...)` or a function defined in that loop.

    ## Why is this bad?
    JAX caches compiled code by the identity of the function. A lambda, a new `partial`
    object or a function defined in the loop body is a new object every iteration, so every
    iteration misses the cache and compiles again: the loop runs at compile speed. Jitting a
    function defined once outside the loop (`jax.jit(step)(x)`) is fine: it hits the cache.

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
        "`jax.jit` of a new function inside a loop recompiles every iteration; jit once before "
        "the loop and pass changing values as arguments"
    )
    modes = _ALL_MODES
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
    )

    def _fresh(self, expr: cst.BaseExpression, ctx: Analysis) -> str | None:
        if isinstance(expr, cst.Lambda):
            return "a lambda"
        if isinstance(expr, cst.Call):
            q = ctx.qualname(expr.func)
            if q == "functools.partial":
                return "a `partial(...)`"
            inner = ctx.transform(expr.func)
            if inner is not None and expr.args:
                return self._fresh(expr.args[0].value, ctx)
            return None
        if isinstance(expr, cst.Name) and any(expr.value in defs for defs in ctx.loops):
            return f"`{expr.value}`, defined in the loop,"
        return None

    def _report(self, ctx: Analysis, node: cst.CSTNode, what: str) -> None:
        self.report(
            ctx,
            node,
            f"jit of {what} inside a loop creates a new function every iteration, so JAX "
            "recompiles each time; jit it once before the loop and pass changing values as "
            "arguments",
        )

    def visit_Call(self, node: cst.Call, ctx: Analysis) -> None:
        """Check a jit call inside a loop."""
        if not ctx.loops or not node.args or node.args[0].keyword is not None:
            return
        t = ctx.transform(node.func)
        if t is None or not t.caches or isinstance(node.func, cst.Call):
            return
        what = self._fresh(node.args[0].value, ctx)
        if what is not None:
            self._report(ctx, node, what)

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx: Analysis) -> None:
        """Check a jit-decorated function defined inside a loop."""
        if not ctx.loops:
            return
        for dec in node.decorators:
            t = ctx.transform(dec.decorator)
            if t is not None and t.caches:
                self._report(ctx, dec, f"`{node.name.value}`, defined in the loop,")
                return


class UnhashableStaticArg(Rule):
    """
    ## What it does
    Flags a call to a jitted function that passes a list, dict, set or array literal (or a
    name bound to one) in a position marked static with `static_argnums`/`static_argnames`.

    ## Why is this bad?
    Static arguments are part of jit's cache key, so they must be hashable. A list, dict, set
    or array raises `ValueError: Non-hashable static arguments are not supported` at the call.

    ## Example
    ```python
    @partial(jax.jit, static_argnames="dims")
    def f(x, dims):
        return x.transpose(dims)


    f(x, dims=[1, 0])
    ```

    ## Use instead
    ```python
    f(x, dims=(1, 0))
    ```

    ## Fix safety
    A list literal of constants becomes a tuple (`[1, 0]` -> `(1, 0)`) and a set literal a
    `frozenset`. The fix is safe: the original call always raises, and the callee reads a
    tuple like a list. Dicts (no hashable standard counterpart that keeps `cfg[key]` working),
    names bound to containers, and literals holding lists get no fix.
    """

    code = "JIT302"
    name = "unhashable-static-arg"
    fix_applicability = Applicability.SAFE
    message = "static argument must be hashable; pass a tuple instead of a list/dict/set/array"
    modes = _ALL_MODES
    VALID = (
        """
from functools import partial
import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames="dims")
def f(x, dims):
    return jnp.transpose(jnp.asarray(x), dims)


y = f(jnp.ones((2, 3)), dims=(1, 0))
z = f([1.0, 2.0], dims=(0,))
""",
    )
    INVALID = (
        """
from functools import partial
import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames="dims")
def f(x, dims):
    return x.transpose(dims)


y = f(jnp.ones((2, 3)), dims=[1, 0])  # JIT302
""",
        """
import jax


def g(x, cfg):
    return x * cfg["scale"]


g_fast = jax.jit(g, static_argnums=1)


def run(x):
    cfg = {"scale": 2.0}
    return g_fast(x, cfg)  # JIT302
""",
    )

    def _kind(self, expr: cst.BaseExpression, ctx: Analysis) -> str | None:
        if isinstance(expr, cst.List | cst.ListComp):
            return "list"
        if isinstance(expr, cst.Dict | cst.DictComp):
            return "dict"
        if isinstance(expr, cst.Set | cst.SetComp):
            return "set"
        if isinstance(expr, cst.Call):
            q = ctx.qualname(expr.func)
            if q in _UNHASHABLE_CALLS:
                return "array" if q in _ARRAY_FACTORIES else q
        if isinstance(expr, cst.Name):
            for frame in reversed(ctx.stack):
                if expr.value in frame.unhashable:
                    return "list/dict/set"
                if expr.value in frame.env or expr.value in frame.locals:
                    return None
        return None

    def visit_Call(self, node: cst.Call, ctx: Analysis) -> None:
        """Check the static arguments of a call to a jitted function."""
        spec = ctx.jit_spec(node.func)
        if spec is None:
            return
        positions, names = spec
        index = 0
        for arg in node.args:
            if arg.star:
                return  # positions after *args are unknown
            if arg.keyword is None:
                hit = index in positions
                index += 1
            else:
                hit = arg.keyword.value in names
            kind = self._kind(arg.value, ctx) if hit else None
            if kind is not None:
                self.report(
                    ctx,
                    arg.value,
                    f"static argument receives a {kind}, which is not hashable, so the call "
                    "raises; pass a tuple (or another hashable value) instead",
                    hashable_literal(arg.value),
                )
