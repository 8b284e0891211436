"""The JIT404 rule (traced-shape): a traced value used as a shape, length or axis."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from jitlint.analysis.knowledge import words
from jitlint.model import TRACED_MODES
from jitlint.rules.base import Rule, snippet
from jitlint.rules.helpers import (
    ALL_MODES,
    NotesAssignmentTargets,
    arg,
    assigned_values,
    assignment_targets,
    code,
    has_keyword,
    is_at,
)
from jitlint.rules.library_params import Spec, jitted_library, library_spec

if TYPE_CHECKING:
    from jitlint.analysis.context import RuleContext


# Array methods whose every argument is a shape or an axis, and those taking an axis first.
_SHAPE_METHODS = words("reshape transpose squeeze swapaxes")
_AXIS_METHODS = words("sum mean max min prod std var argmax argmin any all cumsum cumprod argsort")


def _may_be_module(expr: cst.BaseExpression, ctx: RuleContext) -> bool:
    """Tell whether a name may hold a module (`xnp = jax.numpy`), not an array."""
    if not isinstance(expr, cst.Name):
        return False
    for value in assigned_values(ctx).get(expr.value, ()):
        head = value
        while isinstance(head, cst.Attribute):
            head = head.value
        if isinstance(head, cst.Name) and ctx.is_imported(head.value) and head is not value:
            return True
        if isinstance(value, cst.Name) and ctx.is_imported(value.value):
            return True
    return False


def _spec(call: cst.Call, ctx: RuleContext) -> Spec | None:
    """Return which arguments of ``call`` must be Python values, if it is a known one."""
    func = call.func
    head = func
    while type(head) is cst.Attribute:
        head = head.value
    q = ctx.qualname(func)
    # A module function: through an import, or a namespace variable (`xp = jnp`).
    if (
        q is not None
        and isinstance(head, cst.Name)
        and (ctx.is_imported(head.value) or q.split(".", 1)[0] != head.value)
    ):
        if q == "jax.numpy.repeat":
            # The output length is data-dependent unless it is given.
            if has_keyword(call, "total_repeat_length"):
                return ((2,), ("axis",))
            return ((1, 2), ("repeats", "axis"))
        unique = arg(call, None, "assume_unique_indices")
        if q == "jax.numpy.delete" and unique is not None and code(unique.value) != "False":
            # the output length is the input's less the indices' count: `obj` may be traced
            return ((2,), ("axis",))
        return library_spec(q)
    if (
        isinstance(func, cst.Attribute)
        and not is_at(func.value)
        and ctx.is_traced(func.value)
        and not _may_be_module(func.value, ctx)
    ):
        if func.attr.value in _SHAPE_METHODS:
            return (tuple(range(len(call.args))), ("shape", "axes", "axis"))
        if func.attr.value in _AXIS_METHODS:
            return ((0,), ("axis",))
    return None


# Functions whose output length defaults to one computed from the data: {function: (the
# data's position and keyword, the length's position and keyword)}. Left out, the length
# is a traced value in staged code (even of a NumPy constant) or of traced data.
_DATA_LENGTHS: dict[str, tuple[tuple[int, str], tuple[int | None, str]]] = {
    **{
        f"jax.ops.segment_{op}": ((1, "segment_ids"), (2, "num_segments"))
        for op in words("sum prod max min")
    },
    "jax.numpy.bincount": ((0, "x"), (None, "length")),
}


class TracedShape(NotesAssignmentTargets, Rule):
    """
    ## What it does
    Flags a traced value used where JAX needs a Python value: a shape (`jnp.zeros(n)`,
    `x.reshape(n, -1)`, `jax.random.normal(key, (n,))`), a length (`jnp.arange(n)`,
    `lax.dynamic_slice` sizes, `jnp.repeat(x, n)` without `total_repeat_length=`,
    `jax.ops.segment_sum(..., num_segments=n)`) or an axis
    (`jnp.sum(x, axis=k)`), and slices with a traced bound (`x[:n]`, `x[i : i + k]`).
    Also a length left for JAX to compute from traced data (`jax.ops.segment_sum` without
    `num_segments=`, `jnp.bincount` without `length=`), and shape, length or axis arguments
    given to a JAX function jitted as it is (`jax.jit(jnp.sum)(x, 0)`, or a `jax.random`
    sampler: `jax.jit(jax.random.normal)(key, (1000,))`): jit traces every argument, Python
    numbers included, unless `static_argnums` names it. And a traced `argnums` of `grad`,
    `value_and_grad`, `jacfwd`, `jacrev` or `hessian` (`jax.vmap(lambda i: jax.grad(f,
    i)(x, y))`): which arguments to differentiate must be a Python int.

    ## Why is this bad?
    Array shapes are fixed when a function is traced; XLA compiles one program per shape.
    A shape, length or axis computed from a traced value is unknown at that point, so tracing
    fails with `TypeError: Shapes must be 1D sequences of concrete values of integer type` or
    a `ConcretizationTypeError`. `x.shape[0]`, `len(x)` and static arguments are fine.

    ## Example
    ```python
    @jax.jit
    def make_buffer(n):
        return jnp.zeros(n)
    ```

    ## Use instead
    ```python
    @partial(jax.jit, static_argnames="n")
    def make_buffer(n):
        return jnp.zeros(n)
    ```
    Or derive the size from an input's shape (`x.shape[0]`), or pad to a fixed maximum size
    and mask.

    ## Fix safety
    There is no automatic fix.
    """

    code = "JIT404"
    name = "traced-shape"
    modes = ALL_MODES
    message = (
        "a traced value used as a shape, length or axis fails under jit; use `x.shape`/`len(x)` "
        "or make the argument static (`static_argnames`)"
    )
    VALID = (
        """
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
    half = x.shape[0] // 2
    y = jnp.zeros((half, x.ndim)) + jnp.arange(len(x))[:half, None]
    return y.reshape(-1), jnp.sum(x, axis=0), jnp.roll(x, x[0].astype(int))
