"""The JIT302 rule (unhashable-static-arg): a static argument that cannot be hashed."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import libcst as cst

from jitlint.analysis.applications import from_keywords
from jitlint.analysis.cst_util import (
    NOT_LITERAL,
    descendants,
    literal,
    passed_to,
    variable_names,
)
from jitlint.analysis.kinds import ARRAYS, Kind
from jitlint.analysis.knowledge import words
from jitlint.analysis.scopes import (
    annotated_fields,
    scope_names,
    self_attribute_stores,
    suite_statements,
    target_names,
)
from jitlint.fixes.builders import hashable_literal
from jitlint.model import TRACED_MODES, Applicability, Mode
from jitlint.rules.base import Rule, snippet
from jitlint.rules.helpers import (
    ALL_MODES,
    arg,
    assigned_values,
    code,
    dataclass_options,
    equinox_module,
    jitted_by,
    module_assignments,
    scope_param,
    self_assignments,
    state,
    visible_values,
)
from jitlint.rules.library_params import (
    jitted_library,
    library_spec,
    static_params,
    trace_all_call,
)

if TYPE_CHECKING:
    from jitlint.analysis.context import RuleContext


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


# A slice is hashable from Python 3.12 on; before, `f(x, slice(1, 2))` with the slice static
# raises "Non-hashable static arguments" (jax#3708, checked on 3.11). The running Python is
# the one the linted code runs on.
_SLICE = frozenset({"slice"}) if sys.version_info < (3, 12) else frozenset()
_UNHASHABLE_CALLS = frozenset({"list", "dict", "set", "bytearray"}) | _SLICE | _ARRAY_FACTORIES


# flax.nnx's graph nodes (checked on flax 0.12: `issubclass` of `nnx.Pytree`, `nnx.Object`,
# `nnx.Module` or `nnx.Variable`). `nnx.jit` splits a static one into its graph and its state,
# whose `NodeStates` has no hash: "Non-hashable static arguments" for every one, a module of
# Python attributes only too. Under `jax.jit` a module hashes by identity; a variable raises.
_NNX_VARIABLES = words("""
    BatchStat Cache Intermediate LoRAParam OptArray OptState OptVariable Param Perturbation
    RngCount RngKey RngState Variable
""")
_NNX_NODES = _NNX_VARIABLES | words("""
    BatchNorm Bidirectional Conv ConvTranspose Dict Dropout EMA Einsum Embed GRUCell GroupNorm
    InstanceNorm LSTMCell LayerNorm Linear LinearGeneral List LoRA LoRALinear Metric
    ModelAndOptimizer Module MultiHeadAttention MultiMetric Object OptimizedLSTMCell Optimizer
    PReLU Pytree RMSNorm RNN RNNCellBase RngStream Rngs Sequential SimpleCell SpectralNorm
    WeightNorm
