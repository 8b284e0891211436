"""The JIT204 rule (impure-host-call): host calls whose result differs between calls."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from jitlint.analysis.cst_util import descendants, statements
from jitlint.analysis.knowledge import words
from jitlint.rules.base import Rule
from jitlint.rules.helpers import (
    constant_args,
    lazy_targets,
    module_assignments,
    scope_assignments,
    state,
)

if TYPE_CHECKING:
    from jitlint.analysis.context import RuleContext


_IMPURE_CALLS = words("""
    time.time time.time_ns time.perf_counter time.perf_counter_ns time.monotonic
    time.monotonic_ns time.process_time datetime.datetime.now datetime.datetime.utcnow
    datetime.datetime.today datetime.date.today input open os.urandom os.getrandom
    uuid.uuid1 uuid.uuid4
    """)


_IMPURE_PREFIXES = ("numpy.random.", "random.", "secrets.")
# Generators built from an explicit seed are deterministic.
_SEEDED = words(
    "numpy.random.RandomState numpy.random.default_rng numpy.random.Generator "
    "numpy.random.SeedSequence numpy.random.PCG64 numpy.random.Philox random.Random"
)


class ImpureHostCall(Rule):
    """
    ## What it does
    Flags calls in traced code whose result differs between calls on the host: `time.time()`,
    `datetime.now()`, NumPy's and Python's random number generators, `input()`, `open()`,
    `os.urandom()`, `uuid.uuid4()`; and the methods of a NumPy generator object
    (`rng.normal(...)` where `rng = np.random.default_rng(0)` is a global, a closed-over name,
    or a parameter annotated as a `Generator` or defaulting to one: a static argument draws
    at trace time too). Not in a lazy initialisation (`if self.w is None:
    self.w = np.random.randn(n)`), which is written to run once, and not a seeded generator
    the traced function makes for itself (`rs = np.random.RandomState(0)`), which draws the
    same numbers on every call, jitted or not; nor the draws from NumPy's or Python's global
    generator after the function seeds it with constants in a statement of its own body
    (`np.random.seed(17)`, then `np.random.randn(N, 3)`), nor that seed: each call reseeds
    and draws the same numbers; nor a clock read whose name nothing in the function reads
    (`tic = time.perf_counter()`, its print commented out).

    ## Why is this bad?
    The call runs once, while JAX traces the function, and its result is frozen into the
    compiled program as a constant. Every later call reuses that one timestamp or random number.

    ## Example
    ```python
    @jax.jit
    def add_noise(x):
        return x + np.random.normal(size=x.shape)
    ```

    ## Use instead
    ```python
    @jax.jit
    def add_noise(x, key):
        return x + jax.random.normal(key, x.shape)
    ```
    Pass host values (times, file contents) in as arguments.

    ## Fix safety
    There is no automatic fix.
    """

    code = "JIT204"
    name = "impure-host-call"
    message = (
        "`{call}()` in traced code runs once at trace time and its result is frozen into the "
        "compiled program; use `jax.random` with a key, or pass the value as an argument"
    )
    VALID = (
        """
import time
import jax


@jax.jit
def f(x, key):
    return x + jax.random.normal(key, x.shape)


def timed(x, key):
    t0 = time.time()
    y = f(x, key)
    return y, time.time() - t0
""",
        """
import jax
import numpy as np


class RandomFeatures:
    def __init__(self):
        self.w = None

    def __call__(self, x):
        if self.w is None:
            self.w = np.random.randn(*x.shape)  # drawn once, kept for every later call
        return x * self.w


features = RandomFeatures()


@jax.jit
def apply(x):
    return features(x)
""",
    )
    INVALID = (
        """
import jax
import numpy as np


@jax.jit
def add_noise(x):
    return x + np.random.normal(size=x.shape)  # JIT204
""",
        """
import time
from jax import jit


@jit
def stamp(x):
    return x, time.time()  # JIT204
