"""The JIT401 rule (concretization): `int/float/bool(x)`, `.item()` on traced values."""

from __future__ import annotations

import re
import string
from typing import TYPE_CHECKING

import libcst as cst

from jitlint.analysis.kinds import Kind
from jitlint.analysis.knowledge import words
from jitlint.model import Mode
from jitlint.rules.base import Rule, snippet
from jitlint.rules.helpers import (
    ALL_MODES,
    positional,
    traced_index,
    transformed_callee,
)

if TYPE_CHECKING:
    from jitlint.analysis.context import RuleContext


_CONVERSIONS = words("int float bool complex operator.index hash")
# Library functions that read one argument's Python values at trace time: (position,
# keyword) of it (checked on jax 0.10.2 with equinox: "filter_spec leaf values cannot be
# traced arrays").
_PYTHON_ARGUMENTS = {
    "equinox.partition": (1, "filter_spec"),
    "equinox.filter": (1, "filter_spec"),
}
# Tracers are unhashable (jax#24722): under jit, grad and vmap alike (checked on jax 0.10.2).
_UNHASHABLE_TRACER = (
    "{what}, and tracers are not hashable: the call raises (TypeError: unhashable type); "
    "hash a Python value, outside the transform"
)
# Builtins that compare their arguments (or the elements of one) with `<`/`>` and branch.
_COMPARING = words("max min sorted")
_TRUTHS = words("all any")
# printf-style conversions: (mapping key, width, precision, conversion).
_PERCENT = re.compile(r"%(\([^)]*\))?[#0 +-]*(\*|\d+)?(?:\.(\*|\d*))?[hlL]?([a-zA-Z%])")
_NUMERIC_CONVERSIONS = frozenset("diouxXeEfFgGc")
_DISPLAYS = (cst.List, cst.Tuple, cst.ListComp, cst.GeneratorExp)
_ITERATED = frozenset({Kind.JAX, Kind.MASK, Kind.SEQUENCE})
_CONVERTING_METHODS = words("item tolist __int__ __float__ __bool__ __index__")
# Under grad alone a value being differentiated still refuses a float: `float(x)`,
# `complex(x)`, `x.tolist()` and `math.*` raise ConcretizationTypeError, while `int(x)`,
# `bool(x)`, `x.item()` and indexing a list with it work (checked on jax 0.10.2).
_REFUSED_UNDER_GRAD = words("float complex tolist __float__ __complex__ hash")