""",
        """
from functools import partial
import jax
import jax.numpy as jnp

@partial(jax.jit, static_argnums=1)
def g(key, n):
    return jax.random.normal(key, (n,)) + jnp.ones(n)

def host(n):
    return jnp.zeros(n)
""",
        """
import flax.struct
import jax
import jax.numpy as jnp

@flax.struct.dataclass
class DecodeState:
    done: jax.Array  # bool [num_steps, batch]

    @property
    def num_steps(self) -> int:
        return self.done.shape[0]  # a Python int, whatever the arrays hold

@jax.jit
def steps_left(state, step):
    return jnp.arange(state.num_steps) >= step

@jax.jit
def mask(state, step):
    return jnp.zeros(state.num_steps).at[step].set(1.0)
""",
    )
    INVALID = (
        """
import jax
import jax.numpy as jnp

@jax.jit
def f(n, x, axis):
    a = jnp.zeros(n)  # JIT404
    b = jnp.ones((n, 3))  # JIT404
    c = x.reshape(n, -1)  # JIT404
    d = jnp.sum(x, axis=axis)  # JIT404
    e = x[:n]  # JIT404
    return a, b, c, d, e, x[n], x[: x.shape[0] // 2]
""",
        """
import jax
from jax import lax

@jax.jit
def window(key, x, i, n):
    noise = jax.random.normal(key, (n,))  # JIT404
    return lax.dynamic_slice(x, (i,), (n,)) + noise  # JIT404
""",
        """
import jax

@jax.jit
def chain_keys(key, n_steps):
    return jax.random.split(key, n_steps)  # JIT404
""",
        """
import jax

jit_rand = jax.jit(jax.random.normal)
values = jit_rand(jax.random.key(0), (1000,))  # JIT404
""",
    )

    def visit_Subscript(self, node: cst.Subscript, ctx: RuleContext) -> None:
        """Check slices with traced bounds: `x[:n]`, `x[i : i + k]`."""
        if ctx.mode not in TRACED_MODES or id(node) in assignment_targets(ctx):
            return
        for element in node.slice:
            s = element.slice
            if isinstance(s, cst.Slice) and any(
                part is not None and ctx.is_traced(part) for part in (s.lower, s.upper, s.step)
            ):
                self.report(
                    ctx,
                    node,
                    f"slice `{snippet(node)}` has a traced bound, so its length is unknown "
                    "under jit (IndexError); use `lax.dynamic_slice(x, (start,), (size,))` "
                    "with a static size, or mask with `jnp.where`",
                )
                return

    def visit_Call(self, node: cst.Call, ctx: RuleContext) -> None:
        """Check shape, length and axis arguments of array functions and methods."""
        jitted = jitted_library(node.func, ctx)
        if jitted is not None:
            self._checkjitted_library(node, *jitted, ctx)
            return
        if ctx.mode not in TRACED_MODES:
            return
        q = ctx.qualname(node.func)
        lengths = _DATA_LENGTHS.get(q or "")
        if lengths is not None:
            (data_pos, data_kw), (length_pos, length_kw) = lengths
            data = arg(node, data_pos, data_kw)
            left_out = arg(node, length_pos, length_kw) is None and data is not None
            if left_out and data is not None and (ctx.staged or ctx.is_traced(data.value)):
                self._report_data_length(ctx, node, length_kw)
                return
        spec = _spec(node, ctx)
        if spec is None or any(a.star for a in node.args):
            return
        positions, keywords = spec
        checked = [arg(node, p) for p in positions] + [arg(node, None, k) for k in keywords]
        for a in checked:
            if a is not None and ctx.is_traced(a.value):
                self.report(
                    ctx,
                    node,
                    f"`{snippet(a.value)}` is traced but used as a shape, length or axis in "
                    f"`{snippet(node)}`; shapes must be Python values under jit: use "
                    "`x.shape`/`len(x)`, or make the argument static (`static_argnames`)",
                )
                return

    def _checkjitted_library(
        self, node: cst.Call, wrapped: str, jit_call: cst.Call, ctx: RuleContext
    ) -> None:
        """`jax.jit(jnp.sum)(x, 0)`: jit traces every argument, the axis and sizes too."""
        if any(a.star for a in node.args):
            return
        static = ctx.jit_spec(jit_call)
        static_pos, static_names = static if static is not None else (frozenset(), frozenset())

        def traced(a: cst.Arg | None, position: int | None) -> bool:
            if a is None:
                return False
            if a.keyword is not None:
                return a.keyword.value not in static_names
            return position not in static_pos

        lengths = _DATA_LENGTHS.get(wrapped)
        if lengths is not None:
            (data_pos, data_kw), (length_pos, length_kw) = lengths
            if arg(node, length_pos, length_kw) is None and traced(
                arg(node, data_pos, data_kw), data_pos
            ):
                self._report_data_length(ctx, node, length_kw)
                return
        spec = library_spec(wrapped)
        if spec is None:
            return
        positions, keywords = spec
        checked = [(arg(node, p), p) for p in positions] + [
            (arg(node, None, k), None) for k in keywords
        ]
        for a, position in checked:
            if a is not None and traced(a, position if a.keyword is None else None):
                self.report(
                    ctx,
                    node,
                    f"`{snippet(a.value)}` is passed to `{snippet(jit_call)}`, which traces every "
                    f"argument, but `{wrapped.rsplit('.', 1)[-1]}` needs it as a shape, length "
                    "or axis; mark it static (`static_argnums`/`static_argnames`) or bind it "
                    "with `functools.partial` before jitting",
                )
                return

    def _report_data_length(self, ctx: RuleContext, node: cst.Call, length: str) -> None:
        self.report(
            ctx,
            node,
            f"`{snippet(node)}` leaves `{length}=` out, so the output length is computed from "
            f"traced data and fails under jit; pass `{length}=` as a Python int",
        )
