"""Rule on Python loops that unroll into huge traced programs (JIT303)."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, cast

import libcst as cst

from jitlint.analysis.cst_util import descendants
from jitlint.analysis.scopes import param_names, suite_statements
from jitlint.rules.base import Rule, snippet
from jitlint.rules.helpers import assigned_values, positional, state

if TYPE_CHECKING:
    from jitlint.analysis.context import RuleContext

_MAX_DEPTH = 8
_MAX_VALUES = 100_000  # values of a loop variable summed over, at most
_BIG = 10**12  # bound constant folding: nobody writes ranges larger than this


class LargeUnrolledLoop(Rule):
    """
    ## What it does
    Flags a Python `for` loop (or comprehension) over `range(...)` with a constant trip count
    of at least 1000 iterations inside traced code, or nested constant loops whose trip counts
    multiply to that many (reported at the loop where the product, counted from the outside,
    reaches it: the loop whose body is copied that many times). Bounds may be
    literals, module constants assigned once (`NUM_STEPS = 10_000`), names the function binds
    once to such a value (`N = num_particles`) and arithmetic on them. A loop whose bounds read
    the variable of a constant loop around it (`for j in range(i, N)` in `for i in range(N)`,
    a pair sum) runs its body the sum of its trips over that variable's values.
    A loop over a parameter's elements (`for e in x`, `range(x.shape[0])`, `range(len(x))`)
    of a module-level function counts as many iterations as the longest leading dimension
    of the arrays the module traces it with, when an array factory makes them with a
    constant shape (`jax.jit(f)(jnp.ones(1000))`, or `f(jnp.ones(1000))` of a decorated `f`).
    A loop whose body only computes on the host (NumPy, `math`, no traced value: filling a
    constant table) records nothing into the program and is not flagged.

    ## Why is this bad?
    JAX traces Python loops by running them: every iteration is recorded, so a loop of
    10,000 steps becomes a program with 10,000 copies of its body. Compilation then takes
    minutes and the compiled program is large, where `lax.fori_loop` or `lax.scan` compile
    the body once. Short loops (a few layers, a handful of steps) unroll fine and are not
    flagged.

    ## Example
    ```python
    NUM_STEPS = 10_000

    @jax.jit
    def simulate(x, v):
        for _ in range(NUM_STEPS):
            v = v - 0.001 * x
            x = x + 0.001 * v
        return x, v
    ```

    ## Use instead
    ```python
    @jax.jit
    def simulate(x, v):
        def body(_, state):
            x, v = state
            v = v - 0.001 * x
            return x + 0.001 * v, v

        return lax.fori_loop(0, NUM_STEPS, body, (x, v))
    ```
    Use `lax.scan` when each step produces an output to keep.

    ## Fix safety
    There is no automatic fix.
    """

    code = "JIT303"
    name = "large-unrolled-loop"
    message = (
        "{loop} at trace time, unrolling the loop body into the compiled program that many "
        "times; use `lax.fori_loop` or `lax.scan`"
    )
    # Trip count from which a loop is reported.
    threshold: ClassVar[int] = 1000
    VALID = (
        """
import jax
import jax.numpy as jnp
from jax import lax

NUM_LAYERS = 6

@jax.jit
def f(x, ws):
    for i in range(NUM_LAYERS):
        x = jnp.tanh(x @ ws[i])
    for i in range(x.shape[0]):
        x = x.at[i].add(1.0)
    return lax.fori_loop(0, 10_000, lambda i, x: x * 0.999, x)

def host(x):
    for _ in range(100_000):
        x = x * 0.999
    return x
""",
        """
import jax
import jax.numpy as jnp


def cumulative_sum(x):
    acc = 0.0
    out = []
    for i in range(x.shape[0]):  # eight steps: unrolled, and small
        acc += x[i]
        out.append(acc)
    return jnp.stack(out)


sums = jax.jit(cumulative_sum)(jnp.ones(8))
""",
    )
    INVALID = (
        """
import jax

NUM_STEPS = 10_000

@jax.jit
def simulate(x, v):
    for _ in range(NUM_STEPS):  # JIT303
        v = v - 0.001 * x
        x = x + 0.001 * v
    return x, v

@jax.jit
def total(x):
    return sum(x * i for i in range(2 * 2048))  # JIT303

@jax.jit
def blur(img):
    for i in range(64):
        for j in range(64):  # JIT303
            img = img.at[i, j].set(img[i, j] * 0.5)
    return img