class Concretization(Rule):
    """
    ## What it does
    Flags `int(x)`, `float(x)`, `bool(x)`, `complex(x)`, `x.item()`, `x.tolist()` and `math`
    functions (`math.sqrt(x)`, which convert to `float`; not `math.prod`, which multiplies
    the elements with `*` and gives a tracer) when `x` is a traced value, a Python
    list or tuple indexed by a traced value (`sizes[i]`, which calls `i.__index__()`; a tuple
    given to a function jitted and called on the spot, `jax.jit(get)(pair, i)`, stays a tuple of
    traced leaves), a Python dict looked up with a traced key (`RATES[step]`, which hashes it),
    `hash(x)` (tracers are unhashable, under grad and vmap too), and the builtins `max`, `min`
    and `sorted` given traced values (`max(x, 0.0)`), which compare them and ask for a Python
    bool, and `all` and `any` given a traced array, mask or list (`all(xs > 0)`), which ask
    each element for one (as the test of an `if`, JIT101 reports it); a conversion builtin
    handed to a transform (`jax.jit(bool)(x)`, `jax.vmap(int)(xs)`), anywhere; and a traced
    value formatted as a number (`f"{loss:.4f}"`, `"{:.2f}".format(loss)`, `"%.3f" % loss`),
    which needs its value (`f"{loss}"` and `%s` work: they show the tracer). A traced filter
    spec given to `eqx.partition` or `eqx.filter`, which read its leaves as Python bools, is
    flagged too; under `eqx.filter_jit` a filter spec of bools is static, and not reported.

    ## Why is this bad?
    Under `jax.jit` a traced value is an abstract tracer with a shape and dtype but no value.
    Turning it into a Python number or list needs that value, so tracing fails with
    `ConcretizationTypeError` (or `TracerIntegerConversionError`). Shapes, `len(x)` and static
    arguments are Python values already and are fine.

    Under `jax.grad` alone (no `jit`), the arguments being differentiated (`argnums`) refuse
    `float(x)`, `complex(x)`, `x.tolist()` and `math` functions too, while `int(x)`,
    `bool(x)` and `x.item()` still work there and are not reported; the other arguments stay
    concrete.

    ## Example
    ```python
    @jax.jit
    def metrics(loss):
        return {"loss": float(loss)}
    ```

    ## Use instead
    ```python
    @jax.jit
    def metrics(loss):
        return {"loss": loss}

    print(float(metrics(loss)["loss"]))  # convert outside jit
    ```
    Keep values as arrays inside traced code and convert after the call returns, or mark the
    argument static (`static_argnames`) when it is a Python number that selects the code path.

    ## Fix safety
    There is no automatic fix: where the conversion belongs is a design decision.
    """

    code = "JIT401"
    name = "concretization"
    modes = ALL_MODES  # ordinary code only for `jax.jit(int)(x)`
    message = (
        "converting a traced value to a Python value fails under jit; keep it an array and "
        "convert outside the jitted function, or make the argument static"
    )
    VALID = (
        """
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
    n = int(x.shape[0])
    half = len(x) // 2
    return jnp.sum(x[:half]) / float(n)

def report(x):
    return float(f(x)), f(x).item()

@jax.jit
def pad_to(x, n):
    width = max(x.shape[0], 8)  # shapes are Python ints
    return jnp.zeros(width).at[: x.shape[0]].set(x) * n
""",
        """
import math
from functools import partial
import jax

@partial(jax.jit, static_argnames="scale")
def g(x, scale):
    return x * float(scale) / math.sqrt(x.shape[-1])
""",
        """
import jax

def loss(w, scale):
    steps = int(w)
    return w * w * float(scale) + steps

slope = jax.grad(loss)(3.0, 2.0)
""",
        """
import jax

@jax.jit
def scale_params(kwargs: dict[str, jax.Array]):
    out = {}
    for k in kwargs:  # a dict's keys are Python strings under jit
        out[k] = kwargs[k] * 2.0
    return out
""",
    )
    INVALID = (
        """
import jax
import jax.numpy as jnp

@jax.jit
def metrics(loss, pred, y):
    return {
        "loss": float(loss),  # JIT401
        "err": jnp.abs(pred - y).max().item(),  # JIT401
    }
""",
        """
import jax

def body(i, x):
    return x * int(i)  # JIT401

out = jax.lax.fori_loop(0, 10, body, 1.0)
""",
        """
import jax
import math

@jax.jit
def top(x):
    return x.tolist()  # JIT401

@jax.jit
def scale(x):
    return x / math.sqrt(x.sum())  # JIT401
""",
        """
import jax
import jax.numpy as jnp

WEIGHTS = [0.5, 0.3, 0.2]

@jax.jit
def weight(x, i):
    return x * WEIGHTS[i]  # JIT401
""",
        """
import jax

def magnitude(x):
    return x if float(x) >= 0.0 else -x  # JIT401

slope = jax.grad(magnitude)(3.0)
""",
        """
import jax
import jax.numpy as jnp

RATES = {0: 0.1, 1: 0.01}

@jax.jit
def rate(step):
    return RATES[step // 100]  # JIT401
""",
        """
import jax

@jax.jit
def relu(x):
    return max(x, 0.0)  # JIT401
""",
        """
import jax
import jax.numpy as jnp

@jax.jit
def step(w, x):
    loss = jnp.mean((x @ w) ** 2)
    jax.debug.print("loss {l:.4f}", l=loss)
    label = f"loss {loss:.4f}"  # JIT401
    return loss
""",
        """
import jax
import jax.numpy as jnp

flags = jax.vmap(bool)(jnp.arange(3))  # JIT401
""",
        """
import jax
import jax.numpy as jnp

def get(collection, idx):
    return collection[idx]  # JIT401

pair = (jnp.zeros(2), jnp.ones(2))
jax.jit(get)(pair, jnp.asarray(1))  # a tuple stays a tuple: only its leaves are traced
""",
    )

    def visit_FormattedStringExpression(
        self, node: cst.FormattedStringExpression, ctx: RuleContext
    ) -> None:
        """`f"{loss:.4f}"`: a format spec asks the tracer for its value."""
        if ctx.mode is Mode.NONE:
            return
        if node.format_spec and ctx.is_traced(node.expression):
            self._formatting(ctx, node, node.expression)

    def visit_BinaryOperation(self, node: cst.BinaryOperation, ctx: RuleContext) -> None:
        """`"%.4f" % loss`: a numeric conversion calls `float()` on the tracer."""
        if ctx.mode is Mode.NONE or not isinstance(node.operator, cst.Modulo):
            return
        text = _string_value(node.left)
        if text is None:
            return
        conversions = [c for c in _PERCENT.findall(text) if c[3] != "%"]
        if any(key or width == "*" or prec == "*" for key, width, prec, _ in conversions):
            return  # values from a mapping, or a `*` taking an argument: not followed
        values = (
            [e.value for e in node.right.elements]
            if isinstance(node.right, cst.Tuple)
            else [node.right]
        )
        for (_, _, _, conv), value in zip(conversions, values, strict=False):
            if conv in _NUMERIC_CONVERSIONS and ctx.is_traced(value):
                self._formatting(ctx, node, value)
                return

    def _format_call(self, node: cst.Call, ctx: RuleContext) -> None:
        """`"{:.4f}".format(loss)`: a format spec asks the tracer for its value."""
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value != "format":
            return
        text = _string_value(func.value)
        if text is None:
            return
        try:
            fields = list(string.Formatter().parse(text))
        except ValueError:
            return
        positional_args = [a.value for a in node.args if a.keyword is None and not a.star]
        keywords = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        auto = 0
        for _, name, spec, _ in fields:
            if name is None:
                continue
            head = name.split(".", 1)[0].split("[", 1)[0]
            plain = head == name  # not `{0.real}` / `{0[1]}`: the value itself is formatted
            if head == "":
                head, auto = str(auto), auto + 1
            value = (
                positional_args[int(head)]
                if head.isdigit() and int(head) < len(positional_args)
                else keywords.get(head)
            )
            if spec and plain and value is not None and ctx.is_traced(value):
                self._formatting(ctx, node, value)
                return

    def _formatting(self, ctx: RuleContext, node: cst.CSTNode, value: cst.BaseExpression) -> None:
        shown = snippet(value)
        where = "grad" if ctx.mode is Mode.GRAD else "jit"
        self.report(
            ctx,
            node,
            f"formatting traced `{shown}` as a number needs its value and fails under {where} "
            "(TypeError or ConcretizationTypeError); format it after the jitted call, or "
            f'print it with `jax.debug.print("{{x:.4f}}", x={shown})`',
        )

    def visit_Subscript(self, node: cst.Subscript, ctx: RuleContext) -> None:
        """Check a Python list, tuple or dict indexed by a traced value: `table[i]`."""
        if ctx.mode in (Mode.NONE, Mode.GRAD):
            return
        index = traced_index(node, ctx, Kind.SEQUENCE)
        if index is not None:
            self.report(
                ctx,
                node,
                f"`{snippet(node)}` indexes a Python list or tuple with traced `{snippet(index)}`"
                ", which needs its value (TracerIntegerConversionError under jit); make it an "
                "array first: `jnp.asarray(seq)[i]`, or use `lax.switch` for functions",
            )
            return
        key = traced_index(node, ctx, Kind.MAPPING)
        if key is not None:
            self.report(
                ctx,
                node,
                f"`{snippet(node)}` looks up a Python dict with traced `{snippet(key)}`, which "
                "needs its value (tracers are not hashable: TypeError under jit); use an array "
                "of the values indexed by the key, or `lax.switch`",
            )

    def visit_Call(self, node: cst.Call, ctx: RuleContext) -> None:
        """Check conversions of traced values to Python numbers and lists."""
        if self._jitted_conversion(node, ctx) or ctx.mode is Mode.NONE:
            return
        self._format_call(node, ctx)
        func = node.func
        grad_only = ctx.mode is Mode.GRAD
        if isinstance(func, cst.Attribute) and func.attr.value in _CONVERTING_METHODS:
            refused = not grad_only or func.attr.value in _REFUSED_UNDER_GRAD
            if refused and not node.args and ctx.is_traced(func.value):
                self._report(ctx, node, f"`.{func.attr.value}()`")
            return
        q = ctx.qualname(func)
        if q in _PYTHON_ARGUMENTS:
            self._python_argument(node, q, ctx)
            return
        if q is not None and q.startswith("math.") and q.count(".") == 1:
            # `math.prod` iterates and multiplies with `*`: on a traced array, a tracer
            if q != "math.prod" and any(ctx.is_traced(a.value) for a in node.args):
                name = q.removeprefix("math.")
                self.report(
                    ctx,
                    node,
                    f"`{q}` in `{snippet(node)}` converts a traced value to a Python float and "
                    f"fails under jit (ConcretizationTypeError); use `jnp.{name}` instead",
                )
            return
        if q in _COMPARING and not grad_only and not ctx.defines_function(q):
            self._comparing(node, q, ctx)
            return
        if q in _TRUTHS and not grad_only and not ctx.defines_function(q):
            self._truths(node, q, ctx)
            return
        if q not in _CONVERSIONS or ctx.defines_function(q):
            return
        if grad_only and q not in _REFUSED_UNDER_GRAD:
            return
        args = list(positional(node))
        if len(args) == 1 and len(node.args) == 1 and ctx.is_traced(args[0].value):
            if q == "hash":
                what = f"`{snippet(node)}` hashes a tracer"
                self.report(ctx, node, _UNHASHABLE_TRACER.format(what=what))
                return
            self._report(ctx, node, f"`{q}()`")

    def _jitted_conversion(self, node: cst.Call, ctx: RuleContext) -> bool:
        """`jax.jit(bool)(x)`: the transform hands the builtin a tracer, anywhere."""
        found = transformed_callee(node, ctx)
        if found is None:
            return False
        func, target = found
        if (
            not isinstance(target, cst.Name)
            or target.value not in _CONVERSIONS
            or ctx.defines_function(target.value)
            or ctx.is_imported(target.value)
        ):
            return False
        if target.value == "hash":
            what = f"`{snippet(func)}` hands `hash()` a tracer"
            self.report(ctx, node, _UNHASHABLE_TRACER.format(what=what))
            return True
        self.report(
            ctx,
            node,
            f"`{snippet(func)}` hands `{target.value}()` a tracer, which has no Python value: "
            "the call fails (ConcretizationTypeError); convert outside the transform",
        )
        return True

    def _python_argument(self, node: cst.Call, q: str, ctx: RuleContext) -> None:
        """`eqx.partition(params, filter_spec=mask)`: a library reading an argument's Python
        values at trace time refuses a traced one."""
        if ctx.filters_arrays:
            return  # `eqx.filter_jit` keeps a filter spec's bools and callables static
        position, keyword = _PYTHON_ARGUMENTS[q]
        value = None
        for i, a in enumerate(node.args):
            if a.star:
                return
            if (a.keyword is None and i == position) or (
                a.keyword is not None and a.keyword.value == keyword
            ):
                value = a.value
        if value is not None and ctx.is_traced(value):
            self.report(
                ctx,
                node,
                f"`{snippet(node.func)}` reads `{keyword}` as Python values (bools and "
                f"callables) at trace time, and traced `{snippet(value)}` fails under jit "
                "(ValueError); pass it closed over or as a static argument",
            )

    def _truths(self, node: cst.Call, q: str, ctx: RuleContext) -> None:
        """`all(xs > 0)`, `any([a < b, c])`: Python asks each element for a bool (under grad
        alone the values are concrete, and it works). A pytree dict iterates over its keys,
        so the one argument must evidently be an array, a mask or a list."""
        if len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star:
            return
        if ctx.in_condition(node):
            return  # `if any(flags):` is the branch's test, JIT101's finding
        one = node.args[0].value
        evident = (
            isinstance(one, _DISPLAYS)
            or type(one) is cst.Comparison
            or ctx.kind_of(one) in _ITERATED
        )
        if not evident or not ctx.is_traced(one):
            return
        self.report(
            ctx,
            node,
            f"`{q}()` in `{snippet(node)}` asks each traced element for a Python bool, which "
            f"fails under jit (TracerBoolConversionError); use `jnp.{q}(x)`",
        )

    def _comparing(self, node: cst.Call, q: str, ctx: RuleContext) -> None:
        """`max(x, 0.0)`, `min(xs)`, `sorted(x)`: Python compares traced values and asks
        for a bool (under grad alone the values are concrete, and it works)."""
        if any(a.keyword is not None and a.keyword.value == "key" for a in node.args):
            return  # what the key function returns is not known
        args = [a.value for a in positional(node)]
        if len(args) == 1:
            # One iterable: its elements are compared. A pytree dict of tracers iterates
            # over its keys (`sorted(params)`), so it must evidently be an array or a list.
            one = args[0]
            evident = isinstance(one, _DISPLAYS) or ctx.kind_of(one) in _ITERATED
            if not evident or not ctx.is_traced(one):
                return
        elif not any(ctx.is_traced(a) for a in args):
            return
        instead = "`jnp.sort(x)`" if q == "sorted" else f"`jnp.{q}imum(a, b)` or `jnp.{q}(x)`"
        self.report(
            ctx,
            node,
            f"`{q}()` in `{snippet(node)}` compares traced values and converts the result to a "
            f"Python bool, which fails under jit (TracerBoolConversionError); use {instead}",
        )

    def _report(self, ctx: RuleContext, node: cst.Call, what: str) -> None:
        where = "grad" if ctx.mode is Mode.GRAD else "jit"
        self.report(
            ctx,
            node,
            f"{what} in `{snippet(node)}` needs the value of a traced array and fails under "
            f"{where} (ConcretizationTypeError); keep it an array and convert outside the jitted "
            "function, or make the argument static (`static_argnames`)",
        )


def _string_value(expr: cst.BaseExpression) -> str | None:
    """Return the text of a plain string literal (not an f-string), if ``expr`` is one."""
    if isinstance(expr, cst.SimpleString | cst.ConcatenatedString):
        value = expr.evaluated_value
        return value if isinstance(value, str) else None
    return None