""")
_NNX_BASES = frozenset(f"flax.nnx.{n}" for n in ("Module", "Object", "Pytree"))


# The last words of names only PRNG keys go by (`rng`, `rng_key`, `subkey`); not plain `key`,
# which also names dictionary keys and sort keys.
_PRNG_WORDS = frozenset({"rng", "prng", "rngkey", "prngkey", "subkey"})


def _prng_named(name: str) -> bool:
    """Tell whether ``name`` is spelled as a PRNG key and as nothing else."""
    lower = name.lower().rstrip("0123456789")
    parts = lower.split("_")
    return parts[-1] in _PRNG_WORDS or (
        len(parts) > 1 and parts[-1] == "key" and parts[-2] in _PRNG_WORDS
    )


class UnhashableStaticArg(Rule):
    """
    ## What it does
    Flags a call to a jitted function that passes a list, dict, set or array (a literal, a name
    bound to one, a JAX or NumPy array by what made it), a tuple holding one, or an instance of
    a class that cannot be hashed (a plain `@dataclass`, a class defining `__eq__` without
    `__hash__`, or a frozen / `unsafe_hash` dataclass built with an array or a list, whose
    generated hash hashes every field) in a position marked static with
    `static_argnums`/`static_argnames` (or pmap's `static_broadcasted_argnums`); and an argument
    that reaches a static argument through a transform that traces it (`jax.make_jaxpr(jit_f)(x,
    n)`, `jax.vmap(jit_f)(xs, ns)`, `jax.jit(jit_f)(x, n)`; `jit_f` a function, or a jitted static
    method named through its class, `Policy.call`), which hands it a tracer. JAX's own
    functions count: it jits many of them with parameters static (`jnp.linalg.norm`'s `ord`,
    `jnp.round`'s `decimals`), so `jax.jit(jnp.linalg.norm)(x, ord=1)` or a traced `decimals` in
    traced code fails the same way (shapes and axes among them are JIT404's). A value named only
    as PRNG keys are (`rng`, `rng_key`, `subkey`; not plain `key`) and not known to hold
    anything else is a key, a JAX array. And `jax.jit(module)(x)` of an equinox module holding
    arrays (an `equinox.nn` layer, or a module whose field is annotated as an array): jit hashes
    the callable it wraps, and the module's hash hashes its arrays. And a traced value passed,
    in traced code, where a `@jax.custom_vjp` function keeps an argument out of differentiation
    (`nondiff_argnums`): JAX raises UnexpectedTracerError for a tracer there. A method jitted
    with `static_argnums=0` makes its object static: `c.calc(y)` is checked as passing `c`, and
    a class whose own `__hash__` hashes `self.x` is unhashable when its constructor was given an
    array for `x` (jax#39858). In traced code, a value evidently traced (a traced parameter, an
    item or field of one, a part of one unpacked (`w, key = args`), a JAX array) passed to a
    static position is a tracer, which cannot be
    hashed either (jax#5287); and `self.x` in a static position is an array when the class
    only ever stores one in it (`self._support = jnp.linspace(...)`). A parameter that a
    module-level function passes on unchanged to a static position is followed to the
    function's calls in the module: one that gives it a list, dict or set literal
    (`resize(x, [4, 6])` for `def resize(image, shape): return _resize(image, shape)`) is
    reported at the inner call, where JAX raises; so is a method's parameter, followed to the
    module's calls of the method on a module-level instance (`noise.sample([3, 2])`). A flax
    nnx graph node (`nnx.Rngs(42)`, an `nnx.Module` of the project or of flax, an optimizer, a
    variable) given to a static argument of `nnx.jit`: nnx.jit splits it into its graph and
    its state, and the state has no hash; under `jax.jit` only an nnx variable (`nnx.Param`)
    raises, a module hashing by identity. A static parameter that the function indexes with
    a traced value (`recovery_probabilities[state]`), itself or through a jitted function it
    hands the parameter to statically, can only be an array there (a tuple indexed by a tracer
    raises too): every call giving it one raises, unless the function rebinds the parameter
    first (`bins = jnp.asarray(bins)`). So can one it hands to `jax.random` as a key
    (`jax.random.split(s)` before any rebinding): a key is an array, typed or not.

    ## Why is this bad?
    Static arguments are part of jit's cache key, so they must be hashable. A list, dict, set
    or array raises `ValueError: Non-hashable static arguments are not supported` at the call,
    and so does an instance of a non-frozen dataclass (its `__hash__` is None). Use a tuple,
    or `@dataclass(frozen=True)`.

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
    message = (
        "static argument receives {kind}, which is not hashable, so the call raises; pass a "
        "tuple (or another hashable value) instead"
    )
    modes = ALL_MODES
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
        """
import dataclasses
from functools import partial
import jax
import jax.numpy as jnp


@dataclasses.dataclass
class Config:
    scale: float


@partial(jax.jit, static_argnums=1)
def apply(x, config):
    return x * config.scale


def run(x):
    n = jnp.add(4, 1)
    y = apply(x, n)  # JIT302
    return apply(y, Config(2.0))  # JIT302
""",
        """
import dataclasses
from functools import partial
import jax
import jax.numpy as jnp


@dataclasses.dataclass(frozen=True)
class Table:
    values: jax.Array


@partial(jax.jit, static_argnums=0)
def lookup(table, i):
    return table.values[i]


table = Table(jnp.arange(4.0))
lookup(table, 2)  # JIT302
""",
        """
import jax

def add(x, y):
    return x + y

add_jit = jax.jit(add, static_argnames="y")
jaxpr = jax.make_jaxpr(add_jit)(1, 2)  # JIT302
""",
        """
from functools import partial
import jax

@partial(jax.jit, static_argnums=(0, 1))
def step(rng_key, logpdf, x):
    return x + jax.random.normal(rng_key, x.shape) * logpdf(x)

def chain(rng_key, logpdf, x):
    return step(rng_key, logpdf, x)  # JIT302
""",
        """
from functools import partial
import jax

@partial(jax.jit, static_argnums=(1,))
def scale(z, alpha):
    return z * alpha

@jax.jit
def step(x, alpha):
    return scale(x, alpha)  # JIT302
""",
    )

    def _kind(self, expr: cst.BaseExpression, ctx: RuleContext) -> str | None:
        literal_kind = _literal_kind(expr)
        if literal_kind is not None:
            return literal_kind
        if isinstance(expr, cst.Call):
            q = ctx.qualname(expr.func)
            if q in _UNHASHABLE_CALLS:
                return "array" if q in _ARRAY_FACTORIES else q
        if isinstance(expr, cst.Name) and ctx.binds_container(expr.value):
            return "list/dict/set"
        held = ctx.kind_of(expr)  # what a name holds here: `x = jnp.add(4, 1)` is an array
        if held in (Kind.JAX, Kind.MASK):
            return "JAX array"
        if held is Kind.NUMPY:
            return "NumPy array"
        if held is Kind.MAPPING:
            return "dict"
        if held is None and isinstance(expr, cst.Name) and _prng_named(expr.value):
            return "PRNG key (a JAX array)"
        stored = _self_attribute_made(expr, ctx)
        if stored is not None:
            return stored
        if isinstance(expr, cst.Tuple):
            for element in expr.elements:
                inner = self._kind(element.value, ctx)
                if inner is not None:
                    return f"tuple holding {_article(inner)}"
            return None
        cls = self._instance_of(expr, ctx)
        if cls is None:
            cls = self._partitioned(expr, ctx)
            if cls is None:
                return None
        if _unhashable_class(cls, ctx):
            return f"`{cls.name.value}` instance (its class compares by value but has no hash)"
        if _hashes_fields(cls, ctx) or equinox_module(cls, ctx):
            field = _container_field(cls)
            if field is not None:
                name, what = field
                return (
                    f"`{cls.name.value}` instance whose field `{name}` holds {_article(what)} "
                    "(its hash hashes every field)"
                )
        made = self._construction(expr, ctx)
        hashed = None if made is None else _hashed_init_params(cls, ctx)
        if made is not None and hashed:
            # its own `__hash__` hashes `self.x`, which `__init__` set from a parameter
            init = _methods(cls)["__init__"]
            params = [p.name.value for p in (*init.params.posonly_params, *init.params.params)]
            for name, value in passed_to(params[1:], made) or ():
                inner = self._kind(value, ctx) if name in hashed else None
                if inner is not None:
                    return (
                        f"`{cls.name.value}` instance holding {_article(inner)} in `{name}`, "
                        "which its `__hash__` hashes"
                    )
        if made is not None and _hashes_fields(cls, ctx):
            for given in made.args:
                inner = self._kind(given.value, ctx) if not given.star else None
                if inner is not None:
                    what = _article(inner)
                    return (
                        f"`{cls.name.value}` instance holding {what} (its hash hashes every field)"
                    )
        return None

    def _construction(self, expr: cst.BaseExpression, ctx: RuleContext) -> cst.Call | None:
        """Return the call that made ``expr`` when it is one call, or a name bound once."""
        if isinstance(expr, cst.Call):
            return expr
        if isinstance(expr, cst.Name):
            values = assigned_values(ctx).get(expr.value) or []
            if len(values) == 1 and isinstance(values[0], cst.Call):
                return values[0]
        return None

    def _instance_of(self, expr: cst.BaseExpression, ctx: RuleContext) -> cst.ClassDef | None:
        """Return the module class ``expr`` is an instance of, if every binding shows it."""
        if isinstance(expr, cst.Name):
            values = assigned_values(ctx).get(expr.value) or []
            classes = {self._instance_of(v, ctx) for v in values if isinstance(v, cst.Call)}
            if len(values) == len(classes) == 1:
                return classes.pop()
            return None
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name):
            return ctx.class_named(expr.func.value)
        return None

    def _partitioned(self, expr: cst.BaseExpression, ctx: RuleContext) -> cst.ClassDef | None:
        """Return the class of the module ``expr`` is a half of: `params, static =
        eqx.partition(model, ...)` keeps model's class (and its non-array fields)."""
        if not isinstance(expr, cst.Name):
            return None
        found: list[cst.BaseExpression] = []
        for node in descendants(ctx.scope):
            if not isinstance(node, cst.Assign) or not isinstance(node.value, cst.Call):
                continue
            for target in node.targets:
                names = target.target
                if isinstance(names, cst.Tuple | cst.List) and any(
                    isinstance(el.value, cst.Name) and el.value.value == expr.value
                    for el in names.elements
                ):
                    call = node.value
                    if ctx.qualname(call.func) != "equinox.partition" or not call.args:
                        return None
                    found.append(call.args[0].value)
        if len(found) != 1:
            return None
        return self._instance_of(found[0], ctx)

    def visit_Call(self, node: cst.Call, ctx: RuleContext) -> None:
        """Check the static arguments of a call to a jitted function."""
        self._traced_into_static(node, ctx)
        self._traced_nondiff(node, ctx)
        self._library_static(node, ctx)
        self._jitted_module(node, ctx)
        self._static_self(node, ctx)
        spec = ctx.jit_spec(node.func)
        if spec is None:
            return
        positions, names = spec
        self._static_array_fields(node, ctx)
        # `nnx.jit` (True) or another jit (False) when the text mentions nnx objects at all
        nnx = jitted_by(node.func, ctx, "flax.nnx.jit") if ctx.mentions("nnx") else None
        indexed = _indexed_static_params(node, names, ctx)
        index = 0
        for given in node.args:
            if given.star:
                return  # positions after *args are unknown
            if given.keyword is None:
                hit = index in positions
                index += 1
            else:
                hit = given.keyword.value in names
            kind = self._kind(given.value, ctx) if hit else None
            param = indexed.get(index - 1 if given.keyword is None else given.keyword.value)
            if hit and kind is None and param is not None:
                callee, where = param
                use = (
                    f"indexes with a traced value (`{snippet(where)}`): only an array can be "
                    "indexed so"
                    if type(where) is cst.Subscript
                    else f"uses as a PRNG key (`{snippet(where)}`): a key is an array"
                )
                self.report(
                    ctx,
                    node,
                    f"static argument receives `{snippet(given.value)}`, which `{callee}` "
                    f"{use}, and an array is not hashable, so the call raises; pass it as a "
                    "traced argument",
                )
                continue
            if hit and kind is None:
                caller = _caller_gives(given.value, ctx)
                if caller is not None:
                    what, call = caller
                    self.report(
                        ctx,
                        node,
                        f"static argument receives `{code(given.value)}`, and "
                        f"`{snippet(call)}` gives it {_article(what)}: not hashable, so the "
                        "call raises; pass a tuple, or make the caller's value hashable",
                    )
                    continue
            if hit and kind is None and nnx is not None:
                node_class = _nnx_node(given.value, ctx, variables_only=not nnx)
                if node_class is not None:
                    self.report(
                        ctx,
                        node,
                        f"static argument receives {node_class}, a flax nnx "
                        + (
                            "graph node: `nnx.jit` splits it into its graph and its state, "
                            "and the state is not hashable"
                            if nnx
                            else "variable, which is not hashable"
                        )
                        + ", so the call raises; pass it as a regular argument",
                    )
                    continue
            if hit and kind is None and ctx.staged and _evidently_traced(given.value, ctx):
                self.report(
                    ctx,
                    node,
                    f"static argument receives `{snippet(given.value)}`, a tracer here, which "
                    "is not hashable, so the call raises; pass it as a traced argument, or "
                    "keep it a Python value in the caller (make it static there too)",
                )
                continue
            if kind is not None and self._first_use(given.value, ctx):
                if kind.startswith("PRNG key"):
                    self.report(
                        ctx,
                        node,
                        f"static argument receives the PRNG key `{code(given.value)}`, a JAX "
                        "array, which is not hashable, so the call raises; pass the key as a "
                        "traced argument (take it out of `static_argnums`)",
                    )
                    continue
                self.report(ctx, node, fix=hashable_literal(given.value), kind=_article(kind))

    def _static_self(self, node: cst.Call, ctx: RuleContext) -> None:
        """`c.calc(3.0)` of a method jitted with `static_argnums=0`: the object is the
        static argument, hashed by jit's cache."""
        func = node.func
        if type(func) is not cst.Attribute or type(func.value) is not cst.Name:
            return
        if func.value.value in {"self", "cls"} or not ctx.mentions("static_argnums"):
            return  # (a method made static is spelled `static_argnums=0` in its decorator)
        static: frozenset[str] = state(ctx, "JIT302.static-methods", lambda: _static_methods(ctx))
        if func.attr.value not in static:
            return
        resolved = ctx.resolve_function(func)
        if resolved is None or resolved.cls is None or not isinstance(resolved.fn, cst.FunctionDef):
            return
        spec = ctx.def_spec(resolved.fn)
        if spec is None or 0 not in spec[0]:
            return
        kind = self._kind(func.value, ctx)
        if kind is not None and self._first_use(func.value, ctx):
            self.report(ctx, node, kind=_article(kind))

    def _traced_nondiff(self, node: cst.Call, ctx: RuleContext) -> None:
        """`f(s, p)` in traced code where `f` is a `@jax.custom_vjp` with `s` in its
        `nondiff_argnums`: a tracer there raises UnexpectedTracerError (jax#2912), under
        jit, vmap and grad alike; only Python values (functions, flags) may go there."""
        if ctx.mode not in TRACED_MODES and ctx.mode is not Mode.GRAD:
            return
        if not isinstance(node.func, cst.Name | cst.Attribute):
            return
        params, kept = ctx.custom_vjp_nondiff(node.func)
        if not kept:
            return
        for name, given in passed_to(params, node) or ():
            if name in kept and ctx.is_traced(given):
                self.report(
                    ctx,
                    given,
                    f"`{snippet(given)}` is traced but goes to `{name}`, which the "
                    f"custom_vjp `{snippet(node.func)}` keeps out of differentiation "
                    "(`nondiff_argnums`); a tracer there raises UnexpectedTracerError: "
                    "pass arrays as ordinary arguments and give them a zero cotangent",
                )

    def _traced_into_static(self, node: cst.Call, ctx: RuleContext) -> None:
        """`jax.make_jaxpr(jit_f)(1, 2)`: a transform that traces its arguments hands a
        tracer to what `jit_f` holds static, and a tracer is not hashable."""
        outer = _bound_call(node.func, ctx)  # `pmapped = jax.pmap(jit_f)`, then `pmapped(...)`
        if outer is None or not outer.args or outer.args[0].keyword:
            return
        q = ctx.qualname(outer.func)
        if q not in _TRACING_CALLERS:
            return
        inner = ctx.jit_spec(outer.args[0].value)
        if inner is None:
            return
        positions, names = inner
        t = ctx.transform_named(q)
        assert t is not None
        app = from_keywords(t, outer.args)
        axes = [
            a.value for a in outer.args[1:] if a.keyword is None or a.keyword.value == "in_axes"
        ]
        if app.opaque or any(literal(a, NOT_LITERAL) is NOT_LITERAL for a in axes):
            return  # the outer transform's options are not plain literals
        # What the outer transform leaves untraced: its static arguments, `in_axes=None`.
        kept_positions = app.static_pos | app.unbatched_pos
        kept_names = app.static_names
        index = 0
        for given in node.args:
            if given.star:
                return
            if given.keyword is None:
                hit = index in positions and index not in kept_positions
                index += 1
            else:
                hit = given.keyword.value in names and given.keyword.value not in kept_names
            if hit:
                callee = snippet(outer.args[0].value)
                self.report(
                    ctx,
                    node,
                    f"`{snippet(outer.func)}` traces this argument, so the static argument of "
                    f"`{callee}` it reaches is a tracer, which is not hashable: the call raises "
                    "(ValueError: Non-hashable static arguments); keep it static in the outer "
                    "transform too, or call the jitted function directly",
                )
                return

    def _library_static(self, node: cst.Call, ctx: RuleContext) -> None:
        """`jax.jit(jnp.linalg.norm)(x, ord=1)`, or `jnp.linalg.norm(x, ord=t)` in traced code:
        JAX jits its own function with `ord` static, and the value reaching it is a tracer."""
        if any(a.star for a in node.args):
            return
        jitted = jitted_library(node.func, ctx)
        if jitted is not None:
            wrapped, jit_call = jitted
            spec = ctx.jit_spec(jit_call)
            kept_pos, kept_names = spec if spec is not None else (frozenset(), frozenset())
        elif ctx.mode in TRACED_MODES:
            wrapped, jit_call = ctx.qualname(node.func) or "", None
            kept_pos, kept_names = frozenset(), frozenset()
        else:
            return
        shapes = library_spec(wrapped) or ((), ())
        for position, name in static_params(wrapped):
            if name in shapes[1]:
                continue  # a shape, length or axis: JIT404 says so
            a = arg(node, position, name)
            if a is None:
                continue
            if jit_call is not None:
                traced = (
                    a.keyword.value not in kept_names
                    if a.keyword is not None
                    else position not in kept_pos
                )
            else:
                traced = ctx.is_traced(a.value)
            if not traced:
                continue
            by = f"`{snippet(jit_call)}` traces every argument, so" if jit_call else "here"
            self.report(
                ctx,
                node,
                f"{by} `{snippet(a.value)}` is a tracer, but JAX jits "
                f"`{wrapped.rsplit('.', 1)[-1]}` with `{name}` static, and a tracer is not "
                "hashable: the call raises (ValueError: Non-hashable static arguments); pass a "
                "Python value, marked static in the outer jit (`static_argnames`)",
            )
            return

    def _jitted_module(self, node: cst.Call, ctx: RuleContext) -> None:
        """`jax.jit(module)(x)` of an equinox module: jit hashes the callable it wraps for
        its cache, and the module's hash hashes its array leaves (equinox#116)."""
        jit_call = trace_all_call(node.func, ctx)
        if jit_call is None:
            return
        wrapped = jit_call.args[0].value
        made = (
            list(assigned_values(ctx).get(wrapped.value, ()))
            if isinstance(wrapped, cst.Name)
            else [wrapped]
        )
        if not made or not all(self._holds_arrays(m, ctx) for m in made):
            return  # every binding of the name builds a module holding arrays
        self.report(
            ctx,
            node,
            f"`{snippet(jit_call)}` hashes the callable it wraps, and `{snippet(wrapped)}`, an "
            "equinox module, hashes its array leaves: the call raises (TypeError: unhashable "
            "type); use `eqx.filter_jit`, or jit a function that takes the module as an "
            "argument",
        )

    def _holds_arrays(self, made: cst.BaseExpression, ctx: RuleContext) -> bool:
        """Tell whether ``made`` builds an equinox module holding arrays: a layer of
        `equinox.nn`, or a module class of this file with a field annotated as an array."""
        if not isinstance(made, cst.Call):
            return False
        if (ctx.qualname(made.func) or "").startswith("equinox.nn."):
            return True
        cls = self._instance_of(made, ctx)
        return cls is not None and equinox_module(cls, ctx) and bool(ctx.array_fields(cls))

    def _static_array_fields(self, node: cst.Call, ctx: RuleContext) -> None:
        """Check a call passing an instance whose static field holds an array, after an
        earlier call of the same jitted function passed another such instance: jit's cache
        compares the static parts, and comparing two arrays raises."""
        seen: dict[tuple[int, str], set[str]] = state(ctx, "JIT302.static-arrays", dict)
        callee = snippet(node.func)
        for given in node.args:
            if given.star or not isinstance(given.value, cst.Name):
                continue
            cls = self._instance_of(given.value, ctx)
            field = None if cls is None else _static_array_field(cls, ctx)
            if cls is None or field is None:
                continue
            key = (id(ctx.scope), f"{callee}:{cls.name.value}")
            earlier = seen.setdefault(key, set())
            if earlier and given.value.value not in earlier:
                other = sorted(earlier)[0]
                self.report(
                    ctx,
                    given.value,
                    f"`{given.value.value}` is a `{cls.name.value}` whose static field `{field}` "
                    f"holds an array; jit compares static parts with those of `{other}`'s "
                    "earlier call, and comparing arrays raises: make the field a pytree leaf, "
                    "or hold a tuple or a hashable value there",
                )
            earlier.add(given.value.value)

    def _first_use(self, expr: cst.BaseExpression, ctx: RuleContext) -> bool:
        """Tell whether this is a name's first unhashable static use in its scope.

        The first such call raises, and the fix belongs to the name's binding: one finding.
        """
        if not isinstance(expr, cst.Name):
            return True
        seen: set[tuple[int, str]] = state(ctx, "JIT302.names", set)
        key = (id(ctx.scope), expr.value)
        if key in seen:
            return False
        seen.add(key)
        return True


def _nnx_node(expr: cst.BaseExpression, ctx: RuleContext, *, variables_only: bool) -> str | None:
    """Describe ``expr`` when it is made by a flax nnx graph node's constructor
    (`nnx.Rngs(42)`, a subclass of `nnx.Module` of the module), or a name bound once to one;
    with ``variables_only``, only an `nnx.Variable` counts."""
    made = expr
    if type(expr) is cst.Name:
        values = visible_values(expr.value, ctx)
        if not values or len(values) != 1 or values[0] is None:
            return None
        made = values[0]
    if type(made) is not cst.Call:
        return None
    q = ctx.qualname(made.func) or ""
    if q.startswith("flax.nnx."):
        name = q.rsplit(".", 1)[-1]
        if name in (_NNX_VARIABLES if variables_only else _NNX_NODES):
            return f"`nnx.{name}(...)`"
        return None
    if variables_only or type(made.func) is not cst.Name:
        return None
    cls = ctx.class_named(made.func.value)
    seen: set[str] = set()
    while cls is not None and cls.name.value not in seen:
        seen.add(cls.name.value)
        bases = [b.value for b in cls.bases]
        if any(ctx.qualname(b) in _NNX_BASES for b in bases):
            return f"a `{made.func.value}` (an `nnx.Module`)"
        cls = next(
            (ctx.class_named(b.value) for b in bases if type(b) is cst.Name),
            None,
        )
    return None


def _literal_kind(expr: cst.BaseExpression) -> str | None:
    """Name the unhashable container a literal or comprehension builds, if it builds one."""
    if isinstance(expr, cst.List | cst.ListComp):
        return "list"
    if isinstance(expr, cst.Dict | cst.DictComp):
        return "dict"
    if isinstance(expr, cst.Set | cst.SetComp):
        return "set"
    return None


def _bound_call(func: cst.BaseExpression, ctx: RuleContext) -> cst.Call | None:
    """Return ``func`` when it is a call, or the call a name is bound to once: in the scope
    walked, or at module level."""
    if type(func) is cst.Call:
        return func
    if type(func) is not cst.Name:
        return None
    name = func.value
    values = assigned_values(ctx).get(name)
    if values is None and ctx.assignment_count(name) == 1:
        values = module_assignments(ctx).get(name)
    value = values[0] if values is not None and len(values) == 1 else None
    return value if type(value) is cst.Call else None


def _caller_gives(expr: cst.BaseExpression, ctx: RuleContext) -> tuple[str, cst.Call] | None:
    """For a parameter of a module-level function that the function passes on unchanged to
    a static position (`def resize(image, shape): return _resize(image, shape)`): a call of
    the function in this module that gives it a list, dict or set literal
    (`resize(x, [4, 6])`), with what it gives. The same for a method of a module-level class
    called on a module-level instance of it (`noise.sample([3, 2])`)."""
    fn = ctx.scope
    if not isinstance(expr, cst.Name) or not isinstance(fn, cst.FunctionDef):
        return None
    params = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
    cls = ctx.enclosing_class
    if any(stmt is fn for stmt in ctx.module.body):
        calls = ctx.call_sites(fn)
    elif (
        cls is not None
        and any(stmt is cls for stmt in ctx.module.body)
        and any(stmt is fn for stmt in cls.body.body)
        and params[:1] == ["self"]
    ):
        # `noise.sample([3, 2])` on a module-level instance: the method's own parameters
        params = params[1:]
        calls = ctx.method_call_sites(cls, fn)
    else:
        return None
    name = expr.value
    if name not in params or assigned_values(ctx).get(name):
        return None  # not a parameter, or rebound before it is passed on
    for call in calls:
        for param, value in passed_to(params, call) or ():
            what = _literal_kind(value) if param == name else None
            if what is not None:
                return what, call
    return None


# Transforms whose result traces the arguments it is called with (checked on jax 0.10.2:
# `jax.eval_shape` and `jax.grad`'s non-differentiated arguments keep Python values).
_TRACING_CALLERS = frozenset({"jax.make_jaxpr", "jax.jit", "jax.vmap", "jax.pmap"})


def _indexed_static_params(
    node: cst.Call, static: frozenset[str], ctx: RuleContext
) -> dict[int | str, tuple[str, cst.Subscript | cst.Call]]:
    """Return, by argument position and by keyword, the static parameters of the function
    ``node`` calls that its body indexes with a traced value (`recovery_probabilities[state]`,
    `X[idx_batch]` with `idx_batch` drawn from a traced key) or hands to `jax.random` as a
    key (`jax.random.split(subkey)`), itself or through a jitted function it hands the
    parameter to in a static position: what it is given there must be an array (a tuple
    indexed by a tracer raises; a key is an array, typed or not), and an array is not
    hashable. Only for a function of this module; with the subscript or call found."""
    resolved = ctx.resolve_function(node.func)
    if resolved is None or not resolved.defined_here or not static:
        return {}
    fn = resolved.fn
    found = _traced_indexed(fn, static, ctx)
    if not found:
        return {}
    params = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
    params = params[1 if resolved.is_method else 0 :]
    out: dict[int | str, tuple[str, cst.Subscript | cst.Call]] = {}
    for i, name in enumerate(params):
        if name in found:  # (the call's leading arguments `model.apply` keeps come first)
            out[i + resolved.skip] = out[name] = (fn.name.value, found[name])
    for p in fn.params.kwonly_params:
        if p.name.value in found:
            out[p.name.value] = (fn.name.value, found[p.name.value])
    return out


def _traced_indexed(
    fn: cst.FunctionDef, static: frozenset[str], ctx: RuleContext, depth: int = 0
) -> dict[str, cst.Subscript | cst.Call]:
    """Return the parameters in ``static`` that ``fn`` indexes with a traced value or uses
    as a PRNG key (see `_indexed_static_params`); once per function and set of static
    names."""
    cache: dict[tuple[int, frozenset[str]], dict[str, cst.Subscript | cst.Call]] = state(
        ctx, "JIT302.indexed", dict
    )
    memo = (id(fn), static)
    if memo in cache:
        return cache[memo]
    cache[memo] = {}  # recursion: what the function is still being read for finds nothing
    params = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
    params += [p.name.value for p in fn.params.kwonly_params]
    traced = {p for p in params if p not in static and p not in ("self", "cls")}
    # Names bound from traced names, or from a JAX operation (a tracer under jit).
    bindings: list[tuple[set[str], cst.BaseExpression]] = []
    for n in descendants(fn.body):
        if isinstance(n, cst.Assign):
            bindings.append(({v for t in n.targets for v in target_names(t.target)}, n.value))
        elif isinstance(n, cst.AugAssign):
            bindings.append((set(target_names(n.target)), n.value))
    for _ in range(4):
        before = len(traced)
        for names, value in bindings:
            if _reads_any(value, traced) or (
                type(value) is cst.Call and (ctx.qualname(value.func) or "").startswith("jax.")
            ):
                traced |= names
        if len(traced) == before:
            break
    # A static parameter the function rebinds (`bins = jnp.asarray(bins)`) is its own value
    # after that: what is indexed may be the new one.
    rebound = {name for names, _ in bindings for name in names}
    found: dict[str, cst.Subscript | cst.Call] = {}
    for n in descendants(fn.body):
        if (
            type(n) is cst.Subscript
            and type(n.value) is cst.Name
            and n.value.value in static
            and n.value.value not in rebound
            and n.value.value not in found
            and any(_reads_any(el.slice, traced) for el in n.slice)
        ):
            found[n.value.value] = n
        elif (
            type(n) is cst.Call
            and (used := _used_as_key(n, ctx)) is not None
            and used in static
            and (used not in rebound or _first_read(fn, used) is arg(n, 0, "key").value)  # type: ignore[union-attr]
        ):
            # (`_, subkey = jax.random.split(subkey)` splits the parameter before rebinding)
            found.setdefault(used, n)
        elif type(n) is cst.Call and depth < 3:
            # handed on to a static position of a jitted function that indexes it
            spec = ctx.jit_spec(n.func)
            if spec is None:
                continue
            for where, sub in _indexed_static_params(n, spec[1], ctx).items():
                given = arg(n, where, None) if isinstance(where, int) else arg(n, None, where)
                if (
                    given is not None
                    and type(given.value) is cst.Name
                    and given.value.value in static
                ):
                    found.setdefault(given.value.value, sub[1])
    cache[memo] = found
    return found


def _first_read(fn: cst.FunctionDef, name: str) -> cst.Name | None:
    """Return the first read of ``name`` in ``fn``'s body, in the order Python runs it
    (an assignment's value before its targets), or None."""
    targets = {
        id(t)
        for n in descendants(fn.body)
        if isinstance(n, cst.Assign | cst.AugAssign | cst.AnnAssign)
        for t in (
            [x for tt in n.targets for x in descendants(tt.target)]
            if isinstance(n, cst.Assign)
            else descendants(n.target)
        )
    }
    for n in descendants(fn.body):
        if type(n) is cst.Name and n.value == name and id(n) not in targets:
            return n
    return None


def _used_as_key(node: cst.Call, ctx: RuleContext) -> str | None:
    """Return the name ``node`` hands to `jax.random` as the key (`jax.random.split(subkey)`,
    `jax.random.uniform(key=k)`), or None; a seed given to a key maker is no key."""
    q = ctx.qualname(node.func) or ""
    if not q.startswith("jax.random.") or q.rsplit(".", 1)[1] in _KEY_MAKERS:
        return None
    given = arg(node, 0, "key")
    return given.value.value if given is not None and type(given.value) is cst.Name else None


# `jax.random` functions that take a seed or key data, not a key.
_KEY_MAKERS = frozenset({"PRNGKey", "key", "wrap_key_data", "default_prng_impl"})


def _reads_any(expr: cst.CSTNode, names: set[str]) -> bool:
    return any(n.value in names for n in variable_names(expr))


def _article(kind: str) -> str:
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"


def _defines(cls: cst.ClassDef) -> set[str]:
    return set(_methods(cls))


def _methods(cls: cst.ClassDef) -> dict[str, cst.FunctionDef]:
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
    return {s.name.value: s for s in body if isinstance(s, cst.FunctionDef)}


def _hashed_init_params(cls: cst.ClassDef, ctx: RuleContext) -> set[str]:
    """Return the `__init__` parameters whose values the class's own `__hash__` hashes:
    `def __hash__(self): return hash((self.x, self.mul))` with `self.x = x` in `__init__`."""
    methods = _methods(cls)
    if "__hash__" not in methods or "__init__" not in methods:
        return set()
    # What `hash()` is given itself, alone or in a tuple: `hash(self.val.tobytes())` hashes
    # bytes, which a NumPy array's value makes hashable.
    read: set[str] = set()
    for n in descendants(methods["__hash__"]):
        if not (isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.args):
            continue
        if n.func.value != "hash":
            continue
        given = n.args[0].value
        parts = (
            [e.value for e in given.elements]
            if isinstance(given, cst.Tuple | cst.List)
            else [given]
        )
        read.update(
            p.attr.value
            for p in parts
            if isinstance(p, cst.Attribute)
            and isinstance(p.value, cst.Name)
            and p.value.value == "self"
        )
    assigned = self_assignments(cls, ctx)
    return {
        value.value
        for attr in read
        for value in assigned.get(attr, ())
        if isinstance(value, cst.Name)
    }


def _hashes_fields(cls: cst.ClassDef, ctx: RuleContext) -> bool:
    """Tell whether ``cls`` is a dataclass whose generated `__hash__` hashes its fields
    (`frozen=True` or `unsafe_hash=True`), so an unhashable field makes it unhashable."""
    options = dataclass_options(cls, ctx)
    if options is None or "__hash__" in _defines(cls):
        return False
    if options.get("unsafe_hash") == "True":
        return True
    return options.get("frozen") == "True" and options.get("eq") != "False"


def _evidently_traced(expr: cst.BaseExpression, ctx: RuleContext) -> bool:
    """Tell whether ``expr`` is a tracer by more than the taint: a JAX array by what made it,
    a traced parameter of the function, or a name bound once to an item or field of one
    (`alpha = kwargs['alpha']`). A call's results (`f, consts = closure_convert(...)`) may be
    functions or other Python values, traced or not."""
    if not ctx.is_traced(expr):
        return False
    if ctx.kind_of(expr) in ARRAYS:
        return True
    if not isinstance(expr, cst.Name):
        return False
    if scope_param(ctx, expr.value) is not None:
        return True
    values = assigned_values(ctx).get(expr.value) or []
    if len(values) == 1 and type(values[0]) is cst.Name and values[0].value == "None":
        # a binding `assigned_values` does not follow: an unpacking, perhaps
        return _unpacked_from_param(expr.value, ctx)
    if len(values) != 1 or not isinstance(values[0], cst.Subscript | cst.Attribute):
        return False
    root = values[0].value
    while isinstance(root, cst.Subscript | cst.Attribute):
        root = root.value
    return isinstance(root, cst.Name) and scope_param(ctx, root.value) is not None


def _unpacked_from_param(name: str, ctx: RuleContext) -> bool:
    """Tell whether the one binding of ``name`` unpacks a traced parameter of the function
    (`w, key, state = args`): each part is a leaf of it, or a subtree of its leaves."""
    scope = ctx.scope
    if not isinstance(scope, cst.FunctionDef):
        return False
    for stmt in suite_statements(scope.body):
        if type(stmt) is not cst.SimpleStatementLine:
            continue
        for small in stmt.body:
            if type(small) is not cst.Assign or len(small.targets) != 1:
                continue
            target, value = small.targets[0].target, small.value
            if isinstance(target, cst.Tuple | cst.List) and any(
                type(e) is cst.Element and type(e.value) is cst.Name and e.value.value == name
                for e in target.elements
            ):
                return (
                    type(value) is cst.Name
                    and scope_param(ctx, value.value) is not None
                    and ctx.is_traced(value)
                )
    return False


def _self_attribute_made(expr: cst.BaseExpression, ctx: RuleContext) -> str | None:
    """Describe ``self.attr`` when every store of it in the class makes an array or a list
    (`self._support = jnp.linspace(...)` in `__init__`)."""
    cls = ctx.enclosing_class
    if not (
        cls is not None
        and isinstance(expr, cst.Attribute)
        and isinstance(expr.value, cst.Name)
        and expr.value.value == "self"
    ):
        return None
    stores = [v for attr, v in self_attribute_stores(cls) if attr == expr.attr.value]
    kinds = {ctx.qualname(v.func) if isinstance(v, cst.Call) else None for v in stores}
    if not stores or not kinds <= _UNHASHABLE_CALLS:
        return None
    return "array" if kinds <= _ARRAY_FACTORIES else "list/dict/set or array"


def _unhashable_class(cls: cst.ClassDef, ctx: RuleContext) -> bool:
    """Tell whether instances of ``cls`` cannot be hashed.

    A plain `@dataclass` (not frozen, `eq` left on) sets `__hash__` to None, and so does a
    class that defines `__eq__` without `__hash__`.
    """
    methods = _defines(cls)
    if "__hash__" in methods:
        return False
    options = dataclass_options(cls, ctx)
    if options is None:
        return "__eq__" in methods
    if options.get("frozen") == "True" or options.get("unsafe_hash") == "True":
        return False
    return options.get("eq") != "False"


_CONTAINER_HINTS = {"list": "list", "List": "list", "dict": "dict", "Dict": "dict", "set": "set"}


def _container_field(cls: cst.ClassDef) -> tuple[str, str] | None:
    """Return a field of ``cls`` annotated, or set in `__init__`, as a list, dict or set."""
    for field, small in annotated_fields(cls):
        ann = small.annotation.annotation
        head = ann.value if isinstance(ann, cst.Subscript) else ann
        name = head.value if isinstance(head, cst.Name) else None
        if name in _CONTAINER_HINTS:
            return field, _CONTAINER_HINTS[name]
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
    for stmt in body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == "__init__":
            for node in descendants(stmt.body):
                if (
                    isinstance(node, cst.Assign)
                    and len(node.targets) == 1
                    and isinstance(node.targets[0].target, cst.Attribute)
                    and isinstance(node.targets[0].target.value, cst.Name)
                    and node.targets[0].target.value.value == "self"
                ):
                    value = node.value
                    kind = (
                        "list"
                        if isinstance(value, cst.List | cst.ListComp)
                        else "dict"
                        if isinstance(value, cst.Dict | cst.DictComp)
                        else None
                    )
                    if kind is not None:
                        return node.targets[0].target.attr.value, kind
    return None


_ARRAY_HINT = ("Array", "ndarray")


def _static_array_field(cls: cst.ClassDef, ctx: RuleContext) -> str | None:
    """Return a field of ``cls`` marked static (`eqx.field(static=True)`, flax's
    `field(pytree_node=False)`, `register_dataclass`'s `meta_fields`) and annotated as an
    array, if it has one."""
    registered = ctx.static_fields(cls.name.value)  # `register_dataclass(meta_fields=...)`
    for name, field in annotated_fields(cls):
        if name in registered and any(
            hint in code(field.annotation.annotation) for hint in _ARRAY_HINT
        ):
            return name
        value = field.value
        if not isinstance(value, cst.Call):
            continue
        static = any(
            a.keyword is not None
            and isinstance(a.value, cst.Name)
            and (a.keyword.value, a.value.value) in {("static", "True"), ("pytree_node", "False")}
            for a in value.args
        )
        text = code(field.annotation.annotation)
        if static and any(hint in text for hint in _ARRAY_HINT):
            return name
    return None


def _static_methods(ctx: RuleContext) -> frozenset[str]:
    """Return the names of the module's methods whose decorators mention `static_argnums`
    (the methods that may make their object static)."""
    found: set[str] = set()
    for stmt in ctx.module.body:
        if not isinstance(stmt, cst.ClassDef):
            continue
        for name, method in scope_names(stmt.body).defs.items():
            if any("static_argnums" in code(d.decorator) for d in method.decorators):
                found.add(name)
    return frozenset(found)