""",
    )

    def visit_Call(self, node: cst.Call, ctx: RuleContext) -> None:
        """Check calls to impure host functions."""
        func = node.func
        if (
            type(func) is cst.Attribute
            and type(func.value) is cst.Name
            and func.attr.value not in _GENERATOR_PLUMBING
            and not ctx.is_imported(func.value.value)
            and ctx.mentions("random")
            and _numpy_generator(func.value.value, ctx)
        ):
            # `rng.normal(...)` of `rng = np.random.default_rng(0)`, a global, a closed-over
            # name or a static parameter defaulting to one
            if id(node) not in _lazily_initialised(ctx):
                self.report(ctx, node, call=f"{func.value.value}.{func.attr.value}")
            return
        q = ctx.qualname(func)
        if q is None:
            return
        if q in _IMPURE_CALLS or q.startswith(_IMPURE_PREFIXES):
            if q in {"input", "open"} and ctx.defines_function(q):
                return
            if q in _SEEDED and node.args:
                return
            if id(node) in _lazily_initialised(ctx):
                return  # `if self.w is None: self.w = npr.randn(n)`: meant to run once
            if _reseeded(q, node, ctx):
                return  # `np.random.seed(17)`, then `np.random.randn(N, 3)`: the same draws
            if q.startswith(_CLOCKS) and _unread(node, ctx):
                return  # `tic = time.perf_counter()`, then nothing reads `tic`
            self.report(ctx, node, call=q)


_CLOCKS = ("time.", "datetime.")


def _unread(node: cst.Call, ctx: RuleContext) -> bool:
    """Tell whether ``node`` is the value of a statement `name = node` in the function
    walked, and nothing in that function reads ``name``: the frozen value reaches nothing."""
    scope = ctx.scope
    if type(scope) is not cst.FunctionDef:
        return False
    for st in statements(scope):
        if type(st) is cst.Assign and st.value is node:
            if len(st.targets) != 1 or type(st.targets[0].target) is not cst.Name:
                return False
            target = st.targets[0].target
            name = target.value
            return not any(
                type(n) is cst.Name and n.value == name and n is not target
                for n in descendants(scope)
            )
    return False


def _reseeded(q: str, node: cst.Call, ctx: RuleContext) -> bool:
    """Tell whether ``node``, a call of NumPy's or Python's global random generator, runs
    after the function walked seeds that generator with constants in a statement of its own
    body (`np.random.seed(17)` then `np.random.randn(N, 3)`), or is that seed with such a
    draw after it: each call of the function reseeds and draws the same numbers, eagerly as
    under the trace, which keeps those numbers as constants."""
    prefix = "numpy.random." if q.startswith("numpy.random.") else "random."
    if not q.startswith(prefix):
        return False
    scope = ctx.scope
    if type(scope) is not cst.FunctionDef or type(scope.body) is not cst.IndentedBlock:
        return False
    lines = scope.body.body
    seeded = False
    for k, line in enumerate(lines):
        if any(n is node for n in descendants(line)):
            if seeded:
                return True
            return (
                q == prefix + "seed"
                and _seeds(line, prefix, ctx)
                and any(
                    type(n) is cst.Call
                    and (ctx.qualname(n.func) or "").startswith(prefix)
                    and ctx.qualname(n.func) != prefix + "seed"
                    for later in lines[k + 1 :]
                    for n in descendants(later)
                )
            )
        seeded = seeded or _seeds(line, prefix, ctx)
    return False


def _seeds(line: cst.BaseStatement, prefix: str, ctx: RuleContext) -> bool:
    """Tell whether ``line`` is a call statement `<prefix>seed(<constants>)`."""
    if type(line) is not cst.SimpleStatementLine or len(line.body) != 1:
        return False
    small = line.body[0]
    call = small.value if type(small) is cst.Expr else None
    return (
        type(call) is cst.Call
        and bool(call.args)
        and ctx.qualname(call.func) == prefix + "seed"
        and constant_args(call)
    )


# What makes a NumPy generator object, and its methods that draw nothing.
_GENERATORS = words("numpy.random.default_rng numpy.random.RandomState numpy.random.Generator")
_GENERATOR_TYPES = words("numpy.random.Generator numpy.random.RandomState")
_GENERATOR_PLUMBING = words("spawn bit_generator get_state set_state seed __getstate__")


def _numpy_generator(name: str, ctx: RuleContext) -> bool:
    """Tell whether ``name`` holds a NumPy random generator where the walk is: a parameter
    annotated as one or defaulting to one, or a name every binding of makes one (but a
    seeded one the function walked makes for itself)."""
    scope = ctx.binding_scope(name)
    if isinstance(scope, cst.FunctionDef | cst.Lambda):
        p = scope.params
        for param in (*p.posonly_params, *p.params, *p.kwonly_params):
            if param.name.value != name:
                continue
            hint = param.annotation
            if hint is not None and ctx.qualname(hint.annotation) in _GENERATOR_TYPES:
                return True
            default = param.default
            return type(default) is cst.Call and ctx.qualname(default.func) in _GENERATORS
        values = scope_assignments(scope).get(name, [])
        if scope is ctx.scope and values and all(type(v) is cst.Call and v.args for v in values):
            # `rs = np.random.RandomState(0)` in the function walked: made again, seeded, on
            # every call, it draws the same numbers eagerly as the trace does
            return False
    else:
        values = module_assignments(ctx).get(name, [])
    return bool(values) and all(
        type(v) is cst.Call and ctx.qualname(v.func) in _GENERATORS for v in values
    )


def _lazily_initialised(ctx: RuleContext) -> frozenset[int]:
    """Return the ids of the calls in the scope walked that sit in a lazy initialisation:
    the body of `if self.x is None:` (or `if x is None:`) that assigns what it tests."""
    scope = ctx.scope
    found: dict[int, frozenset[int]] = state(ctx, "JIT204.lazy", dict)
    if id(scope) not in found:
        ids: set[int] = set()
        for stmt in statements(scope):
            if isinstance(stmt, cst.If) and lazy_targets(stmt):
                ids.update(id(n) for n in descendants(stmt.body) if isinstance(n, cst.Call))
        found[id(scope)] = frozenset(ids)
    return found[id(scope)]