""",
        """
import jax
import jax.numpy as jnp


def cumulative_sum(x):
    acc = 0.0
    out = []
    for i in range(x.shape[0]):  # JIT303
        acc += x[i]
        out.append(acc)
    return jnp.stack(out)


jaxpr = jax.make_jaxpr(cumulative_sum)(jnp.ones(1000))  # the program jit would compile
""",
    )

    def _check(self, node: cst.For | cst.CompFor, ctx: RuleContext) -> None:
        # The variables of the constant loops around this one, each with its values.
        around: dict[int, dict[str, range]] = state(ctx, "JIT303.loop-variables", dict)
        variables = around.pop(id(node), {})
        # Outside in: how often the loops around this one enter it (the product of their
        # trips, noted when they were visited).
        products: dict[int, int] = state(ctx, "JIT303.outer-trips", dict)
        outer = products.pop(id(node), 1)
        values = _range_of(node.iter, ctx)
        if values is not None:
            body = outer * len(values)
            what = f"`{snippet(node.iter)}` runs {len(values)} iterations"
        elif (dependent := _dependent_trips(node.iter, variables, ctx)) is not None:
            # `for j in range(i, N)` in `for i in range(N)`: each value of `i` enters it
            # equally often, so its body runs the mean of its trips over those values
            total, count = dependent
            body = outer * total // count
            what = f"`{snippet(node.iter)}` runs {total} iterations over the values of its bounds"
        else:
            length = _input_length(node.iter, ctx)
            if length is not None and length >= self.threshold:
                self.report(
                    ctx,
                    node if isinstance(node, cst.For) else node.iter,
                    loop=f"`{snippet(node.iter)}` runs one iteration per element ({length} "
                    "in an input this module traces the function with)",
                )
            return
        if isinstance(node, cst.For):
            own = variables
            if values is not None and isinstance(node.target, cst.Name):
                own = {**variables, node.target.value: values}
            for inner in _nested_loops(node.body):
                products[id(inner)] = body
                around[id(inner)] = own
        # Report where the product of nested constant loops first reaches the threshold:
        # at the loop whose body runs that many times, as the unrolled program shows.
        if body < self.threshold or outer >= self.threshold:
            return
        if isinstance(node, cst.For) and _host_only(node.body, ctx):
            return  # NumPy filling a constant table: nothing is recorded into the program
        if outer > 1:
            what = (
                f"`{snippet(node.iter)}`, inside constant loops of {outer} iterations in all, "
                f"runs its body {body} times"
            )
        self.report(ctx, node if isinstance(node, cst.For) else node.iter, loop=what)

    def visit_For(self, node: cst.For, ctx: RuleContext) -> None:
        """Check a for loop over a constant range."""
        self._check(node, ctx)

    def visit_CompFor(self, node: cst.CompFor, ctx: RuleContext) -> None:
        """Check a comprehension over a constant range."""
        self._check(node, ctx)


# Calls that compute on the host and record nothing into a trace, given no traced value.
_HOST_MODULES = ("numpy.", "math.")
_HOST_BUILTINS = frozenset({"range", "len", "int", "float", "abs", "min", "max", "round"})


def _host_only(body: cst.BaseSuite, ctx: RuleContext) -> bool:
    """Tell whether a loop body evidently runs on the host alone: it reads no traced value
    and calls only NumPy, `math` and a few builtins (`matrix[i, j] = x ** powers[j, 0]` on
    NumPy arrays). Tracing runs such a loop in Python and records none of it."""
    for n in descendants(body):
        kind = type(n)
        if kind is cst.Name and ctx.is_traced(cast(cst.Name, n)):
            return False
        if kind is cst.Call:
            q = ctx.qualname(cast(cst.Call, n).func)
            if q is None or not (q.startswith(_HOST_MODULES) or q in _HOST_BUILTINS):
                return False
        elif kind is cst.FunctionDef or kind is cst.Lambda or kind is cst.Await:
            return False
    return True


def _range_of(
    it: cst.BaseExpression, ctx: RuleContext, given: dict[str, int] | None = None
) -> range | None:
    """Return the values of ``range(...)`` with constant bounds (``given`` the values of
    some names), else None."""
    if not isinstance(it, cst.Call) or ctx.qualname(it.func) != "range":
        return None
    args = list(positional(it))
    if not 1 <= len(args) <= 3 or len(args) != len(it.args):
        return None
    bounds = [_int_value(a.value, ctx, 0, given) for a in args]
    try:
        return range(*(b for b in bounds if b is not None)) if None not in bounds else None
    except (ValueError, OverflowError):
        return None


def _dependent_trips(
    it: cst.BaseExpression, variables: dict[str, range], ctx: RuleContext
) -> tuple[int, int] | None:
    """For ``range(...)`` whose bounds read one variable of a constant loop around it
    (`range(i, N)` in `for i in range(N)`): its trips summed over that variable's values,
    and how many values there are."""
    if not isinstance(it, cst.Call) or not variables:
        return None
    read = {n.value for n in descendants(it) if type(n) is cst.Name} & variables.keys()
    if len(read) != 1:
        return None
    (name,) = read
    values = variables[name]
    if not values or len(values) > _MAX_VALUES:
        return None
    total = 0
    for v in values:
        trips = _range_of(it, ctx, {name: v})
        if trips is None:
            return None
        total += len(trips)
    return total, len(values)


# Transforms that trace a function with the shapes it is called with.
_SHAPE_KEEPING = frozenset(
    {"jax.jit", "jax.make_jaxpr", "jax.grad", "jax.value_and_grad", "jax.eval_shape"}
)
# Array factories whose first argument is the shape, and samplers whose second is.
_FACTORIES = frozenset(
    f"{m}.{f}" for m in ("jax.numpy", "numpy") for f in ("ones", "zeros", "empty", "arange")
)
_SAMPLERS = frozenset(f"jax.random.{f}" for f in ("normal", "uniform", "bernoulli"))


def _input_length(it: cst.BaseExpression, ctx: RuleContext) -> int | None:
    """For a loop over a parameter of the module-level function walked (`for e in x`,
    `range(x.shape[0])`, `range(len(x))`): the largest leading dimension of the arrays the
    module traces the function with (`jax.jit(f)(jnp.ones(1000))`, or `f(jnp.ones(1000))`
    of a decorated `f`), made by an array factory with a constant shape."""
    fn = ctx.scope
    if not isinstance(fn, cst.FunctionDef) or not any(s is fn for s in ctx.module.body):
        return None
    looped: cst.BaseExpression | None = it
    if isinstance(it, cst.Call) and ctx.qualname(it.func) == "range" and len(it.args) == 1:
        bound = it.args[0].value
        looped = None
        if isinstance(bound, cst.Call) and ctx.qualname(bound.func) == "len" and bound.args:
            looped = bound.args[0].value
        elif (
            isinstance(bound, cst.Subscript)
            and isinstance(bound.value, cst.Attribute)
            and bound.value.attr.value == "shape"
            and len(bound.slice) == 1
            and isinstance(bound.slice[0].slice, cst.Index)
            and _int_value(bound.slice[0].slice.value, ctx, 0) == 0
        ):
            looped = bound.value.value
    params = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
    if not isinstance(looped, cst.Name) or looped.value not in params:
        return None
    index = params.index(looped.value)
    # `jax.jit(f)(x)`, `jax.make_jaxpr(f)(x)`: calls of a transform's result, by function
    wrapped_calls: dict[str, list[cst.Call]] = state(ctx, "JIT303.tracing-calls", dict)
    if not wrapped_calls:
        wrapped_calls[""] = []  # collected, even when nothing is traced by name
        for node in descendants(ctx.module):
            if type(node) is not cst.Call:
                continue
            func = node.func
            if isinstance(func, cst.Call) and func.args and func.args[0].keyword is None:
                wrapped = func.args[0].value
                if isinstance(wrapped, cst.Name) and ctx.qualname(func.func) in _SHAPE_KEEPING:
                    wrapped_calls.setdefault(wrapped.value, []).append(node)
    found = list(wrapped_calls.get(fn.name.value, ()))
    if fn.decorators:  # `f(x)` of a decorated `f`: its own calls trace it
        found += [c for c in ctx.call_sites(fn) if type(c.func) is cst.Name]
    lengths = [
        n
        for call in found
        if 0 <= index < len(call.args)
        and call.args[index].keyword is None
        and not any(a.star for a in call.args[: index + 1])
        for n in [_leading_dim(call.args[index].value, ctx)]
        if n is not None
    ]
    return max(lengths, default=None)


def _leading_dim(expr: cst.BaseExpression, ctx: RuleContext) -> int | None:
    """Return the leading dimension of an array made with a constant shape
    (`jnp.ones(1000)`, `jnp.zeros((1000, 3))`, `jax.random.normal(key, (1000,))`)."""
    if not isinstance(expr, cst.Call):
        return None
    q = ctx.qualname(expr.func)
    position = 0 if q in _FACTORIES else 1 if q in _SAMPLERS else None
    if position is None or len(expr.args) <= position or expr.args[position].keyword:
        return None
    shape = expr.args[position].value
    if isinstance(shape, cst.Tuple | cst.List):
        if not shape.elements:
            return None
        shape = shape.elements[0].value
    return _int_value(shape, ctx, 0)


def _nested_loops(body: cst.BaseSuite) -> list[cst.For]:
    """Return the `for` loops directly nested in ``body`` (through `if`, `with`, `while` and
    `try`, not through another `for`)."""
    found: list[cst.For] = []
    for st in suite_statements(body):
        if isinstance(st, cst.For):
            found.append(st)
        elif isinstance(st, cst.If | cst.With | cst.While | cst.Try):
            found.extend(_nested_loops(st.body))
    return found


def _int_value(
    expr: cst.BaseExpression, ctx: RuleContext, depth: int, given: dict[str, int] | None = None
) -> int | None:
    """Fold ``expr`` to an integer if it is built from literals, module constants, names
    the function binds once to such a value (`N = num_particles`), and ``given`` names."""
    if depth > _MAX_DEPTH:
        return None
    if given and isinstance(expr, cst.Name) and expr.value in given:
        return given[expr.value]
    if isinstance(expr, cst.Integer):
        try:
            return int(expr.value.replace("_", ""), 0)
        except ValueError:
            return None
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        inner = _int_value(expr.expression, ctx, depth + 1, given)
        return None if inner is None else -inner
    if isinstance(expr, cst.BinaryOperation):
        left = _int_value(expr.left, ctx, depth + 1, given)
        right = _int_value(expr.right, ctx, depth + 1, given)
        if left is None or right is None:
            return None
        op = expr.operator
        result: int | None = None
        if isinstance(op, cst.Add):
            result = left + right
        elif isinstance(op, cst.Subtract):
            result = left - right
        elif isinstance(op, cst.Multiply):
            result = left * right
        elif isinstance(op, cst.FloorDivide) and right:
            result = left // right
        elif isinstance(op, cst.Power) and 0 <= right <= 64 and abs(left) <= 1024:
            result = left**right
        return result if result is not None and abs(result) < _BIG else None
    if isinstance(expr, cst.Name) and (local := _local_constant(expr.value, ctx)) is not None:
        return _int_value(local, ctx, depth + 1)
    if isinstance(expr, cst.Name) and ctx.is_module_global(expr.value):
        constants: dict[str, cst.BaseExpression] = state(ctx, "JIT303.constants", lambda: {})
        if not constants:
            constants.update(_module_constants(ctx))
        value = constants.get(expr.value)
        return None if value is None else _int_value(value, ctx, depth + 1)
    return None


def _local_constant(name: str, ctx: RuleContext) -> cst.BaseExpression | None:
    """Return the value the function walked binds ``name`` to, when it binds it once (not a
    parameter, never augmented): `N = num_particles`."""
    fn = ctx.scope
    if not isinstance(fn, cst.FunctionDef) or name in param_names(fn.params):
        return None
    values = assigned_values(ctx).get(name)
    if values is None or len(values) != 1 or values[0] is None:
        return None
    augmented: dict[int, set[str]] = state(ctx, "JIT303.augmented", dict)
    if id(fn) not in augmented:
        augmented[id(fn)] = {
            n.target.value
            for n in descendants(fn.body)
            if type(n) is cst.AugAssign and type(n.target) is cst.Name
        }
    return None if name in augmented[id(fn)] else values[0]


def _module_constants(ctx: RuleContext) -> dict[str, cst.BaseExpression]:
    """Return module-level names assigned exactly once, with their values."""
    out: dict[str, cst.BaseExpression] = {"": cst.Name("None")}  # never empty: computed once
    for stmt in ctx.module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            target: cst.BaseExpression | None = None
            value: cst.BaseExpression | None = None
            if isinstance(small, cst.Assign) and len(small.targets) == 1:
                target, value = small.targets[0].target, small.value
            elif isinstance(small, cst.AnnAssign):
                target, value = small.target, small.value
            if (
                isinstance(target, cst.Name)
                and value is not None
                and ctx.assignment_count(target.value) == 1
                and not ctx.is_rebound(target.value)
            ):
                out[target.value] = value
    return out
