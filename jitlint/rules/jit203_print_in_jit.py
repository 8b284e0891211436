"""The JIT203 rule (print-in-jit): `print`/logging in traced code."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import libcst as cst

from jitlint.analysis.cst_util import variable_names
from jitlint.analysis.knowledge import words
from jitlint.fixes.builders import debug_print
from jitlint.model import Applicability, Taint
from jitlint.rules.base import Rule

if TYPE_CHECKING:
    from jitlint.analysis.context import RuleContext


_LOG_METHODS = words("debug info warning warn error exception critical fatal log")


# Words that show a message is about tracing itself, so meant to appear at trace time.
_TRACE_TIME = re.compile(r"\b(jit\w*|trac(e|ed|es|ing)|retrac\w*|compil\w*)\b", re.IGNORECASE)


def _about_tracing(node: cst.Call, ctx: RuleContext) -> bool:
    """Tell whether a log call logs Python values only, with a message about tracing or
    compiling (`logging.warning("op cannot support jax.jit mode")`)."""
    if not all(ctx.taint(a.value) is Taint.STATIC for a in node.args):
        return False
    texts: list[object] = []
    for a in node.args:
        pending: list[cst.BaseExpression] = [a.value]
        while pending:  # each literal of `'... inside of' 'JIT. ...'` too: its own words
            part = pending.pop()
            if isinstance(part, cst.ConcatenatedString):
                texts.append(part.evaluated_value)
                pending.extend((part.left, part.right))
            elif isinstance(part, cst.SimpleString):
                texts.append(part.evaluated_value)
    return any(isinstance(t, str) and _TRACE_TIME.search(t) for t in texts)


def _bare_message(node: cst.Call) -> bool:
    """Tell whether a print shows only text written in the call (`print("starting")`), no
    value: not a shape or a setting deliberately shown once per trace."""
    positional = [a.value for a in node.args if a.keyword is None]
    return bool(positional) and all(
        isinstance(v, cst.SimpleString | cst.ConcatenatedString)
        or (  # `f"I have received the value"`: an f-string with nothing to format
            isinstance(v, cst.FormattedString) and _bare_text(v)
        )
        for v in positional
    )


def _reads_own_state(node: cst.Call, ctx: RuleContext) -> bool:
    """Tell whether a print shows a name the function declares `global` or `nonlocal`
    (`print("Called {} times".format(counter))` after `counter += 1`): state it keeps
    across calls, which the author expects to see change on every call."""
    return any(
        ctx.declares_outer(name.value) for a in node.args for name in variable_names(a.value)
    )


def _bare_text(string: cst.FormattedString) -> bool:
    """Tell whether an f-string has nothing to format."""
    return all(isinstance(p, cst.FormattedStringText) for p in string.parts)


def _formats_static_values(node: cst.Call, ctx: RuleContext) -> bool:
    """Tell whether a log call formats Python values into its message (`"%d microbatches",
    accum_steps`): a configuration or a shape, fixed for the compilation. A bare message
    (`"updated params"`) marks an event the caller expects on every call."""
    positional = [a for a in node.args if a.keyword is None and not a.star]
    if len(positional) == 1:
        # `logger.info("norm shape: {}".format(g.shape))`, `f"shape {x.shape}"`, `"%d" % n`:
        # the message formats the values itself
        message = positional[0].value
        formats = (
            (type(message) is cst.FormattedString and not _bare_text(message))
            or (type(message) is cst.BinaryOperation and type(message.operator) is cst.Modulo)
            or (
                type(message) is cst.Call
                and type(message.func) is cst.Attribute
                and message.func.attr.value == "format"
            )
        )
        return formats and all(ctx.taint(a.value) is Taint.STATIC for a in node.args)
    return len(positional) >= 2 and all(ctx.taint(a.value) is Taint.STATIC for a in node.args)


# Functions that print their arguments as `print` does (`from rich import print`).
_PRINTS = frozenset({"print", "rich.print", "pprint.pprint", "pprint.pp", "rich.pretty.pprint"})


class PrintInJit(Rule):
    """
    ## What it does
    Flags `print(...)` (and what prints the same way: `rich.print`, `pprint.pprint`) and
    logging calls (`logging.info`, `logger.debug`, ...) in traced code, including a flax
    module's method that a jitted function runs through `model.apply(variables, x,
    method=model.generate)`.

    ## Why is this bad?
    A jitted function's Python body runs only while JAX traces it. `print` therefore runs once
    per compilation, not once per call, and shows tracers such as
    `Traced<ShapedArray(float32[3])>` instead of values. Code that relies on it for debugging
    or monitoring silently sees nothing on later calls. A print that shows Python values
    (`print("tracing g for shape", x.shape)`) or whose text speaks of tracing, jit or
    compiling is a deliberate trace-time message and is not reported, except in a branch of
    `lax.cond`/`lax.switch`, where it prints for every branch whichever one is selected. A
    print of bare text (`print("Executing function")`) marks an event its author expects on
    every call, and is reported (not in a branch of an `if` on a traced value: JAX raises at
    the test, before it runs). A log of Python values whose message speaks of tracing, jit
    or compiling (`logger.warning("nonzero cannot support jax.jit mode")`), or that formats
    Python values into its message (`logging.info("%d microbatches", accum_steps)`,
    `logger.info("shape: {}".format(g.shape))`, an f-string of static values), is not
    reported either: what is fixed for a compilation is rightly logged once per trace. A
    bare message (`logging.debug("updated params")`) is reported, as a bare print is, and so
    is a print or log of a name the function declares `global` or `nonlocal`
    (`print("Called {} times".format(counter))` after `counter += 1`): a count it keeps
    across calls, shown once per trace.

    ## Example
    ```python
    @jax.jit
    def f(x):
        print("x =", x)
        return x * 2
    ```

    ## Use instead
    ```python
    @jax.jit
    def f(x):
        jax.debug.print("x = {x}", x=x)
        return x * 2
    ```

    ## Fix safety
    The fix rewrites `print(a, b)` into `jax.debug.print("{} {}", a, b)`, turning literal
    strings and f-strings into the format string (`print(f"x={x:.3f}")` becomes
    `jax.debug.print("x={:.3f}", x)`), and adds `import jax` if needed. It is unsafe: the
    output then appears on every call instead of once per trace, may be reordered (use
    `ordered=True` to keep order), and `jax.debug.print` formats arrays, not tracers. There is
    no fix for `print(..., file=...)`, `end=` other than a newline, `*args`, or logging calls.
    """

    code = "JIT203"
    name = "print-in-jit"
    fix_applicability = Applicability.UNSAFE
    message = (
        "`print` in traced code runs once at trace time and shows tracers; use "
        '`jax.debug.print("{{x}}", x=x)`'
    )
    VALID = (
        """
import jax


@jax.jit
def f(x):
    jax.debug.print("x = {x}", x=x)
    return x * 2


def report(x):
    print("result", f(x))


@jax.jit
def g(x):
    print("tracing g for shape", x.shape)
    return x + 1
""",
        """
import logging

import jax
import jax.numpy as jnp


@jax.jit
def check(x):
    try:
        if jnp.any(x < 0):
            raise ValueError("negative entries")
    except jax.errors.ConcretizationTypeError:
        logging.info("Skipping the check inside of"
                     "JIT: make sure the entries are positive.")
    return x
""",
        """
import logging
from functools import partial

import jax


@partial(jax.jit, static_argnums=1)
def mean_of_chunks(x, chunks):
    logging.info("Using %d chunks of %d rows", chunks, x.shape[0] // chunks)
    return x.reshape(chunks, -1).mean(axis=1)
""",
    )
    INVALID = (
        """
import jax


@jax.jit
def f(x):
    print("Running f():")  # JIT203
    print(f"  x = {x}")  # JIT203
    return x * 2
""",
        """
import logging
import jax

logger = logging.getLogger(__name__)


def step(x):
    logger.info("loss %s", x)  # JIT203
    return x


step_fast = jax.jit(step)
""",
        """
import jax


def low(x):
    print("taking the low branch")  # JIT203
    return x - 1


def high(x):
    return x + 1


def step(i, x):
    return jax.lax.switch(i, [low, high], x)
""",
        """
from pprint import pprint

import flax.linen as nn
import jax
import jax.numpy as jnp

class Model(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(2)(x)

    def generate(self, x, steps: int):
        pprint({"x": x})  # JIT203
        for _ in range(steps):
            x = self(x)
        return x

model = Model()
params = model.init(jax.random.key(0), jnp.ones((1, 2)))

@jax.jit
def generate(params, x):
    return model.apply(params, x, 2, method=model.generate)
""",
    )

    def visit_Call(self, node: cst.Call, ctx: RuleContext) -> None:
        """Check print and logging calls."""
        func = node.func
        q = ctx.qualname(func)
        if q in _PRINTS and not (q == "print" and ctx.defines_function("print")):
            # Printing only Python values ("tracing now", x.shape) is a deliberate
            # trace-time message, not an attempt to see traced values; but in a branch of
            # `lax.cond`/`switch` it prints for every branch, whichever one is selected.
            if all(ctx.taint(a.value) is Taint.STATIC for a in node.args):
                if (
                    (_bare_message(node) or _reads_own_state(node, ctx))
                    and not ctx.after_raise
                    and not _about_tracing(node, ctx)
                ):
                    # `print("Executing function")`: an event the author expects on every
                    # call, as a bare logging message is; it happens once per trace
                    self.report(
                        ctx,
                        node,
                        "`print` in traced code runs once at trace time, not on every call, "
                        'so this message does not mark what it says; use `jax.debug.print("...")`',
                        debug_print(ctx.module, node),
                    )
                    return
                if ctx.in_branch:
                    self.report(
                        ctx,
                        node,
                        "`print` in a `lax.cond`/`lax.switch` branch runs at trace time, when "
                        "every branch is traced, so it prints whichever branch is selected, "
                        'and only once; use `jax.debug.print("...")` to print when it runs',
                        debug_print(ctx.module, node),
                    )
                return
            self.report(
                ctx,
                node,
                "`print` in traced code runs once at trace time and shows tracers, not values; "
                'use `jax.debug.print("x = {x}", x=x)`',
                debug_print(ctx.module, node),
            )
            return
        if not isinstance(func, cst.Attribute) or func.attr.value not in _LOG_METHODS:
            return
        base = func.value
        is_logger = (
            (q or "").startswith(("logging.", "absl.logging."))
            or (isinstance(base, cst.Name) and ctx.is_logger(base.value))
            # logging.getLogger("model").info(...)
            or (
                isinstance(base, cst.Call) and (ctx.qualname(base.func) or "").endswith("getLogger")
            )
        )
        if is_logger and (
            _about_tracing(node, ctx)
            or (_formats_static_values(node, ctx) and not _reads_own_state(node, ctx))
        ):
            # "cannot support jax.jit mode", or `"%d microbatches", accum_steps`: what is
            # fixed per compilation, rightly logged once per trace
            return
        if is_logger:
            self.report(
                ctx,
                node,
                f"logging call `{func.attr.value}` in traced code runs once at trace time and "
                'logs tracers; use `jax.debug.print("x = {x}", x=x)` or `jax.debug.callback`',
            )
