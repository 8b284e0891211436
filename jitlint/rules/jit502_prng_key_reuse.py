"""Rule on PRNG keys consumed more than once (JIT502)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, cast

import libcst as cst

from jitlint.analysis.cst_util import (
    child_nodes,
    descendants,
    own_statements,
    passed_to,
    statement_children,
    statements,
    variable_names,
)
from jitlint.analysis.knowledge import FLAX_RUNNERS, HAIKU_TRANSFORMS, words
from jitlint.analysis.module_info import module_bases
from jitlint.analysis.scopes import (
    annotated_fields,
    param_names,
    return_statements,
    scope_names,
    self_attribute_stores,
    suite_statements,
    target_names,
)
from jitlint.analysis.transforms import TREE_MAPS
from jitlint.model import Mode, Taint
from jitlint.rules.base import Rule, snippet
from jitlint.rules.flow import Flow
from jitlint.rules.helpers import (
    ALL_MODES,
    SETUP_METHODS,
    arg,
    arguments_of,
    assigned_values,
    changed_attributes,
    code,
    constant_args,
    exclusive_tests,
    last_name,
    module_assignments,
    scope_assignments,
    scope_param,
    self_assignments,
    state,
    visible_values,
    writer_methods,
    writes_elsewhere,
)
from jitlint.rules.jit301_jit_in_loop import (
    runs_once_eagerly,
    runs_repeatedly,
    runs_repeatedly_eagerly,
    swept_only,
)

if TYPE_CHECKING:
    from jitlint.analysis.context import FunctionTarget, RuleContext

# jax.random functions that take a key but do not use up its randomness.
_NOT_CONSUMING = words("""
    PRNGKey key key_data wrap_key_data key_impl fold_in clone default_prng_impl
    """)


def _aligned_permutations(first: cst.Call, again: cst.Call, ctx: RuleContext) -> bool:
    """Tell whether two draws from one key are `jax.random.permutation` of two arrays with
    the same other arguments (`axis=0, independent=False` on both): the idiom that shuffles
    paired arrays (inputs and targets) alike, on purpose; both get the same permutation
    (checked: rows of a (10, 3) array and of a (10,) one move alike), which is what is
    meant."""
    q = "jax.random.permutation"

    def options(call: cst.Call) -> list[tuple[str | None, str]] | None:
        if len(call.args) < 2 or call.args[1].keyword is not None or call.args[0].keyword:
            return None
        return [(a.keyword.value if a.keyword else None, code(a.value)) for a in call.args[2:]]

    shared = options(first)
    return (
        shared is not None
        and ctx.qualname(first.func) == q
        and ctx.qualname(again.func) == q
        and options(again) == shared
    )


def consumer(call: cst.Call, ctx: RuleContext) -> str | None:
    """Return the name of the key ``call`` consumes (a `jax.random` sampler or `split`, or
    an initializer: `jax.nn.initializers.glorot_normal()(key, shape)`, also through a name
    bound to one)."""
    if not _is_sampler(ctx.qualname(call.func)) and not _initializer(call.func, ctx):
        return None
    key = arg(call, 0, "key")
    return None if key is None else key_name(key.value)


def _global_draw(call: cst.Call, name: str, ctx: RuleContext) -> cst.Call | None:
    """For ``call`` of a helper of this module that draws from the module-level key
    ``name`` (`def init(): W = normal(key, ...)`): the helper's first draw from it, where
    the draw from a used key happens; a method called on `self` (`self.policy(q, s)`) too."""
    if name not in _module_keys(ctx) or not (
        type(call.func) is cst.Name or _is_self_attribute(call.func)
    ):
        return None
    resolved = ctx.resolve_function(call.func)
    if resolved is None or not resolved.defined_here:
        return None
    fn = resolved.fn
    if not isinstance(fn, cst.FunctionDef) or fn.decorators:
        return None  # a jitted helper's draw is compiled in: the call is what reuses
    if name in scope_assignments(fn) or name in param_names(fn.params):
        return None  # a key of its own by that name
    return _first_draw(fn, {name}, ctx)


def _in_test(scope: cst.FunctionDef, module: cst.Module) -> bool:
    """Tell whether ``scope`` is a test, or defined in one (`def test_...`, a method of a
    `Test...` class): tests fix their seeds to be reproducible, on purpose."""
    stack: list[tuple[cst.CSTNode, bool]] = [(module, False)]
    while stack:
        node, testing = stack.pop()
        if isinstance(node, cst.FunctionDef):
            testing = testing or node.name.value.startswith("test")
        elif isinstance(node, cst.ClassDef):
            testing = testing or node.name.value.startswith("Test")
        if node is scope:
            return testing
        stack.extend((c, testing) for c in statement_children(node))
    return False


def _same_block(a: cst.CSTNode, b: cst.CSTNode, scope: cst.CSTNode) -> bool:
    """Tell whether the small statements ``a`` and ``b`` are lines of one block of
    ``scope`` (one suite, not a branch or loop inside it)."""
    for node in descendants(scope):
        if type(node) is not cst.IndentedBlock and type(node) is not cst.Module:
            continue
        lines = [line.body for line in node.body if type(line) is cst.SimpleStatementLine]
        if any(a in body for body in lines):
            return any(b in body for body in lines)
    return False


def _first_draw(fn: cst.FunctionDef, names: set[str], ctx: RuleContext) -> cst.Call | None:
    """Return the first draw, in source order, that a function of this module makes from a
    key one of ``names`` names: a sampler, an initializer, or a name bound to one."""
    initializers = {
        local
        for local, values in scope_assignments(fn).items()
        if len(values) == 1 and _initializer(values[0], ctx)
    }
    for inner in descendants(fn.body):  # in source order
        if type(inner) is not cst.Call:
            continue
        func = inner.func
        draws = (
            _is_sampler(ctx.qualname(func))
            or _initializer(func, ctx)
            or (type(func) is cst.Name and func.value in initializers)
        )
        given = arg(inner, 0, "key") if draws else None
        if given is not None and key_name(given.value) in names:
            return inner
    return None


# The `lax` loops that carry a value: where they take the body and the initial carry, and
# the body's parameter that receives the carry.
_LOOP_CARRIES = {
    "jax.lax.scan": ((0, "f"), (1, "init"), 0),
    "jax.lax.fori_loop": ((2, "body_fun"), (3, "init_val"), 1),
    "jax.lax.while_loop": ((1, "body_fun"), (2, "init_val"), 0),
}
# The `lax` loops and where they take the body they call once per iteration.
_LOOP_BODY_ARGS = {q: body for q, (body, _, _) in _LOOP_CARRIES.items()} | {"jax.lax.map": (0, "f")}
_LOOP_NAMES = frozenset(q.rsplit(".", 1)[1] for q in _LOOP_BODY_ARGS)
_BRANCHING = frozenset({"jax.lax.cond", "jax.lax.switch"})
# The last names of the calls `_KeyFlow` reads the functions of: loops and branches.
_HANDS_ON_NAMES = _LOOP_NAMES | {q.rsplit(".", 1)[1] for q in _BRANCHING}


def _unpacked_first(fn: cst.FunctionDef, carry: str) -> list[str | None]:
    """Return the names ``fn`` unpacks its parameter ``carry`` into, by position, when its
    first statement does it (`key, X, V = state`); else none."""
    body = fn.body.body
    line = body[0] if body else None
    if type(line) is not cst.SimpleStatementLine or type(line.body[0]) is not cst.Assign:
        return []
    stmt = line.body[0]
    target = stmt.targets[0].target if len(stmt.targets) == 1 else None
    if type(stmt.value) is not cst.Name or stmt.value.value != carry:
        return []
    if not isinstance(target, cst.Tuple | cst.List):
        return []
    return [e.value.value if type(e.value) is cst.Name else None for e in target.elements]


def _named_key(call: cst.Call, ctx: RuleContext, *, spelled: bool = True) -> str | None:
    """Return the key ``call`` draws from, by name (any name, when not ``spelled``: the
    caller knows the name it looks for holds a key)."""
    return (
        consumer(call, ctx)
        or helper_consumer(call, ctx, spelled=spelled)
        or library_consumer(call, ctx, spelled=spelled)
    )


def _first_use(fn: cst.FunctionDef | cst.Lambda, name: str) -> cst.Call | None:
    """Return the first call, in source order, that ``fn`` hands its parameter ``name``."""
    for inner in descendants(fn.body):
        if type(inner) is cst.Call and any(
            type(a.value) is cst.Name and a.value.value == name for a in inner.args
        ):
            return inner
    return None


# What makes an initializer, a function of (key, shape) that samples from the key.
_INITIALIZER_MODULES = (
    "jax.nn.initializers.",
    "flax.linen.initializers.",
    "flax.nnx.initializers.",
)


def _initializer(func: cst.BaseExpression, ctx: RuleContext) -> bool:
    """Tell whether ``func`` is an initializer: the call of an initializer factory
    (`jax.nn.initializers.glorot_normal()`), or a name bound only to one."""
    if not ctx.mentions("initializers"):
        return False  # a cheap test of the module's text first
    if (
        type(func) is cst.Attribute
        and type(func.value) is cst.Name
        and func.value.value == "self"
        and (cls := ctx.self_class()) is not None
    ):
        return _initializer_field(cls, func.attr.value, ctx)
    made: cst.BaseExpression | None = func
    if type(func) is cst.Name:
        param = scope_param(ctx, func.value)
        if param is not None and not assigned_values(ctx).get(func.value):
            # `weight_init: Initializer`, or `bias_init=zeros`: the caller's initializer
            hint = param.annotation
            named = hint is not None and (ctx.qualname(hint.annotation) or "").startswith(
                _INITIALIZER_MODULES
            )
            default = param.default
            if type(default) is cst.Call:
                default = default.func
            given = default is not None and (ctx.qualname(default) or "").startswith(
                _INITIALIZER_MODULES
            )
            return named or given
        values = assigned_values(ctx).get(func.value, ())
        made = values[0] if len(values) == 1 else None
    return type(made) is cst.Call and (ctx.qualname(made.func) or "").startswith(
        _INITIALIZER_MODULES
    )


def _initializer_field(cls: cst.ClassDef, name: str, ctx: RuleContext) -> bool:
    """Tell whether field ``name`` of ``cls`` holds an initializer: a flax module's
    `kernel_init: Callable[...] = default_kernel_init` (or `= zeros`, or annotated
    `Initializer`), whose default is one of the initializer modules' functions or a
    module-level name bound to one."""
    for field, stmt in annotated_fields(cls):
        if field != name:
            continue
        if (ctx.qualname(stmt.annotation.annotation) or "").startswith(_INITIALIZER_MODULES):
            return True
        default = stmt.value
        if type(default) is cst.Name:
            values = module_assignments(ctx).get(default.value, [])
            if len(values) == 1:
                default = values[0]
        if type(default) is cst.Call:
            default = default.func
        return default is not None and (ctx.qualname(default) or "").startswith(
            _INITIALIZER_MODULES
        )
    return False


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
# What binds a module-level name to keys (`root, dropout_key = jax.random.split(root)`).
_MODULE_KEY_MAKERS = _KEY_MAKERS | {"jax.random.split", "jax.random.fold_in"}

# Library APIs take the key they draw from by keyword (distrax's and TFP's
# `dist.sample(seed=key)`, equinox layers' `key=`), or as the first argument of these
# methods (numpyro's `dist.sample(key)` and `mcmc.run(key, ...)`), and of a method named
# `sample_...` (openpi's `model.sample_actions(rng, obs)`). Not `init`: flax's
# `model.init(key, x)` derives its keys with `fold_in`, which JAX's key-reuse checker does
# not count as using the key up.
_KEY_KEYWORDS = words("seed key rng rng_key prng_key")
_KEY_METHODS = words("sample run")
# Functions and methods whose `key=` is a function (`sorted`, `heapq.nlargest`, `list.sort`).
_KEY_FUNCTIONS = words("sorted sort min max nsmallest nlargest groupby")
# Modules whose `sample`, `seed=` and `key=` are not JAX keys (`random.sample(keys, 2)`);
# `jax.random` itself is read by `consumer`.
_NOT_KEY_MODULES = words("jax random numpy torch tensorflow builtins")
# The last word of the names keys go by (`key`, `rng_key`, `act_key`, `subkey`, `rng2`).
_KEY_WORDS = words("key keys rng rngs subkey prng rngkey prngkey")
# `rng_<use>` is a key, unless the rest says it names something about keys (`rng_seed`,
# flax's `rng_names`); `key_<...>` is not, attention's `key_dim` and `key_padding_mask` are not.
_RNG_HEADS = words("rng prng")
_NOT_KEY_TAILS = words("seed seeds name names collection collections stream streams")


def looks_like_key(name: str) -> bool:
    """Tell whether a name (or followed key expression) is spelled like a PRNG key."""
    base = name.split("[", 1)[0].rsplit(".", 1)[-1].lower()
    head, _, tail = base.rpartition("_")
    if head and (len(tail) == 1 or tail.isdigit()):
        base = head  # an index or counter suffix: `key_i`, `rng_t`, `key_0`
    first, _, rest = base.partition("_")
    last = base.rsplit("_", 1)[-1].rstrip("0123456789")
    if first in _RNG_HEADS and rest and last not in _NOT_KEY_TAILS:
        return True  # a key named for its use: `rng_agent`, `rng_env`, `prng_dropout`
    return last in _KEY_WORDS or (base[:1] == "k" and base[1:].isdigit())


def library_consumer(call: cst.Call, ctx: RuleContext, *, spelled: bool = True) -> str | None:
    """Return the key a library call draws from: one spelled like a key (any name, when
    not ``spelled``: the caller knows it holds a key), given by keyword or where the
    library's API takes its key. A call of project code is left to `helper_consumer`,
    which reads what the function does."""
    given: cst.BaseExpression | None = None
    haiku_init = False
    q = ctx.qualname(call.func)
    for a in call.args:
        if a.keyword is not None and a.keyword.value in _KEY_KEYWORDS:
            given = a.value
            break
    else:
        if (
            type(call.func) is cst.Attribute
            and (call.func.attr.value in _KEY_METHODS or call.func.attr.value.startswith("sample_"))
            and call.args
            and call.args[0].keyword is None
            and call.args[0].star == ""
        ):
            given = call.args[0].value
        elif (
            type(call.func) is cst.Name
            and call.args
            and call.args[0].keyword is None
            and call.args[0].star == ""
            and _keyed_callable(call.func, ctx)
        ):
            given = call.args[0].value  # `predictive(rng_key, x)`, a numpyro Predictive
        elif (
            type(call.func) is cst.Attribute
            and call.func.attr.value == "init"
            and call.args
            and call.args[0].keyword is None
            and call.args[0].star == ""
            and _haiku_transformed(call.func.value, ctx)
        ):
            # haiku's `net.init(rng, x)`: `hk.next_rng_key()` splits the key for every
            # initializer (flax's `model.init` folds the key in, which uses nothing up)
            given = call.args[0].value
            haiku_init = True
        elif type(call.func) is cst.Attribute and _applies(call.func, ctx):
            # haiku's `f.apply(params, rng, x)` / `(params, state, rng, x)`: the key among
            # the positional arguments, spelled as one
            for a in call.args:
                if a.keyword is not None or a.star:
                    break
                name = key_name(a.value)
                if name is not None and looks_like_key(name):
                    given = a.value
                    break
            if given is None:
                # flax's `model.apply(params, x, rngs={"dropout": key})`: dropout masks
                # derived from the key given, the same masks for the same key
                given = next(
                    (
                        v
                        for a in call.args
                        if a.keyword is not None
                        and a.keyword.value == "rngs"
                        and type(a.value) is cst.Dict
                        for v in _streams(call)
                    ),
                    None,
                )
    name = None if given is None else key_name(given)
    if name is None or (spelled and not looks_like_key(name)):
        return None
    callee = q or (call.func.attr.value if isinstance(call.func, cst.Attribute) else "")
    if callee.partition(".")[0] in _NOT_KEY_MODULES or callee.rsplit(".", 1)[-1] in _KEY_FUNCTIONS:
        return None  # `jax.random` is read by `consumer`; `xs.sort(key=...)` takes a function
    if type(call.func) is cst.Name and call.func.value in _stax_applies_ignoring_rng(ctx):
        return None
    applies = isinstance(call.func, cst.Attribute) and _applies(call.func, ctx)
    if not (applies or haiku_init) and ctx.resolve_function(call.func) is not None:
        return None  # (haiku's `f.apply` resolves to the function it transformed, which
        # draws from the key through `hk.next_rng_key()`, not a parameter)
    if _stores_key(call, callee, ctx):
        return None
    return name


# stax's layers whose apply function draws from its `rng=`: `Dropout`, and the combinators
# that hand it (split) to their layers. Every other layer takes `**kwargs` and ignores it.
_STAX_MODULES = ("jax.example_libraries.stax.", "jax.experimental.stax.")
_STAX_KEYED = words("Dropout serial parallel shape_dependent")


def _stax_applies_ignoring_rng(ctx: RuleContext) -> frozenset[str]:
    """Return the names the module binds to the apply function of a stax layer that ignores
    its `rng=` (`relu_init, relu_fun = stax.Relu`, `init, apply = Dense(10)`), once per
    module."""

    def find() -> frozenset[str]:
        if not ctx.mentions("stax"):
            return frozenset()
        out: set[str] = set()
        for node in statements(ctx.module):
            if type(node) is not cst.Assign or len(node.targets) != 1:
                continue
            target, value = node.targets[0].target, node.value
            if not isinstance(target, cst.Tuple | cst.List) or len(target.elements) != 2:
                continue
            apply = target.elements[1].value
            layer = value.func if type(value) is cst.Call else value
            q = ctx.qualname(layer) or ""
            if (
                type(apply) is cst.Name
                and q.startswith(_STAX_MODULES)
                and q.rsplit(".", 1)[-1] not in _STAX_KEYED
            ):
                out.add(apply.value)
        return frozenset(out)

    found: frozenset[str] = state(ctx, "JIT502.stax-plain", find)
    return found


# Library classes whose instances are called with a key first.
_KEYED_CALLABLES = frozenset({"numpyro.infer.Predictive", "numpyro.infer.util.Predictive"})


def _keyed_callable(func: cst.Name, ctx: RuleContext, scope: cst.FunctionDef | None = None) -> bool:
    """Tell whether the scope (the one walked, or ``scope``) binds ``func`` once, to an
    instance of a library class called with a key first (`predictive = Predictive(...)`)."""
    if not ctx.mentions("Predictive"):
        return False  # (the text first)
    bindings = assigned_values(ctx) if scope is None else scope_assignments(scope)
    values = bindings.get(func.value)
    return (
        values is not None
        and len(values) == 1
        and type(values[0]) is cst.Call
        and ctx.qualname(values[0].func) in _KEYED_CALLABLES
    )


# haiku's transforms (`multi_transform` too), whose products' `init(rng, ...)` split the key.
_HAIKU_TRANSFORMS = HAIKU_TRANSFORMS | {"haiku.multi_transform"}


def _haiku_transformed(value: cst.BaseExpression, ctx: RuleContext) -> bool:
    """Tell whether ``value`` is a name bound once (in the scope walked, else at module
    level) to a haiku transform's product (`net = hk.transform(forward)`, also through
    `hk.without_apply_rng`)."""
    if type(value) is not cst.Name or not ctx.mentions("transform"):
        return False
    found = visible_values(value.value, ctx)
    if found is None or len(found) != 1 or type(found[0]) is not cst.Call:
        return False
    made = found[0]
    if ctx.qualname(made.func) == "haiku.without_apply_rng" and made.args:
        inner = made.args[0].value
        if type(inner) is not cst.Call:
            return (
                type(inner) is cst.Name
                and inner.value != value.value
                and _haiku_transformed(inner, ctx)
            )
        made = inner
    if ctx.qualname(made.func) in _HAIKU_TRANSFORMS:
        return True
    # `mlp = make_forward(MLP)` of a factory of the module that returns `hk.transform(_f)`
    factory = ctx.resolve_function(made.func)
    if factory is None or factory.is_method or not factory.defined_here:
        return False
    returned = [r.value for r in return_statements(factory.fn)]
    return bool(returned) and all(
        type(r) is cst.Call and ctx.qualname(r.func) in _HAIKU_TRANSFORMS for r in returned
    )


def _applies(func: cst.BaseExpression, ctx: RuleContext) -> bool:
    """Tell whether ``func`` is a transformed function's `apply`: `net.apply`, or the
    `apply_fn` of a train state the scope (or the module) builds once around a haiku
    transform's (`trainer = TrainState.create(apply_fn=net.apply, ...)`, then
    `trainer.apply_fn(params, rng, x)`)."""
    if type(func) is not cst.Attribute:
        return False
    if func.attr.value == "apply":
        return True
    if func.attr.value != "apply_fn" or type(func.value) is not cst.Name:
        return False
    name = func.value.value
    found = visible_values(name, ctx)
    if found is None or len(found) != 1 or type(found[0]) is not cst.Call:
        return False
    stored = next(
        (a.value for a in found[0].args if a.keyword is not None and a.keyword.value == "apply_fn"),
        None,
    )
    return (
        type(stored) is cst.Attribute
        and stored.attr.value == "apply"
        and _haiku_transformed(stored.value, ctx)
    )


def _stores_key(call: cst.Call, callee: str, ctx: RuleContext) -> bool:
    """Tell whether ``call`` builds or updates a record holding the key it is given rather
    than drawing from it: `State(obs=obs, key=key)` of a project class that defines no
    `__init__` (a NamedTuple, a dataclass, a pytree record), `state.replace(key=key)`,
    `state._replace(rng=rng)`. A class with its own `__init__` may draw from it
    (`MLP(3, key=key)` of an equinox module), and so may a class jitlint cannot read."""
    if callee.rsplit(".", 1)[-1] in {"replace", "_replace"}:
        return True
    cls = ctx.project_class(call.func)
    return cls is not None and not any(
        isinstance(s, cst.FunctionDef) and s.name.value in {"__init__", "__post_init__"}
        for s in cls.body.body
    )


def _flax_rngs(call: cst.Call) -> str | None:
    """Return the key-named value flax's `rngs=` is given (`rngs={"dropout": key}`); not
    the `"params"` stream, which `apply` draws from only to create parameters."""
    for value in _streams(call):
        name = key_name(value)
        if name is not None and looks_like_key(name):
            return name
    return None


def _derived_only(resolved: FunctionTarget, ctx: RuleContext) -> frozenset[str]:
    """Return the parameters of the function ``resolved`` names that it only hands to
    flax's `rngs=` (`model.apply(params, x, rngs={"dropout": rng})`), itself or through
    helpers of the project that do only that: flax folds the key in, which uses nothing
    up, so a split or a draw from it afterwards is no reuse (JAX's checker agrees)."""
    fn = resolved.fn
    cache: dict[int, frozenset[str]] = state(ctx, "JIT502.derived-only", dict)
    if id(fn) in cache:
        return cache[id(fn)]
    cache[id(fn)] = frozenset()  # while it is read: a helper calling itself adds nothing
    params = {p.name.value for p in (*fn.params.posonly_params, *fn.params.params)}
    params |= {p.name.value for p in fn.params.kwonly_params}
    derived: set[str] = set()
    spent: set[str] = set()
    for call in _calls_in(fn.body):
        handed = {
            v.value
            for v in descendants(call)
            if type(v) is cst.Name and v.value in params and v is not call.func
        } - spent
        if not handed:
            continue
        streams = {key_name(v) for v in _streams(call)}
        inner: frozenset[str] = frozenset()
        passed: list[tuple[str, cst.BaseExpression]] = []
        runs = _transformed(call.func, ctx) or _bound_transform(call, ctx) or call.func
        target = ctx.resolve_function(runs)
        if target is not None and target.fn is not fn:
            inner = _derived_only(target, ctx)
            passed = arguments_of(target, call)
        for name in handed:
            to_streams = name in streams and not any(
                a.keyword is None and not a.star and key_name(a.value) == name for a in call.args
            )
            if to_streams or any(p in inner and key_name(g) == name for p, g in passed):
                derived.add(name)
            elif any(key_name(a.value) == name for a in call.args):
                spent.add(name)  # handed to something else, which may draw from it
    cache[id(fn)] = frozenset(derived - spent)
    return cache[id(fn)]


def _given_to_rngs(call: cst.Call, name: str) -> bool:
    """Tell whether ``call`` hands the key ``name`` to flax's `rngs=` only (not also as a
    positional key, as haiku's `apply(params, rng, x)` takes one)."""
    return any(key_name(v) == name for v in _streams(call)) and not any(
        a.keyword is None and not a.star and key_name(a.value) == name for a in call.args
    )


def _streams(call: cst.Call) -> Iterator[cst.BaseExpression]:
    """Yield the keys flax's `rngs=` is given per stream, but the `"params"` one."""
    for a in call.args:
        if a.keyword is None or a.keyword.value != "rngs":
            continue
        for key, value in _values(a.value):
            if not (isinstance(key, cst.SimpleString) and key.raw_value == "params"):
                yield value


def _constant_key(call: cst.Call, ctx: RuleContext) -> bool:
    """Tell whether ``call`` makes a key from a constant seed (`jax.random.key(0)`)."""
    return bool(call.args) and ctx.qualname(call.func) in _KEY_MAKERS and constant_args(call)


def _overwritten_key(fn: cst.FunctionDef, name: str, ctx: RuleContext) -> cst.Assign | None:
    """Return the statement of ``fn``'s own body that first mentions parameter ``name`` when
    it binds ``name`` alone to a key made from a constant seed (`key = PRNGKey(2)`)."""
    if not any(
        type(st) is cst.Assign
        and type(st.value) is cst.Call
        and any(type(t.target) is cst.Name and t.target.value == name for t in st.targets)
        for st in statements(fn.body)
    ):
        return None  # (statements first: no such binding at all)
    for stmt in statements(fn.body):
        if type(stmt) is cst.SimpleStatementLine:
            continue  # (its statements come next)
        if not any(type(n) is cst.Name and n.value == name for n in descendants(stmt)):
            continue
        if (
            type(stmt) is cst.Assign
            and len(stmt.targets) == 1
            and type(stmt.targets[0].target) is cst.Name
            and stmt.targets[0].target.value == name
            and type(stmt.value) is cst.Call
            and _constant_key(stmt.value, ctx)
        ):
            return stmt
        return None
    return None


def _split_again_only(scope: cst.FunctionDef, made: cst.Call, name: str, ctx: RuleContext) -> bool:
    """Tell whether every binding of ``name`` in ``scope`` but `name = made` unpacks a
    split of it (`rng, key = jax.random.split(rng)`)."""
    for st in statements(scope.body):
        if type(st) is not cst.Assign or st.value is made:
            continue
        if not any(name in target_names(t.target) for t in st.targets):
            continue
        value = st.value
        if not (
            type(value) is cst.Call
            and value.args
            and type(value.args[0].value) is cst.Name
            and value.args[0].value.value == name
            and ctx.qualname(value.func) == "jax.random.split"
        ):
            return False
    return True


def _stored_seed_key(call: cst.Call, ctx: RuleContext) -> bool:
    """Tell whether ``call`` makes a key from a seed the object holds unchanged
    (`jax.random.PRNGKey(self.seed)`, `self.seed = seed` only in `__init__`): the same key
    on every call of the method."""
    if ctx.qualname(call.func) not in _KEY_MAKERS or len(call.args) != 1:
        return False
    seed = call.args[0].value
    cls = ctx.enclosing_class
    return (
        cls is not None
        and _is_self_attribute(seed)
        and _bound_only_in_init(cls, cast(cst.Attribute, seed).attr.value, ctx)
    )


def _calls_omitting(
    calls: list[cst.Call], positional: list[str], names: set[str]
) -> list[cst.Call] | None:
    """Return the calls among ``calls`` that give none of the parameters ``names`` (the
    function's ``positional`` ones by position or keyword); None when one of them may pass
    them unseen (`f(*args)`)."""
    omitting = []
    for call in calls:
        passed = passed_to(positional, call)
        if passed is None:
            return None
        if all(param not in names for param, _ in passed):
            omitting.append(call)
    return omitting


def _key_argument(call: cst.Call, name: str) -> cst.BaseExpression | None:
    """Return the argument of ``call`` (or value of a dict it is given) that holds key
    ``name``: where a call spanning lines is reported."""
    for a in call.args:
        for _, value in _values(a.value):
            if key_name(value) == name:
                return value
    return None


def _values(
    expr: cst.BaseExpression,
) -> list[tuple[cst.BaseExpression | None, cst.BaseExpression]]:
    """Return the (key, value) pairs of a dict display, or (None, ``expr``) for anything
    else: what an argument holds that may be a key."""
    if isinstance(expr, cst.Dict):
        return [(el.key, el.value) for el in expr.elements if isinstance(el, cst.DictElement)]
    return [(None, expr)]


def _self_key_to_helper(call: cst.Call, ctx: RuleContext) -> str | None:
    """Return `self.<attr>` when ``call`` hands it to a project function that draws from
    the parameter it binds (`sampling(logits, self.rng, ...)`)."""
    if not any(_is_self_attribute(a.value) for a in call.args if not a.star):
        return None
    # `self.jit_step(self.key)` of a stored `jax.jit(self.step)`, or `jax.jit(self.step)(
    # self.key, ...)` made at the call: either runs the method with these arguments
    func = _jitted_method_attribute(call.func, ctx) or _transformed(call.func, ctx) or call.func
    resolved = ctx.resolve_function(func, needle=b"random")
    if resolved is None:
        return None
    consumed, _, guards = _consumption(resolved, ctx)
    for given in _consumed_arguments(call, resolved, consumed, guards):
        if _is_self_attribute(given):
            return key_name(given)
    return None


def _jitted_method_attribute(
    func: cst.BaseExpression, ctx: RuleContext
) -> cst.BaseExpression | None:
    """Return `self.step` for a call of `self.jit_step`, an attribute the class binds once,
    to a transform of that method (`self.jit_step = jax.jit(self.step)` in `__init__`):
    called, it runs the method with the same arguments."""
    cls = ctx.enclosing_class
    if cls is None or not _is_self_attribute(func):
        return None
    attr = cast(cst.Attribute, func).attr.value
    stores = [v for a, v in self_attribute_stores(cls) if a == attr]
    if len(stores) != 1 or stores[0] is None:
        return None
    made = _transformed(stores[0], ctx)
    return made if made is not None and _is_self_attribute(made) else None


def _static_self_key(name: str, ctx: RuleContext) -> bool:
    """Tell whether `self.<attr>` is a key the class's methods bind once, and `self` is a
    Python object to this trace (a static argument, or closed over by a bound method)."""
    cls = ctx.enclosing_class
    if cls is None:
        return False
    scope = ctx.scope
    spec = ctx.def_spec(scope) if isinstance(scope, cst.FunctionDef) else None
    # (`self` may read as traced after the method stored a tracer in it: its static
    # position in the decorator still says what it was given as)
    if ctx.taint(cst.Name("self")) is not Taint.STATIC and (spec is None or 0 not in spec[0]):
        return False
    attr = name.split(".", 1)[1]
    makers: list[cst.Call] = []
    for node in statements(cls.body):
        targets: list[cst.BaseExpression] = []
        value: cst.BaseExpression | None = None
        if isinstance(node, cst.Assign):
            targets, value = [t.target for t in node.targets], node.value
        elif isinstance(node, cst.AnnAssign | cst.AugAssign):
            targets, value = [node.target], getattr(node, "value", None)
        for t in targets:
            # `self.amp_key, self.phase_key = jax.random.split(key)`: a key each
            parts = [e.value for e in t.elements] if type(t) is cst.Tuple else [t]
            for part in parts:
                if _is_self_attribute(part) and cast(cst.Attribute, part).attr.value == attr:
                    if not isinstance(value, cst.Call) or (
                        part is not t and ctx.qualname(value.func) != "jax.random.split"
                    ):
                        return False
                    makers.append(value)
    return bool(makers) and all(
        ctx.qualname(m.func) in _KEY_MAKERS or ctx.qualname(m.func) == "jax.random.split"
        for m in makers
    )


def _bound_only_in_init(cls: cst.ClassDef, attr: str, ctx: RuleContext) -> bool:
    """Tell whether `self.<attr>` is bound as the object is made (`__init__`, `setup`), or
    is a class attribute bound to a constant-seed key (`key = jr.PRNGKey(1)` in the class
    body, no annotation: not a field any constructor sets), and changed nowhere else: by no
    other method of ``cls``, on no object elsewhere in the module, and the class sets no
    attributes by name (`setattr`, `__dict__`) but as it is made (`for k, v in
    vars(args).items(): setattr(self, k, v)` in `__init__` binds once, too)."""
    if attr in writer_methods(cls, ctx) and not _set_up_once(cls, attr, ctx):
        return False
    if (
        attr not in self_assignments(cls, ctx)
        and attr not in writer_methods(cls, ctx)
        and not _class_key(cls, attr, ctx)
    ):
        return False
    if attr in writes_elsewhere(cls, ctx, in_functions=True):
        return False  # (a script setting it once, `game.key = key(0)`, advances nothing)
    return not any(
        (type(n) is cst.Call and type(n.func) is cst.Name and n.func.value == "setattr")
        or (type(n) is cst.Attribute and n.attr.value == "__dict__")
        for stmt in cls.body.body
        if not (isinstance(stmt, cst.FunctionDef) and stmt.name.value in SETUP_METHODS)
        for n in descendants(stmt)
    )


# An attribute named as the object's seed: a key kept to make every call start alike.
_SEED_ATTRIBUTE = re.compile(r"_*(seed|random_state|rng_seed)", re.IGNORECASE)


def _set_up_once(cls: cst.ClassDef, attr: str, ctx: RuleContext) -> bool:
    """Tell whether every method of ``cls`` that binds `self.<attr>` outside a constructor
    is one the module's top-level code runs, and never repeatedly (`game.setup_jit()`):
    it sets the object up once, as `__init__` would."""
    methods = {
        m.name.value: m for m in suite_statements(cls.body) if isinstance(m, cst.FunctionDef)
    }
    writers = writer_methods(cls, ctx).get(attr, set())
    return bool(writers) and all(
        w in methods and runs_once_eagerly(ctx, methods[w]) for w in writers
    )


def _earlier_consumer(
    cls: cst.ClassDef, method: cst.FunctionDef, name: str, ctx: RuleContext
) -> str | None:
    """Return the name of a method defined before ``method`` in ``cls`` (not a constructor)
    that draws from the key `self.<attr>` ``name`` is, directly or by handing it to a
    sampler of a library (`self.mcmc.run(self.rng_key_)`): a key nothing advances, drawn
    from by two methods of one object, gives both the same numbers (numgp's NutsHandler)."""
    for stmt in cls.body.body:
        if stmt is method:
            return None
        if not isinstance(stmt, cst.FunctionDef) or stmt.name.value in SETUP_METHODS:
            continue
        for n in descendants(stmt.body):
            if type(n) is not cst.Call or not any(key_name(a.value) == name for a in n.args):
                continue  # (most calls are not handed the key)
            if (consumer(n, ctx) or library_consumer(n, ctx)) == name or (
                type(n.func) is cst.Name
                and n.args
                and key_name(n.args[0].value) == name
                and _keyed_callable(n.func, ctx, stmt)
            ):
                return stmt.name.value
    return None


def _class_key(cls: cst.ClassDef, attr: str, ctx: RuleContext) -> bool:
    """Tell whether the body of ``cls`` binds ``attr``, without an annotation, to a key made
    from a constant seed: one key, shared by every instance."""
    values = scope_assignments(cls).get(attr)
    return (
        values is not None
        and len(values) == 1
        and type(values[0]) is cst.Call
        and _constant_key(values[0], ctx)
        and not any(
            type(s) is cst.AnnAssign and type(s.target) is cst.Name and s.target.value == attr
            for line in suite_statements(cls.body)
            if type(line) is cst.SimpleStatementLine
            for s in line.body
        )
    )


_NUMPYRO_SAMPLE = frozenset({"numpyro.sample", "numpyro.primitives.sample"})


def _numpyro_model(fn: cst.FunctionDef, ctx: RuleContext) -> bool:
    """Tell whether ``fn`` is a numpyro model: its own body (not a nested function's) calls
    `numpyro.sample`. Once per function."""
    cache: dict[int, bool] = state(ctx, "JIT502.models", dict)
    if id(fn) not in cache:
        cache[id(fn)] = any(ctx.qualname(c.func) in _NUMPYRO_SAMPLE for c in _calls_in(fn.body))
    return cache[id(fn)]


def _is_self(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "self"


def _is_self_attribute(expr: cst.BaseExpression) -> bool:
    return type(expr) is cst.Attribute and _is_self(expr.value)


def _may_change_self(call: cst.Call, ctx: RuleContext) -> bool:
    """Tell whether ``call`` may rebind attributes of `self`: a method of `self` (unless
    its class defines it and it evidently stores no key on `self`), or a function given
    `self`."""
    if any(_is_self(a.value) for a in call.args):
        return True
    if not (isinstance(call.func, cst.Attribute) and _is_self(call.func.value)):
        return False
    resolved = ctx.resolve_function(call.func)
    if resolved is None:
        # `self.criterion(reward)`: an object the class stored (`self.criterion =
        # criterion`), not a method of it, changes `self` only if given it
        return not _stored_callable(call.func.attr.value, ctx)
    if not resolved.is_method:
        # a function the object holds (`self._propose = jax.jit(_propose)`), not given
        # `self`: it changes `self` only through a `self` it closes over
        return isinstance(resolved.fn, cst.Lambda) or any(
            type(n) is cst.Name and n.value == "self" for n in descendants(resolved.fn.body)
        )
    cache: dict[int, bool] = state(ctx, "JIT502.self-writers", dict)
    fn = resolved.fn
    if id(fn) not in cache:
        cache[id(fn)] = True  # while it is read: a method calling itself back may store one
        cache[id(fn)] = _stores_self_key(fn, ctx)
    return cache[id(fn)]


def _constructor_leaves_used(init: cst.FunctionDef, ctx: RuleContext) -> dict[str, cst.Call]:
    """The key attributes `__init__` leaves used: those its own walk left used, or that a
    method it calls on `self` (`self.state = self.init_state()`, read before it) leaves
    used, not stored anew by a later statement of `__init__`."""
    summaries: dict[int, dict[str, cst.Call]] = state(ctx, "JIT502.leaves-used", dict)
    left = dict(summaries.get(id(init), {}))
    statements_ = list(suite_statements(init.body))
    for k, st in enumerate(statements_):
        for call in _calls_in(st):
            func = call.func
            if not (type(func) is cst.Attribute and _is_self(func.value)):
                continue
            resolved = ctx.resolve_function(func)
            if resolved is None or not resolved.is_method:
                continue
            later = {  # what the rest of `__init__` stores on `self` anew
                t.attr.value
                for rest in statements_[k + 1 :]
                for small in statements(rest)
                for t in changed_attributes(small)
                if _is_self(t.value)
            }
            for name, used in summaries.get(id(resolved.fn), {}).items():
                if name.removeprefix("self.") not in later:
                    left.setdefault(name, used)
    return left


def _bare(text: str) -> str:
    """``text`` without comments and whitespace: a statement written again word for word,
    however it is laid out or annotated (`# noqa`, a label inside a call spanning lines)."""
    return re.sub(r"\s+", "", re.sub(r"#[^\n]*", "", text))


def _made_keys(ctx: RuleContext) -> frozenset[str]:
    """The names the scope walked binds only to keys: every binding is the result of
    `jax.random.split`, `fold_in` or a key maker, or one of the names it unpacks into
    (`key_decoding, key_questions = jax.random.split(key)`). Once per scope."""
    cache: dict[int, frozenset[str]] = state(ctx, "JIT502.made-keys", dict)
    scope = ctx.scope
    if id(scope) not in cache:
        keys: set[str] = set()
        other: set[str] = set()
        body = scope.body if isinstance(scope, cst.FunctionDef) else scope
        for n in statements(body):
            if type(n) is not cst.Assign:
                continue
            value = n.value
            makes = type(value) is cst.Call and ctx.qualname(value.func) in _MODULE_KEY_MAKERS
            for t in n.targets:
                names = target_names(t.target)
                (keys if makes else other).update(names)
        cache[id(scope)] = frozenset(keys - other)
    return cache[id(scope)]


def _stored_callable(attr: str, ctx: RuleContext) -> bool:
    """Tell whether `self.<attr>` is an object the class stores on `self` and defines no
    method of that name for (the class's own methods; with bases outside the module, a
    library's method could share the name only if nothing stores it)."""
    cls = ctx.self_class()
    if cls is None:
        return False
    stored: dict[int, frozenset[str]] = state(ctx, "JIT502.stored-attributes", dict)
    if id(cls) not in stored:
        stores: set[str] = set()
        methods: set[str] = set()
        classes = {c.name.value: c for c in ctx.module.body if type(c) is cst.ClassDef}
        for c in (cls, *module_bases(cls, classes)):  # and its bases this module defines
            methods.update(
                m.name.value for m in suite_statements(c.body) if type(m) is cst.FunctionDef
            )
            stores.update(a for a, _ in self_attribute_stores(c))
        stored[id(cls)] = frozenset(stores - methods)
    return attr in stored[id(cls)]


def _stores_self_key(fn: cst.FunctionDef, ctx: RuleContext) -> bool:
    """Tell whether method ``fn`` may bind a key-named attribute of `self`: assigns one,
    calls `setattr`, or calls a method of `self` that may."""
    for n in descendants(fn.body):
        kind = type(n)
        if kind is cst.Assign or kind is cst.AugAssign or kind is cst.AnnAssign:
            targets = (
                [t.target for t in cast(cst.Assign, n).targets]
                if kind is cst.Assign
                else [cast(cst.AugAssign | cst.AnnAssign, n).target]
            )
            for target in targets:
                if any(
                    type(t) is cst.Attribute and _is_self(t.value) and looks_like_key(t.attr.value)
                    for t in (target, *descendants(target))
                ):
                    return True
        elif kind is cst.Call:
            call = cast(cst.Call, n)
            if type(call.func) is cst.Name and call.func.value == "setattr":
                return True
            if _may_change_self(call, ctx):
                return True
    return False


def _is_sampler(q: str | None) -> bool:
    return (
        q is not None
        and q.startswith("jax.random.")
        and q.count(".") == 2
        and q.rsplit(".", 1)[-1] not in _NOT_CONSUMING
    )


def helper_consumer(
    call: cst.Call,
    ctx: RuleContext,
    func: cst.BaseExpression | None = None,
    *,
    spelled: bool = True,
) -> str | None:
    """Return the key a same-module helper consumes when ``call`` passes it one.

    A helper consumes a parameter when its body hands that parameter, before rebinding it,
    straight to a `jax.random` sampler or `split`. ``func``: the function ``call`` runs,
    when its callee wraps it (`jax.value_and_grad(loss)(params, key)`). ``spelled``: only
    keys spelled like one are looked for (not when the caller knows a name holds a key).
    """
    global_keys = _module_keys(ctx)
    if (
        spelled
        and not global_keys
        and not any(
            (name := key_name(a.value)) is not None and looks_like_key(name) for a in call.args
        )
    ):
        return None  # keys are handed over by name (`self.rng_key`, `keys[0]` too), or read
        # from the module
    # Another module is read only if it can sample at all.
    resolved = ctx.resolve_function(call.func if func is None else func, needle=b"random")
    if resolved is None and func is None:
        resolved = _flax_init_call(call, ctx)
    if resolved is None:
        return None
    consumed, free, guards = _consumption(resolved, ctx)
    if resolved.defined_here:
        # `key = jax.random.key(0)` at module level and `def f(): return bits(key)`: every
        # call of f draws from the same global key (jax#20704); a jitted f also where it
        # draws (`_closed_over_key`).
        for free_name in sorted(free & global_keys):
            if ctx.is_module_global(free_name):
                return free_name
    for given in _consumed_arguments(call, resolved, consumed, guards):
        name = key_name(given)  # `key`, `self.rng_key`, or an element `keys[0]`
        if name is not None:
            return name
    return None


def _flax_init_call(call: cst.Call, ctx: RuleContext) -> FunctionTarget | None:
    """Resolve `model.init(key, x, z_rng)` of a flax module to the `__call__` it runs with
    the arguments after the key, as `model.apply(variables, x, z_rng)` runs it."""
    func = call.func
    if type(func) is not cst.Attribute or func.attr.value not in ("init", "init_with_output"):
        return None
    found = ctx.resolve_function(func.with_changes(attr=cst.Name("apply")), needle=b"random")
    return found if found is not None and found.skip == 1 else None  # a flax module's


# A condition on the parameters: (parameter, value it must have), all of them true.
_Guard = frozenset[tuple[str, bool]]
# What a function does with keys: the parameters it draws from, the outer names it draws
# from, and for a parameter it draws from only under flags (`if training:`), those guards.
_Consumed = tuple[frozenset[str], frozenset[str], dict[str, frozenset[_Guard]]]
_NOTHING: _Consumed = (frozenset(), frozenset(), {})


def _consumption(resolved: FunctionTarget, ctx: RuleContext) -> _Consumed:
    """Return what `_consumed_params` says of the function ``resolved`` names, once per
    function."""
    fn = resolved.fn
    cache: dict[int, _Consumed] = state(ctx, "JIT502.helpers", dict)
    if id(fn) not in cache:
        cache[id(fn)] = _NOTHING  # while it is read: a helper calling itself draws nothing more
        # A module draws from `jax.random` only through a name its text spells with
        # "random" (`jax.random.normal`, `import jax.random as jr`, `from jax import random`),
        # or hands keys to flax's `apply(..., rngs={...})`.
        samples = ctx.mentions("random", resolved) or ctx.mentions("rngs", resolved)
        cache[id(fn)] = _consumed_params(fn, resolved, ctx) if samples else _NOTHING
    return cache[id(fn)]


def _consumed_arguments(
    call: cst.Call,
    resolved: FunctionTarget,
    consumed: frozenset[str],
    guards: dict[str, frozenset[_Guard]],
) -> list[cst.BaseExpression]:
    """Return what ``call`` passes to the parameters in ``consumed`` of the function it runs:
    those it draws from under a flag only when the call may set the flag so
    (`forward(params, x, key, training=False)` draws nothing from `key`)."""
    if not consumed:
        return []
    fn = resolved.fn
    passed = arguments_of(resolved, call)
    if guards:
        flags = _flag_values(fn, dict(passed))
        consumed = frozenset(
            name
            for name in consumed
            if name not in guards
            or any(all(flags.get(p, want) == want for p, want in g) for g in guards[name])
        )
    return [given for name, given in passed if name in consumed]


def _flag_values(fn: cst.FunctionDef, passed: dict[str, cst.BaseExpression]) -> dict[str, bool]:
    """Return the parameters a call sets to `True`/`False`, by argument or by default."""
    values: dict[str, bool] = {}
    for p in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params):
        given = passed.get(p.name.value, p.default)
        if type(given) is cst.Name and given.value in ("True", "False"):
            values[p.name.value] = given.value == "True"
    return values


def _guard_of(test: cst.BaseExpression, params: set[str]) -> _Guard | None:
    """Return the flags ``test`` requires (`training`, `not deterministic`, `a and b`), or
    None when it is something else."""
    if type(test) is cst.Name:
        return frozenset({(test.value, True)}) if test.value in params else None
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        inner = test.expression
        if type(inner) is cst.Name and inner.value in params:
            return frozenset({(inner.value, False)})
        return None
    if type(test) is cst.BooleanOperation and type(test.operator) is cst.And:
        left = _guard_of(test.left, params) or frozenset()
        return left | (_guard_of(test.right, params) or frozenset()) or None
    return None


def _negated(guard: _Guard | None) -> _Guard | None:
    """Return what the `else` of a test on one flag requires."""
    if guard is None or len(guard) != 1:
        return None
    ((name, want),) = guard
    return frozenset({(name, not want)})


def _transformed(expr: cst.BaseExpression, ctx: RuleContext) -> cst.BaseExpression | None:
    """Return ``f`` when ``expr`` is a transform of it (`jax.value_and_grad(f)`,
    `eqx.filter_jit(f)`, `jax.pmap(partial(f, lr=lr))`): called, it runs ``f`` with the
    same arguments (a `partial` that binds keywords only leaves the positions alone)."""
    if (
        isinstance(expr, cst.Call)
        and expr.args
        and expr.args[0].keyword is None
        and expr.args[0].star == ""
        and ctx.transform(expr.func) is not None
    ):
        inner = expr.args[0].value
        if (
            isinstance(inner, cst.Call)
            and inner.args
            and ctx.qualname(inner.func) == "functools.partial"
            and inner.args[0].keyword is None
            and inner.args[0].star == ""
            and all(a.keyword is not None for a in inner.args[1:])
        ):
            return inner.args[0].value
        return _transformed(inner, ctx) or inner
    return None


def _bound_once(
    func: cst.BaseExpression, bindings: dict[str, list[cst.BaseExpression]]
) -> cst.BaseExpression:
    """Return what a function binds the name ``func`` to when it binds it once (`grad_fn =
    jax.value_and_grad(loss)`, then `grad_fn(params, rng)`), else ``func``; ``bindings``:
    the function's assignments."""
    if type(func) is not cst.Name:
        return func
    values = bindings.get(func.value)
    return values[0] if values and len(values) == 1 and values[0] is not None else func


# A record's methods that hand back a copy with the fields they are given replaced: flax's
# `replace` (and a train state's `apply_gradients`, which replaces step, params and
# optimizer state only), a NamedTuple's `_replace`.
_RECORD_COPIES = words("replace _replace apply_gradients")


def _key_field(expr: cst.BaseExpression, param: str) -> str | None:
    """Return the field of ``param`` that ``expr`` reads a key from (`state.rng`, or an
    element of it, `state.rngs[0]`), if it is spelled like a key."""
    if type(expr) is cst.Subscript:
        expr = expr.value
    if (
        type(expr) is cst.Attribute
        and type(expr.value) is cst.Name
        and expr.value.value == param
        and looks_like_key(expr.attr.value)
    ):
        return expr.attr.value
    return None


def _kept_copy(value: cst.BaseExpression, kept: set[str], field: str, ctx: RuleContext) -> bool:
    """Tell whether ``value`` is a record ``kept`` names, or a copy of one made without a
    new ``field`` (`state.apply_gradients(grads=g)`, `state.replace(params=p)`)."""
    if type(value) is cst.Name:
        return value.value in kept
    if type(value) is not cst.Call:
        return False
    func = value.func
    if type(func) is cst.Attribute and func.attr.value in _RECORD_COPIES:
        source = func.value
    elif ctx.qualname(func) == "dataclasses.replace" and value.args:
        source = value.args[0].value
    else:
        return False
    return _kept_copy(source, kept, field, ctx) and not any(
        a.star == "**" or (a.keyword is not None and a.keyword.value == field) for a in value.args
    )


def _handed_back_with_key(
    fn: cst.FunctionDef, param: str, field: str, ctx: RuleContext
) -> frozenset[int | None]:
    """Return where ``fn`` returns its record parameter ``param`` with the same ``field``
    (None: the whole return value; an index: that element of the tuple it returns); empty
    when some return hands back anything else. A copy made with the field replaced, or a
    name rebound to something else, is not the same record."""
    kept = {param}
    for node in own_statements(fn):
        if type(node) is cst.Assign:
            same = _kept_copy(node.value, kept, field, ctx)
            for t in node.targets:
                for name in target_names(t.target):
                    if same and type(t.target) is cst.Name:
                        kept.add(name)
                    else:
                        kept.discard(name)
        elif isinstance(node, cst.AugAssign | cst.AnnAssign | cst.For):
            kept.difference_update(target_names(node.target))
    found: set[int | None] = set()
    for ret in return_statements(fn):
        value = ret.value
        if value is None:
            return frozenset()
        if _kept_copy(value, kept, field, ctx):
            found.add(None)
        elif type(value) is cst.Tuple:
            hits = [
                i for i, el in enumerate(value.elements) if _kept_copy(el.value, kept, field, ctx)
            ]
            if not hits:
                return frozenset()
            found.update(hits)
        else:
            return frozenset()
    return frozenset(found)


def _field_draws(
    fn: cst.FunctionDef, param: str, ctx: RuleContext
) -> list[tuple[cst.BaseExpression, str]]:
    """Return where ``fn`` (or a function it defines) draws from a key field of its
    parameter ``param``, with that field: a key given to a sampler or `split`, or to a call
    as `key=`/`rng=`/`rngs=` (`state.apply_fn(..., rngs={"dropout": state.rng})`).
    `fold_in(state.rng, state.step)` derives a new key per step, and is no draw."""
    out: list[tuple[cst.BaseExpression, str]] = []
    for call in descendants(fn.body):
        if type(call) is not cst.Call:
            continue
        sampler = _is_sampler(ctx.qualname(call.func))
        for k, a in enumerate(call.args):
            by_keyword = a.keyword is not None and (
                a.keyword.value in _KEY_KEYWORDS or a.keyword.value == "rngs"
            )
            if not (by_keyword or (sampler and (k == 0 or a.keyword is not None))):
                continue
            for _, value in _values(a.value):
                field = _key_field(value, param)
                if field is not None:
                    out.append((value, field))
    return out


def _assigned_calls_in_loops(node: cst.CSTNode, looped: bool = False) -> Iterator[cst.Assign]:
    """Yield the assignments of a call's result that loops of ``node``'s own body hold
    (`state = train_step(state, batch)`), not those of the functions and classes it
    defines."""
    for child in statement_children(node):
        kind = type(child)
        if kind is cst.FunctionDef or kind is cst.ClassDef:
            continue
        if kind is cst.SimpleStatementLine or kind is cst.SimpleStatementSuite:
            if looped:
                for small in cast(cst.SimpleStatementLine | cst.SimpleStatementSuite, child).body:
                    if type(small) is cst.Assign and type(small.value) is cst.Call:
                        yield small
            continue
        yield from _assigned_calls_in_loops(child, looped or kind is cst.For or kind is cst.While)


def _bound_transform(call: cst.Call, ctx: RuleContext) -> cst.BaseExpression | None:
    """Return ``f`` for a call of a transform of ``f`` (`jax.grad(loss)(params, key)`), or
    of a name the scope binds once, to a transform of ``f`` (`step = jax.jit(train_step)`,
    then `step(key, state)`), or to a method of an object (`encode = vae.encode`)."""
    if type(call.func) is cst.Call:
        return _transformed(call.func, ctx)
    if type(call.func) is not cst.Name:
        return None
    bound = _bound_once(call.func, assigned_values(ctx))
    if type(bound) is cst.Attribute and type(bound.value) is cst.Name:
        return bound  # `encode = vae.encode`, then `encode(key, x)`: the method runs
    return _transformed(bound, ctx)


def _periodic(test: cst.BaseExpression) -> bool:
    """Tell whether ``test`` holds every so many passes of a loop (`step % every == 0`)."""
    return any(
        type(n) is cst.BinaryOperation and type(n.operator) is cst.Modulo for n in descendants(test)
    )


def _stores_self(name: str, ctx: RuleContext) -> bool:
    """Tell whether the function walked assigns `self.<attr>` of ``name`` (`self.key, sub =
    split(self.key)`): the split it stores back is JIT202's leaked tracer."""
    attr = name.removeprefix("self.")
    return any(
        type(t) is cst.Attribute and _is_self(t.value) and t.attr.value == attr
        for stmt in descendants(ctx.scope)
        if type(stmt) is cst.Assign
        for target in stmt.targets
        for t in descendants(target.target)
    )


def _root(name: str) -> str:
    return name.split("[", 1)[0].split(".", 1)[0]


def _carried_names(expr: cst.BaseExpression, s: dict[str, Any], depth: int = 0) -> list[str]:
    """Return the names a returned carry holds: itself, inside its tuple, list, dict or
    record, or inside the one such value a name was bound to (`new = {"key": key}`)."""
    if depth > 4:
        return []
    if isinstance(expr, cst.Name):
        built = s.get("built:" + expr.value)
        if isinstance(built, cst.BaseExpression):
            return [expr.value, *_carried_names(built, s, depth + 1)]
        return [expr.value]
    parts: list[cst.BaseExpression] = []
    if isinstance(expr, cst.Tuple | cst.List):
        parts = [el.value for el in expr.elements]
    elif isinstance(expr, cst.Dict):
        parts = [el.value for el in expr.elements if isinstance(el, cst.DictElement)]
    elif _is_record(expr):
        assert isinstance(expr, cst.Call)
        parts = [a.value for a in expr.args if not a.star]
    return [n for part in parts for n in _carried_names(part, s, depth + 1)]


def _is_record(expr: cst.BaseExpression) -> bool:
    """Tell whether ``expr`` builds a record: `ScanState(params, state, rng)`, `dict(...)`."""
    if not isinstance(expr, cst.Call) or not isinstance(expr.func, cst.Name | cst.Attribute):
        return False
    name = expr.func.value if isinstance(expr.func, cst.Name) else expr.func.attr.value
    return name[:1].isupper() or name == "dict"


def _module_keys(ctx: RuleContext) -> frozenset[str]:
    """Return the module-level names bound to a new key (`key = jax.random.key(0)`)."""

    def find() -> frozenset[str]:
        found: set[str] = set()
        for line in ctx.module.body:
            if type(line) is cst.SimpleStatementLine:
                for small in line.body:
                    if (
                        type(small) is cst.Assign
                        and isinstance(small.value, cst.Call)
                        and ctx.import_qualname(small.value.func) in _MODULE_KEY_MAKERS
                    ):
                        found.update(n for t in small.targets for n in target_names(t.target))
        return frozenset(found)

    keys: frozenset[str] = state(ctx, "JIT502.module-keys", find)
    return keys


# Annotations that say a parameter is a key, or a stream of keys (flax's `nnx.Rngs`).
_KEY_HINTS = ("PRNGKey", "KeyArray", "Rngs", "Key")


def _ignored_key_params(fn: cst.FunctionDef, ctx: RuleContext) -> list[str]:
    """Return the parameters of ``fn`` that hold a key (spelled or annotated as one) and
    that its body never reads."""
    found: dict[int, list[str]] = state(ctx, "JIT502.ignored-keys", dict)
    if id(fn) not in found:
        params = [*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params]
        keys = [
            p.name.value
            for p in params
            if looks_like_key(p.name.value)
            or (
                p.annotation is not None
                and any(h in snippet(p.annotation.annotation) for h in _KEY_HINTS)
            )
        ]
        keys = [k for k in keys if not _reads(fn.body, k)]
        found[id(fn)] = keys
    return found[id(fn)]


_MAKER_NAMES = frozenset(q.rsplit(".", 1)[-1] for q in _KEY_MAKERS)


def _calls_in(body: cst.CSTNode) -> list[cst.Call]:
    """Return the calls in ``body``, leaving out the functions and lambdas nested in it."""
    out: list[cst.Call] = []
    stack: list[cst.CSTNode] = [body]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.Lambda or kind is cst.FunctionDef:
            continue
        if kind is cst.Call:
            out.append(cast(cst.Call, node))
        stack.extend(child_nodes(node))
    return out


def _reads(body: cst.CSTNode, name: str) -> bool:
    """Tell whether ``body`` reads ``name``, leaving out the functions and lambdas nested in
    it that take a parameter of that name (`lambda rng, p: bernoulli(rng, p)`)."""
    stack: list[cst.CSTNode] = [body]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.Name:
            if cast(cst.Name, node).value == name:
                return True
            continue
        if (kind is cst.Lambda or kind is cst.FunctionDef) and name in param_names(
            cast(cst.Lambda | cst.FunctionDef, node).params
        ):
            continue
        stack.extend(child_nodes(node))
    return False


def _consumed_params(
    fn: cst.FunctionDef | cst.Lambda,
    target: FunctionTarget,
    ctx: RuleContext,
    *,
    closure: bool = False,
) -> _Consumed:
    """Return the parameters ``fn`` hands to a sampler (or to a helper of the module that
    draws from them) before rebinding them, the names from outside it that it hands to one,
    and the flags its draws from a parameter are all under. None for a generator function:
    calling it runs none of its body, and iterating one again on the same key is how code
    gets the same data twice (a full batch beside its minibatches). With ``closure``, a name
    from outside ``fn`` that a library call or helper draws from counts too (in `free`): a
    local function closing over its maker's key, read by `_closure_draw`."""
    params = {p.name.value for p in (*fn.params.posonly_params, *fn.params.params)}
    params |= {p.name.value for p in fn.params.kwonly_params}
    used: set[str] = set()
    bound: set[str] = set()
    guards: dict[str, set[_Guard]] = {}
    # Source order, parents first; a list on the stack is the names an assignment binds,
    # bound once its value has run (`key, sub = split(key)` draws from the caller's key).
    # Each node comes with the flags it runs under (`if training:`).
    unguarded: _Guard = frozenset()
    bindings: dict[str, list[cst.BaseExpression]] | None = None  # read when first needed
    stack: list[tuple[cst.CSTNode | list[str], _Guard]] = [(fn.body, unguarded)]
    star = fn.params.star_kwarg
    kwargs = star.name.value if isinstance(star, cst.Param) else None
    forwarded = False  # `**kwargs` handed to a library call, which draws from `rng=` in it
    while stack:
        node, guard = stack.pop()
        if isinstance(node, list):
            bound.update(node)
            continue
        kind = type(node)
        if kind is cst.FunctionDef or kind is cst.Lambda:
            continue  # runs when called, not here
        if kind is cst.Yield:
            return _NOTHING
        drawn = None
        if kind is cst.Call:
            assert isinstance(node, cst.Call)
            if (
                kwargs is not None
                and not forwarded
                and any(
                    a.star == "**" and type(a.value) is cst.Name and a.value.value == kwargs
                    for a in node.args
                )
                and ctx.resolve_function(node.func) is None
            ):
                # `model_apply(state, xs, **kwargs)`: a key the caller passes by a key's
                # keyword (`objective(state, xs, ys, rng=rng)`) reaches the library call
                forwarded = True
            # Read through the imports of the helper's own module.
            q = target.import_qualname(node.func) or ctx.import_qualname(node.func)
            key = arg(node, 0, "key") if _is_sampler(q) else None
            if key is not None and isinstance(key.value, cst.Name) and key.value.value not in bound:
                drawn = key.value.value
            elif key is None and target.defined_here:
                # a library call drawing from it (`mcmc.run(rng_key, ...)`, `sample(seed=key)`),
                # or a helper of the module that does (`jax.grad(loss)(params, x, rng)`)
                given = library_consumer(node, ctx)
                if given is None:
                    if type(node.func) is cst.Name and bindings is None:
                        bindings = scope_assignments(fn)
                    func = _bound_once(node.func, bindings) if bindings else node.func
                    given = helper_consumer(node, ctx, _transformed(func, ctx))
                if given is not None and given not in bound and (given in params or closure):
                    drawn = given  # a parameter, or (for `_closure_draw`) a name from outside
                elif given is None:
                    drawn = _closure_draw(node, fn, params, bound, target, ctx) or (
                        _record_carry_draw(node, fn, params, bound, ctx)
                    )
                mode = _mode_flag(node)
                if (
                    drawn is None
                    and mode is not False
                    and _handed_callable(node.func, fn, params, ctx)
                ):
                    # `lambda k: prior(1, dim, k)` with `prior` the caller's function: it
                    # draws from the key it is handed (`model(x, key, is_training=train)`:
                    # when `train` is true)
                    handed = [
                        a.value.value
                        for k, a in enumerate(node.args)
                        if type(a.value) is cst.Name
                        and a.value.value in params
                        and a.value.value not in bound
                        and (a.value.value == "k" or looks_like_key(a.value.value))
                        and not _module_input(node, k)
                    ]
                    if handed:
                        drawn = handed[0]
                        if isinstance(mode, tuple) and mode[0] in params:
                            guard = guard | {mode}
                        for name in handed[1:]:
                            used.add(name)
                            guards.setdefault(name, set()).add(guard)
        elif kind is cst.Assign:
            assert isinstance(node, cst.Assign)
            stack.append(([n for t in node.targets for n in target_names(t.target)], guard))
            stack.append((node.value, guard))
            continue
        elif kind is cst.For:
            assert isinstance(node, cst.For)
            bound.update(target_names(node.target))
        elif (kind is cst.If or kind is cst.IfExp) and params:
            assert isinstance(node, cst.If | cst.IfExp)
            test = _guard_of(node.test, params)
            orelse = _negated(test)
            if node.orelse is not None:
                stack.append((node.orelse, guard | orelse if orelse else guard))
            stack.append((node.body, guard | test if test else guard))
            stack.append((node.test, guard))
            continue
        if drawn is not None:
            used.add(drawn)
            guards.setdefault(drawn, set()).add(guard)
        stack.extend((child, guard) for child in reversed(child_nodes(node)))
    # A lambda binds nothing but its parameters.
    names = scope_names(fn.body if isinstance(fn, cst.FunctionDef) else [], fn.params)
    free = used - names.locals - names.declared_outer
    flagged = {
        name: frozenset(gs) for name, gs in guards.items() if name in params and unguarded not in gs
    }
    through = _KEY_KEYWORDS - params if forwarded else frozenset()
    return frozenset(used & params) | through, frozenset(free), flagged


def _handed_callable(
    func: cst.BaseExpression,
    fn: cst.FunctionDef | cst.Lambda,
    params: set[str],
    ctx: RuleContext,
) -> bool:
    """Tell whether ``func`` is a function ``fn``'s caller hands it: a parameter of ``fn``,
    or of the function walked when ``fn`` is a function it defines (`lambda k: prior(1,
    dim, k)` in `abc(simulator, prior, key)`), that names no function of the project."""
    if type(func) is not cst.Name:
        return False
    name = func.value
    if name not in params:
        scope = ctx.scope
        if (
            not isinstance(scope, cst.FunctionDef | cst.Lambda)
            or scope is fn
            or name not in param_names(scope.params)
            or not any(n is fn for n in descendants(scope))
        ):
            return False
    return ctx.resolve_function(func) is None


# Keywords of a model's call that say whether it samples (dropout): `training=True` does,
# `deterministic=True` does not.
_TRAINING_KEYWORDS = words("training is_training train")
_DETERMINISTIC_KEYWORDS = words("deterministic eval inference")


def _mode_flag(call: cst.Call) -> bool | tuple[str, bool] | None:
    """Say whether ``call`` asks the function it runs to sample, by a training keyword:
    False for `is_training=False` or `deterministic=True`, the flag and the value it needs
    for `training=train` (`("train", True)`), None when no such keyword is given."""
    for a in call.args:
        if a.keyword is None:
            continue
        word = a.keyword.value
        if word not in _TRAINING_KEYWORDS and word not in _DETERMINISTIC_KEYWORDS:
            continue
        wanted = word in _TRAINING_KEYWORDS
        value = a.value
        if type(value) is cst.Name and value.value in ("True", "False"):
            return (value.value == "True") == wanted
        if type(value) is cst.Name:
            return (value.value, wanted)
    return None


def parameter_consumer(call: cst.Call, ctx: RuleContext) -> str | None:
    """Return the key a call of a function the walked function was handed (one of its
    parameters: `sample_fn(key, x)` in `run(sample_fn, key)`) passes it: a function given
    a key draws from it."""
    func = call.func
    scope = ctx.scope
    if (
        type(func) is not cst.Name
        or not isinstance(scope, cst.FunctionDef | cst.Lambda)
        or func.value not in param_names(scope.params)
        or _mode_flag(call) is False
        or ctx.resolve_function(func) is not None
    ):
        return None
    for k, a in enumerate(call.args):
        if a.star:
            return None
        name = key_name(a.value)
        if name is not None and looks_like_key(name) and not _module_input(call, k):
            return name
    return None


# Names train states and models give their apply function.
_APPLY_NAMES = frozenset({"apply", "apply_fn"})


def _module_input(call: cst.Call, index: int) -> bool:
    """Tell whether argument ``index`` of a call of a handed-in apply function is an input
    of a flax module's `__call__` (`apply_fn(params, obs, rng)`), which may ignore it, not
    haiku's key (`apply_fn(params, rng, x)`), which the transform splits."""
    func = call.func
    return type(func) is cst.Name and func.value in _APPLY_NAMES and index != 1


def _closure_draw(
    call: cst.Call,
    fn: cst.FunctionDef | cst.Lambda,
    params: set[str],
    bound: set[str],
    target: FunctionTarget,
    ctx: RuleContext,
) -> str | None:
    """The parameter of ``fn`` that ``call`` draws from by running a function ``fn``
    defines which closes over it: `loss_fn = lambda p: loss(p, x, key=key)`, then
    `jax.value_and_grad(loss_fn)(params)`."""
    if not isinstance(fn, cst.FunctionDef):
        return None
    func = _transformed(call.func, ctx) or call.func
    if type(func) is not cst.Name:
        return None
    inner = _local_functions(fn, ctx).get(func.value)
    if inner is None:
        return None
    _, free, _ = _consumed_params(inner, target, ctx, closure=True)
    return next((name for name in sorted(free) if name in params and name not in bound), None)


def _local_functions(
    fn: cst.FunctionDef, ctx: RuleContext
) -> dict[str, cst.FunctionDef | cst.Lambda]:
    """The functions ``fn`` defines once by name: a nested `def`, or a name bound only to
    a lambda (`loss_fn = lambda p: ...`). Once per function."""
    cache: dict[int, dict[str, cst.FunctionDef | cst.Lambda]] = state(
        ctx, "JIT502.local-functions", dict
    )
    if id(fn) not in cache:
        found: dict[str, cst.FunctionDef | cst.Lambda] = {}
        twice: set[str] = set()  # defined more than once: not followed
        for st in statements(fn.body):
            if type(st) is cst.FunctionDef:
                if st.name.value in found:
                    twice.add(st.name.value)
                found[st.name.value] = st
        for name, values in scope_assignments(fn).items():
            if name not in found and len(values) == 1 and type(values[0]) is cst.Lambda:
                found[name] = values[0]
        cache[id(fn)] = {k: v for k, v in found.items() if k not in twice}
    return cache[id(fn)]


def _record_carry_draw(
    call: cst.Call,
    fn: cst.FunctionDef | cst.Lambda,
    params: set[str],
    bound: set[str],
    ctx: RuleContext,
) -> str | None:
    """The parameter of ``fn`` that ``call``, a `lax` loop, draws from: ``fn`` stores it in
    a record (`state = SamplingState(key=key, ...)`) that it hands the loop as its carry,
    and the body splits or draws from that field (`split(state.key)`), directly or in the
    function a lambda body calls with the carry (`lambda s: _sample_step(s, ...)`)."""
    where = _LOOP_CARRIES.get(ctx.qualname(call.func) or "")
    if where is None or not isinstance(fn, cst.FunctionDef):
        return None
    body_at, carry_at, param_at = where
    body, init = arg(call, *body_at), arg(call, *carry_at)
    if body is None or init is None:
        return None
    bindings = scope_assignments(fn)
    carried: cst.BaseExpression = init.value
    if type(carried) is cst.Name:
        # bound once, or again only to the loop's result (`state = while_loop(c, b, state)`)
        made = [v for v in bindings.get(carried.value, ()) if v is not call]
        if len(made) != 1:
            return None
        carried = made[0]

    def held(value: cst.BaseExpression) -> str | None:
        if type(value) is cst.Name and value.value in params and value.value not in bound:
            return value.value
        return None

    if type(carried) is cst.Tuple or type(carried) is cst.List:
        # `init_val = (rng, x, ...)`, unpacked by the body (`rng_key, x, ... = val`)
        elements = [held(e.value) for e in carried.elements]
        if not any(elements):
            return None
        runs = _carry_function(body.value, param_at, ctx, fn)
        if runs is None or type(runs[0]) is not cst.FunctionDef:
            return None
        looped, carry_param = cast("tuple[cst.FunctionDef, str]", runs)
        unpacked = _unpacked_first(looped, carry_param)
        return next(
            (
                p
                for p, u in zip(elements, unpacked, strict=False)
                if p and u and _first_draw(looped, {u}, ctx) is not None
            ),
            None,
        )
    if type(carried) is not cst.Call:
        return None
    fields = {
        a.keyword.value: name
        for a in carried.args
        if a.keyword is not None and (name := held(a.value)) is not None
    }
    if not fields:
        return None
    runs = _carry_function(body.value, param_at, ctx, fn)
    if runs is None:
        return None
    inner, carry = runs
    for n in descendants(inner.body):
        if type(n) is not cst.Call or not _is_sampler(ctx.qualname(n.func)):
            continue
        key = arg(n, 0, "key")
        if (
            key is not None
            and type(key.value) is cst.Attribute
            and type(key.value.value) is cst.Name
            and key.value.value.value == carry
            and key.value.attr.value in fields
        ):
            return fields[key.value.attr.value]
    return None


def _carry_function(
    body: cst.BaseExpression, position: int, ctx: RuleContext, outer: cst.FunctionDef
) -> tuple[cst.FunctionDef | cst.Lambda, str] | None:
    """The function a loop body runs with the carry, and its parameter that holds it:
    the body itself (a function ``outer`` defines, see `_local_functions`, or one the walk
    resolves), or the function a lambda body calls with its carry parameter."""
    if type(body) is cst.Name:
        local = _local_functions(outer, ctx).get(body.value)
        if type(local) is cst.FunctionDef:
            names = param_names(local.params)
            return (local, names[position]) if position < len(names) else None
        if local is not None:
            body = cast(cst.Lambda, local)  # `step_fn = lambda state: _sample_step(state)`
    if type(body) is cst.Lambda:
        names = param_names(body.params)
        if len(names) <= position or type(body.body) is not cst.Call:
            return None
        carry = names[position]
        call = body.body
        at = next(
            (
                k
                for k, a in enumerate(call.args)
                if a.keyword is None and type(a.value) is cst.Name and a.value.value == carry
            ),
            None,
        )
        resolved = ctx.resolve_function(call.func)
        if at is None or resolved is None or type(resolved.fn) is not cst.FunctionDef:
            return None
        inner_params = param_names(resolved.fn.params)[1 if resolved.is_method else 0 :]
        return (resolved.fn, inner_params[at]) if at < len(inner_params) else None
    resolved = ctx.resolve_function(body)
    if resolved is None or type(resolved.fn) is not cst.FunctionDef:
        return None
    names = param_names(resolved.fn.params)
    return (resolved.fn, names[position]) if position < len(names) else None


def _returned_spent(resolved: FunctionTarget, ctx: RuleContext) -> frozenset[int | None]:
    """Return where ``resolved``'s function hands back a key it has drawn from since it was
    bound: the positions of such names in the tuple it returns (`return params, key, loss`
    after `get_batch(key, data)`), None for a bare `return key`. Once per function."""
    fn = resolved.fn
    cache: dict[int, frozenset[int | None]] = state(ctx, "JIT502.returns", dict)
    if id(fn) in cache:
        return cache[id(fn)]
    cache[id(fn)] = frozenset()  # recursion, and a function that returns no key
    spenders: dict[int, cst.Call] = state(ctx, "JIT502.spenders", dict)
    if not any(
        type(el.value) is cst.Name and looks_like_key(el.value.value)
        for ret in return_statements(fn)
        for el in (
            ret.value.elements
            if type(ret.value) is cst.Tuple
            else [cst.Element(ret.value)]
            if ret.value is not None
            else []
        )
    ):
        return cache[id(fn)]  # keys are handed back by name (`return params, key`)
    spent: dict[str, cst.Call] = {}  # name: the call that drew from it
    found: set[int | None] = set()
    # Source order, parents first; a list on the stack is the names an assignment binds,
    # bound (and so no longer spent) once its value has run; a tuple, a return whose value
    # has run (`return x + normal(key), key` hands back a used key).
    stack: list[cst.CSTNode | list[str] | tuple[cst.Return]] = (
        [fn.body] if ctx.mentions("random", resolved) else []
    )
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            for name in node:
                spent.pop(name, None)
            continue
        if isinstance(node, tuple):
            value = node[0].value
            handed = (
                {None: value}
                if type(value) is cst.Name
                else dict(enumerate(el.value for el in value.elements))
                if type(value) is cst.Tuple
                else {}
            )
            for i, el in handed.items():
                if type(el) is cst.Name and el.value in spent:
                    found.add(i)
                    spenders.setdefault(id(fn), spent[el.value])
            continue
        kind = type(node)
        if kind is cst.FunctionDef or kind is cst.Lambda or kind is cst.ClassDef:
            continue  # runs when called, not here
        if kind is cst.Call:
            assert isinstance(node, cst.Call)
            q = resolved.import_qualname(node.func) or ctx.import_qualname(node.func)
            key = arg(node, 0, "key") if _is_sampler(q) else None
            if key is not None and type(key.value) is cst.Name:
                spent[key.value.value] = node
            elif key is None and resolved.defined_here:
                # a library call or a helper of the module drawing from it
                given = library_consumer(node, ctx) or helper_consumer(node, ctx)
                if given is not None and given.isidentifier():
                    spent[given] = node
        elif kind is cst.Assign:
            assert isinstance(node, cst.Assign)
            stack.append([n for t in node.targets for n in target_names(t.target)])
            stack.append(node.value)
            continue
        elif kind is cst.Return:
            assert isinstance(node, cst.Return)
            stack.append((node,))
        stack.extend(reversed(child_nodes(node)))
    cache[id(fn)] = frozenset(found)
    return cache[id(fn)]


class _KeyFlow(Flow[dict[str, Any]]):
    """Track which names hold a consumed key, and which call consumed it, on some path.

    ``used:<name>`` is the call that consumed the key the name holds; ``tok:<name>`` says
    which key object it holds, so that consuming ``k`` after ``k = key`` marks ``key`` too.
    """

    def __init__(self, rule: PrngKeyReuse, ctx: RuleContext, body: str | None = None) -> None:
        super().__init__()
        self.rule = rule
        self.ctx = ctx
        # The `lax` loop the scope is the body of: a key from outside the body, or one
        # handed back unsplit in its carry, is drawn from again on the next iteration.
        self.body = body
        self.inner: frozenset[str] | None = None  # what the body binds, parameters too
        self._statements: dict[int, cst.BaseSmallStatement | None] = {}  # of each draw
        self._guards: dict[int, tuple[cst.BaseExpression, ...]] = {}  # the `if`s of each draw
        scope = ctx.scope
        if body is not None and isinstance(scope, cst.FunctionDef):
            self.inner = frozenset(scope_names(scope.body, scope.params).locals)
        # A method's first draws from a key attribute it had not rebound yet (the key the
        # call found on `self`), and the states it returns with.
        self._entry_draws: dict[str, cst.Call] = {}
        self._exits: list[dict[str, Any]] = []
        self._rebound: set[str] = set()  # the key attributes it stores anew

    def run(self, scope: cst.CSTNode, s: dict[str, Any]) -> None:
        if self.body is not None or type(scope) is not cst.FunctionDef:
            super().run(scope, s)
            return
        end = self.block(suite_statements(scope.body), s)
        exits = [*self._exits, *([] if end is None else [end])]
        left: dict[str, cst.Call] = {}  # the key attributes it leaves used, by what used them
        for e in exits:
            for k, v in e.items():
                if k.startswith("used:self.") and "[" not in k:
                    left.setdefault(k.removeprefix("used:"), v)
        summaries: dict[int, dict[str, cst.Call]] = state(self.ctx, "JIT502.leaves-used", dict)
        summaries[id(scope)] = left
        self._next_call_reuses(scope, left)
        self._constructed_used(scope)

    def _constructed_used(self, scope: cst.FunctionDef) -> None:
        """`__init__` calls `self.init_state()`, which hands `self.rng` to `init` (whose
        `__call__` draws from it) and does not split it afterwards: every method runs on an
        object built so, and a method's first draw from `self.rng` uses it again (JAX's
        key-reuse checker raises there)."""
        cls = self.ctx.enclosing_class
        if cls is None or scope.name.value in SETUP_METHODS or not self._entry_draws:
            return
        init = next(
            (
                m
                for m in suite_statements(cls.body)
                if type(m) is cst.FunctionDef and m.name.value == "__init__"
            ),
            None,
        )
        if init is None or init is scope:
            return
        if any(
            type(c.func) is cst.Attribute
            and _is_self(c.func.value)
            and c.func.attr.value == scope.name.value
            for c in _calls_in(init.body)
        ):
            return  # a step of the construction itself
        left = _constructor_leaves_used(init, self.ctx)
        for name, first in self._entry_draws.items():
            used = left.get(name)
            if used is not None:
                self.rule.reuse(
                    self.ctx,
                    first,
                    name,
                    used,
                    f"after the constructor left it used (`{snippet(used)}`)",
                )

    def _hands_a_made_key(self, call: cst.Call) -> bool:
        """Tell whether ``call`` is given a name the scope binds only to what `split`,
        `fold_in` or a key maker returns, a key however it is spelled."""
        given = [a.value.value for a in call.args if type(a.value) is cst.Name]
        if not given:
            return False
        made = _made_keys(self.ctx)
        return bool(made) and any(name in made for name in given)

    def _left_used_by(self, func: cst.Attribute) -> list[str]:
        """The key attributes of `self` that the method ``func`` calls leaves used, when
        the walk read that method already (a method defined before its caller)."""
        summaries: dict[int, dict[str, cst.Call]] = state(self.ctx, "JIT502.leaves-used", dict)
        if not summaries:
            return []
        resolved = self.ctx.resolve_function(func)
        if resolved is None or not resolved.is_method:
            return []
        return list(summaries.get(id(resolved.fn), ()))

    def _next_call_reuses(self, scope: cst.FunctionDef, left: dict[str, cst.Call]) -> None:
        """`self.key, sub = split(self.key)`, then `normal(self.key, ...)` (the key kept,
        not `sub`): the method leaves `self.key` used, and its next call splits that key
        again (JAX's key-reuse checker raises at the split). Reported at the method's first
        draw from the key it found, when the method evidently runs more than once."""
        for name, first in self._entry_draws.items():
            used = left.get(name)
            if used is None or used is first or name not in self._rebound:
                continue  # (a key it never advances: `_stored_key`'s "bound once")
            if not runs_repeatedly_eagerly(self.ctx):
                continue
            self.rule.reuse(
                self.ctx,
                first,
                name,
                used,
                f"on the next call of `{scope.name.value}`: the call before left it used "
                f"(`{snippet(used)}`)",
            )

    def join(self, a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
        out = dict(b)
        out.update(a)
        for key in a.keys() & b.keys():
            if key.startswith("tok:") and a[key] != b[key]:
                out[key] = f"{a[key]}|{b[key]}"  # one object or the other: alias of neither
        return out

    def on_call(self, node: cst.Call, s: dict[str, Any]) -> None:
        self._closures_run(node, s)
        if last_name(node.func) in _HANDS_ON_NAMES and any(k.startswith("used:") for k in s):
            # a loop or a branch handed a key this scope already used
            self._carried_into_loop(node, s)
            self._branches_run(node, s)
        followed = [k for k in s if k.startswith("used:self.")]
        if followed and _may_change_self(node, self.ctx):
            for k in followed:
                del s[k]  # `self.key` may hold a new key after `self.refresh()`
        if type(node.func) is cst.Attribute and _is_self(node.func.value):
            for left in self._left_used_by(node.func):
                s["used:" + left] = node  # `self._step()` split `self.key`, then drew from it
                s["bound:" + left] = True
        name = (
            consumer(node, self.ctx)
            or helper_consumer(node, self.ctx, self._wrapped(node.func, s))
            or library_consumer(node, self.ctx)
            or parameter_consumer(node, self.ctx)
        )
        if name is None and self._hands_a_made_key(node):
            # `key_decoding, key_questions = split(key)`, then `sample(key_decoding, ...)`:
            # a name the scope binds to a key, however it is spelled
            name = helper_consumer(node, self.ctx, self._wrapped(node.func, s), spelled=False)
        if name is None or type(self.statement) is cst.Assert:
            return  # an `assert` drawing from a key checks what a draw gives, on purpose
        if name.startswith("self.") and "bound:" + name not in s:
            self._entry_draws.setdefault(name, node)
        first = s.get("used:" + name)
        self._statements[id(node)] = self.statement
        # flax derives a stream's keys with `fold_in` (`rngs={"dropout": key}`): the same
        # key given again derives the same masks, but a split or a draw from it is another
        # derivation, independent of those (JAX's key-reuse checker accepts both orders).
        derived = _given_to_rngs(node, name) or self._derived_by_helper(node, name, s)
        if first is not None and first is not node and derived != s.get("rngs:" + name, False):
            first = None
        if first is not None:
            if first is node and any(_periodic(t) for t in self.tests):
                pass  # an evaluation every k steps, on the same key so its scores compare
            elif first is not node and self._exclusive(first):
                pass  # `if self.D == 1: normal(key)`, then `if self.D > 1: ...(key)`
            elif not self._rerun(first, node, s) and not self._repeated(first, node):
                # A helper drawing from the module's key, or from the key this same call
                # handed back on the loop's last iteration: JAX's checker stops at its draw.
                at = _global_draw(node, name, self.ctx) or node
                if first is node:
                    at = self._own_draw(node) or at
                self.rule.reuse(self.ctx, at, name, first)
        elif self.inner is not None and _root(name) not in self.inner:
            self.rule.reuse(
                self.ctx,
                node,
                name,
                node,
                f"on every iteration of `{self.body}`, which "
                "calls this body with the same key from outside it",
            )
        token = s.get("tok:" + name, name)
        aliases = [
            k.removeprefix("tok:") for k, v in s.items() if k.startswith("tok:") and v == token
        ]
        if token.isidentifier() and "tok:" + token not in s:
            aliases.append(token)  # the name that first held this key
        if self.tests:
            self._guards[id(node)] = tuple(self.tests)
        for alias in {name, *aliases}:
            s["used:" + alias] = node
            s["rngs:" + alias] = derived

    def _carried_into_loop(self, node: cst.Call, s: dict[str, Any]) -> None:
        """`init_X = uniform(key, ...)`, then `lax.scan(body, [key, init_X, ...], ...)`: the
        body unpacks the carry (`key, X, ... = state`) and its first iteration draws from the
        key this scope already used (psox's particle swarm). Reported at the body's first
        use of that element of the carry, when that use draws from it."""
        where = _LOOP_CARRIES.get(self.ctx.qualname(node.func) or "")
        if where is None:
            return
        body_at, carry_at, param_at = where
        body, init = arg(node, body_at[0], body_at[1]), arg(node, carry_at[0], carry_at[1])
        if body is None or init is None or not isinstance(init.value, cst.Tuple | cst.List):
            return
        resolved = self.ctx.resolve_function(body.value)
        if resolved is None or not resolved.defined_here or resolved.is_method:
            return
        fn = resolved.fn
        params = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
        if not isinstance(fn, cst.FunctionDef) or len(params) <= param_at:
            return
        unpacked = _unpacked_first(fn, params[param_at])
        for element, inner in zip(init.value.elements, unpacked, strict=False):
            outer = element.value.value if type(element.value) is cst.Name else None
            first = None if outer is None else s.get("used:" + outer)
            if first is None or outer is None or inner is None:
                continue
            use = self._first_draw_of(fn, inner)
            # one flax `rngs=` derivation and a split or draw are independent (see on_call)
            if use is not None and _given_to_rngs(use, inner) == s.get("rngs:" + outer, False):
                self.rule.reuse(
                    self.ctx,
                    use,
                    outer,
                    first,
                    f"after `{snippet(first)}` already used it: `{snippet(node.func)}` hands "
                    "it to this body in its initial carry",
                )

    def _first_draw_of(self, fn: cst.FunctionDef | cst.Lambda, name: str) -> cst.Call | None:
        """Return ``fn``'s first call handed its local ``name``, when that call draws from
        it (a sampler, a project function that does, a library call taking a key)."""
        use = _first_use(fn, name)
        if use is None or _named_key(use, self.ctx, spelled=False) != name:
            return None
        return use

    def _branches_run(self, node: cst.Call, s: dict[str, Any]) -> None:
        """`lax.cond(p, lambda _: mutate(net, key), lambda _: net, operand=None)` after
        `p = uniform(key) < rate`: the branch chosen runs with the scope's key, drawn from
        before (neat-jax's mutations). So does a branch given the key in its operand
        (`lax.cond(p, _mutate, _skip, operand=(key, net))`, unpacked by `key, net = val`).
        The branches are alternatives: each is checked against what was used before."""
        q = self.ctx.qualname(node.func)
        if q not in _BRANCHING:
            return
        positional = [a.value for a in node.args if a.keyword is None and not a.star]
        if q == "jax.lax.cond":
            branches, operands = positional[1:3], positional[3:]
        else:
            held = positional[1] if len(positional) > 1 else None
            branches = (
                [e.value for e in held.elements] if isinstance(held, cst.List | cst.Tuple) else []
            )
            operands = positional[2:]
        keyword = arg(node, None, "operand")
        if keyword is not None:
            operands = [keyword.value]
        used: list[tuple[str, cst.Call]] = []
        for branch in branches:
            fn: cst.FunctionDef | cst.Lambda | None = None
            if type(branch) is cst.Lambda:
                fn = branch
            else:
                resolved = self.ctx.resolve_function(branch)
                if resolved is not None and resolved.defined_here and not resolved.is_method:
                    fn = resolved.fn
            if fn is None:
                continue
            params = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
            # what the branch calls the scope's keys: its own name for an operand, or the
            # scope's name where a lambda reads it
            given: list[tuple[str, str, bool]] = []
            if type(fn) is cst.Lambda:
                inner = set(params)
                given += [
                    (key, key, True)
                    for call in _calls_in(fn.body)
                    for key in [_named_key(call, self.ctx)]
                    if key is not None and key not in inner
                ]
            if len(operands) == 1 and isinstance(operands[0], cst.Tuple) and params:
                parts = _unpacked_first(fn, params[0]) if isinstance(fn, cst.FunctionDef) else []
                given += [
                    (e.value.value, local, False)
                    for e, local in zip(operands[0].elements, parts, strict=False)
                    if type(e.value) is cst.Name and local is not None
                ]
            elif operands and len(operands) == len(params):
                given += [
                    (o.value, p, False)
                    for o, p in zip(operands, params, strict=True)
                    if type(o) is cst.Name
                ]
            for outer, local, read in given:
                first = s.get("used:" + outer)
                use = self._first_draw_of(fn, local)
                if first is not None and use is not None:
                    # a lambda's call of the key is written here; an operand's draw is in
                    # the branch, run by this call (reported here, as a helper's call is)
                    self.rule.reuse(self.ctx, use if read else node, outer, first)
                if use is not None:
                    used.append((outer, use))
        for outer, use in used:
            s.setdefault("used:" + outer, use)

    def _own_draw(self, call: cst.Call) -> cst.Call | None:
        """For ``call`` of a function of this module that returns a key it drew from, and is
        given that key again on the next iteration: the function's first draw from the
        parameter the key comes back to, where the draw from a used key happens."""
        resolved = self._handing_back(call)
        if resolved is None:
            return None
        fn = resolved.fn
        given = {name for name, value in arguments_of(resolved, call) if type(value) is cst.Name}
        return _first_draw(fn, given, self.ctx) if isinstance(fn, cst.FunctionDef) else None

    def _exclusive(self, first: cst.Call) -> bool:
        """Tell whether an `if` around ``first`` and one around the call walked now test
        one value, which the scope never rebinds, for what it cannot both be (`self.D ==
        1`, then `self.D > 1`): no run makes both draws."""
        earlier = self._guards.get(id(first), ())
        if not earlier or not self.tests:
            return False
        for a in earlier:
            for b in self.tests:
                if exclusive_tests(a, b) and not self._rebinds(a):
                    return True
        return False

    def _rebinds(self, test: cst.BaseExpression) -> bool:
        """Tell whether the scope walked binds or changes anything the test reads."""
        read = {
            code(n)
            for n in (test, *descendants(test))
            if type(n) is cst.Name or type(n) is cst.Attribute
        }
        return any(name in read for name in assigned_values(self.ctx)) or any(
            code(t) in read for st in statements(self.ctx.scope) for t in changed_attributes(st)
        )

    def _handing_back(self, call: cst.Call) -> FunctionTarget | None:
        """Return the function of this module ``call`` runs when it hands back a key it
        drew from (`_returned_spent`)."""
        resolved = self.ctx.resolve_function(call.func)
        if resolved is None or not resolved.defined_here or not _returned_spent(resolved, self.ctx):
            return None
        return resolved

    def _spending_draw(self, call: cst.CSTNode) -> cst.Call | None:
        """For ``call`` of a function of this module that hands back a key it drew from:
        that draw (`xs = normal(key, ...)` then `return xs, key`), where the key the next
        iteration is given gets used."""
        resolved = self._handing_back(call) if type(call) is cst.Call else None
        if resolved is None:
            return None
        spenders: dict[int, cst.Call] = state(self.ctx, "JIT502.spenders", dict)
        return spenders.get(id(resolved.fn))

    def _handed_back(self, node: cst.CSTNode, value: cst.BaseExpression | None) -> cst.Call | None:
        """Return the call that binds ``node`` to a key the function it runs drew from and
        handed back (`params, key, loss = step(key, params)` where `step` returns the key its
        batch was drawn from): the name holds a used key."""
        st = self.statement
        if type(st) is not cst.Assign or len(st.targets) != 1 or type(st.value) is not cst.Call:
            return None
        target = st.targets[0].target
        if value is not None:
            position: int | None = None
            if target is not node:
                return None
        elif type(target) is cst.Tuple:
            at = [i for i, el in enumerate(target.elements) if el.value is node]
            if not at:
                return None
            position = at[0]
        else:
            return None
        resolved = self.ctx.resolve_function(st.value.func, needle=b"random")
        if resolved is None or position not in _returned_spent(resolved, self.ctx):
            return None
        return st.value

    def _derived_by_helper(self, node: cst.Call, name: str, s: dict[str, Any]) -> bool:
        """Tell whether ``node`` hands the key ``name`` to a helper that only gives it to
        flax's `rngs=` (`one_step(params, x, rng)`, whose loss runs `model.apply(...,
        rngs={"dropout": rng})`): a derivation, as that `apply` itself is."""
        if not self.ctx.mentions("rngs"):
            return False
        wrapped = self._wrapped(node.func, s)
        target = self.ctx.resolve_function(node.func if wrapped is None else wrapped)
        if target is None:
            return False
        derived = _derived_only(target, self.ctx)
        return bool(derived) and any(
            p in derived and key_name(g) == name for p, g in arguments_of(target, node)
        )

    def _wrapped(self, func: cst.BaseExpression, s: dict[str, Any]) -> cst.BaseExpression | None:
        """Return the function a transformed callee runs with the arguments it is given:
        `jax.value_and_grad(loss)` or a name bound to it (`loss_fn = ...; loss_fn(p, key)`),
        or a plain alias of a function (`loss_fn = loss`)."""
        if isinstance(func, cst.Name):
            bound = s.get("fn:" + func.value)
            return bound if isinstance(bound, cst.BaseExpression) else None
        return _transformed(func, self.ctx)

    def _runs(self, call: cst.Call, s: dict[str, Any]) -> tuple[str, bool] | None:
        """Return the name of the function ``call`` runs, and whether it calls it directly
        (not through `jax.jit(f)`, `jax.vmap(f)` or a name bound to them)."""
        wrapped = self._wrapped(call.func, s)
        target = call.func if wrapped is None else wrapped
        if not isinstance(target, cst.Name):
            return None
        return target.value, wrapped is None

    def _rerun(self, first: cst.Call, node: cst.Call, s: dict[str, Any]) -> bool:
        """Tell whether ``node`` runs the function ``first`` ran, once directly and once
        transformed (`y1 = f(x, key)`, `y2 = jax.jit(f)(x, key)`): the same numbers are
        the point, a check that the transform changes nothing."""
        a, b = self._runs(first, s), self._runs(node, s)
        return a is not None and b is not None and a[0] == b[0] and a[1] != b[1]

    def _repeated(self, first: cst.Call, node: cst.Call) -> bool:
        """Tell whether ``node``'s statement repeats ``first``'s word for word and waits for
        the result (`X = simulate(params, key).block_until_ready()` twice): a run timed
        again, the same numbers on purpose, not a second draw meant to differ. Or binds
        the same names to the same call again (`params = init(key, config)` before each of
        two trainings): a reset to the value the first made, equal on purpose; or makes a
        call again whose first result was thrown away, to keep it (`jax.vmap(f)(key)` shown,
        then `out = jax.vmap(f)(key)`): one result is used; not a
        `jax.random` draw or split itself repeated in the same block, which is the reuse."""
        a, b = self._statements.get(id(first)), self._statements.get(id(node))
        if a is None or b is None or a is b:
            return False
        if (
            type(a) is cst.Expr
            and a.value is first
            and type(b) is cst.Assign
            and b.value is node
            and code(first) == code(node)
        ):
            return True  # the first run's numbers were thrown away; these are kept
        value = a.value if type(a) is cst.Assign or type(a) is cst.Expr else None
        timed = (
            type(value) is cst.Call
            and type(value.func) is cst.Attribute
            and value.func.attr.value == "block_until_ready"
        )
        reset = type(a) is cst.Assign and type(a.value) is cst.Call
        if not (timed or reset) or _bare(code(a)) != _bare(code(b)):
            return False
        # A draw or split of its own again in the same block (`k1, k2, k3 = split(rng, 3)`
        # before each gate's weights) is the copy-pasted reuse; elsewhere (a `verbose`
        # branch re-deriving the keys for a summary) it is the reset.
        if type(value) is cst.Call and _is_sampler(self.ctx.qualname(value.func)):
            return not _same_block(a, b, self.ctx.scope)
        return True

    def on_return(self, node: cst.Return, s: dict[str, Any]) -> None:
        if self.body is None:
            self._exits.append(self.copy(s))
        if self.body is None or self.body == "jax.lax.map" or node.value is None:
            return  # `lax.map` carries nothing from one element to the next
        carry = node.value
        if self.body == "jax.lax.scan":
            if not isinstance(carry, cst.Tuple) or not carry.elements:
                return
            carry = carry.elements[0].value  # `return carry, y`
        for name in _carried_names(carry, s):
            first = s.get("used:" + name)
            if first is not None:
                # a helper handing back the key it drew from: reported at that draw, the
                # use the key already had when the next iteration is given it
                self.rule.reuse(
                    self.ctx,
                    self._spending_draw(first) or first,
                    name,
                    first,
                    f"on every iteration of `{self.body}`: the "
                    "body hands a key it used back in its carry",
                )

    def _closures_run(self, node: cst.Call, s: dict[str, Any]) -> None:
        """Functions this scope defines that ``node`` calls or hands over
        (`lax.cond(p, _explore, _exploit)`) run their draws from the scope's keys now: a
        key the scope used before is used again (dronerl's `_explore` draws from the `key`
        that `uniform(key)` decided with). Branches handed over together are alternatives:
        each is checked against what was used before the call."""
        scope = self.ctx.scope
        if type(scope) is not cst.FunctionDef:
            return
        names_here = scope_names(scope.body, scope.params)
        local = names_here.defs
        names = [
            e.value
            for e in (node.func, *(a.value for a in node.args))
            if type(e) is cst.Name and e.value in local
        ]
        if not names:
            return
        own = names_here.locals
        drawn: list[tuple[str, cst.Call]] = []
        for name in dict.fromkeys(names):
            for key, draw in self._outer_draws(local[name]):
                if _root(key) in own:
                    first = s.get("used:" + key)
                    if first is not None:
                        self.rule.reuse(self.ctx, draw, key, first)
                    drawn.append((key, draw))
        for key, draw in drawn:
            s.setdefault("used:" + key, draw)

    def _captured(self, fn: cst.FunctionDef, s: dict[str, Any]) -> None:
        """A function defined here that draws from a key this scope already used:
        `model_key, data_key = split(key)`, then `def loss(...): split(key, n)`."""
        if not any(k.startswith("used:") for k in s):
            return  # no key used yet
        for key, draw in self._outer_draws(fn):
            first = s.get("used:" + key)
            if first is not None:
                self.rule.reuse(self.ctx, draw, key, first)

    def _outer_draws(self, fn: cst.FunctionDef) -> list[tuple[str, cst.Call]]:
        """Return the draws ``fn``'s own body makes from keys it does not bind (not those of
        the functions it defines), with the key each draws from, in source order."""
        inner = scope_names(fn.body, fn.params).locals
        out: list[tuple[str, cst.Call]] = []
        pending: list[cst.CSTNode] = list(reversed(suite_statements(fn.body)))
        while pending:
            node = pending.pop()
            if isinstance(node, cst.FunctionDef | cst.Lambda | cst.ClassDef):
                continue
            if type(node) is cst.Call:
                key = consumer(node, self.ctx)
                if key is not None and _root(key) not in inner:
                    out.append((key, node))
            pending.extend(reversed(child_nodes(node)))
        return out

    def on_bind(
        self, name: str, node: cst.CSTNode, value: cst.BaseExpression | None, s: dict[str, Any]
    ) -> None:
        if type(node) is cst.FunctionDef and node is not self.ctx.scope:
            self._captured(node, s)
        s.pop("used:" + name, None)
        s.pop("fn:" + name, None)
        s.pop("built:" + name, None)
        if name.startswith("self."):
            s["bound:" + name] = True  # no longer the key the call found
            self._rebound.add(name)
        if (type(value) is cst.Tuple or type(value) is cst.List or type(value) is cst.Dict) or (
            value is not None and _is_record(value)
        ):
            s["built:" + name] = value
        wrapped = None if value is None else _transformed(value, self.ctx)
        if wrapped is not None:
            s["fn:" + name] = wrapped
        elif isinstance(value, cst.Name) and self.ctx.defines_function(value.value):
            s["fn:" + name] = value
        elif (
            type(value) is cst.Attribute
            and type(value.value) is cst.Name
            and self.ctx.resolve_function(value) is not None
        ):
            s["fn:" + name] = value  # `encode = vae.encode`: the method, bound
        for element in [k for k in s if k.startswith(f"used:{name}[")]:
            del s[element]  # a rebound `keys` holds new keys at every index
        handed = self._handed_back(node, value)
        if handed is not None:
            s["used:" + name] = handed
        if type(value) is cst.Name:
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
    sampler or `split` already used, on some path, without the name being rebound in between. A key
    used inside a loop without being split again in that loop is reused on the next iteration.
    Passing the key (or an element of split keys, `keys[0]`) to a function of the same module that
    hands it straight to a sampler (before any rebinding of its parameter: `u = normal(key)` then
    `key, sub = split(key)` inside it still used the caller's key), or to a library call that draws
    from it (`mcmc.run(rng_key, ...)`, `dist.sample(rng_key)`), counts as using it, and so does
    using a plain alias (`k = key`). A function of the project that returns a key it drew from since
    binding it (`step` splits its key, draws the batch from the new key and returns that key) hands
    back a used key: the caller's next draw from it is a reuse, and when the caller gives it back to
    the same function on the next iteration of a loop, the reuse is reported at that function's
    first draw from it, where JAX's checker stops. A key held in `self.key` is followed in a method
    until it is rebound or a method of `self` (or a function given `self`) is called that may store
    a key on `self` (a method of the class that assigns no key-named attribute, calls no `setattr`
    and no such method leaves it followed; calling an object the class stores, `self.criterion(r)`,
    or a function it stores, `self._propose = jax.jit(_propose)` of a function `__init__` defines,
    changes nothing on `self` unless it is given `self` or closes over it). Such a stored function
    draws from the key it is given as the function does. A method that splits `self.key`, keeps
    one half and then draws from that half (`self.key, sub = split(self.key)`, then
    `uniform(self.key)`) leaves the key used: when it runs more than once, its first draw from the
    key it found is reported (the next call splits a used key, where JAX's checker raises), and a
    caller that draws from `self.key` after calling it reuses the key too. A key the constructor
    leaves used (`__init__` calls `self.init_state()`, which hands `self.rng` to a forward pass
    that draws from it) is reused by another method's first draw from it. A step that draws from
    a key field of its record parameter (`state.rng`, `state.rngs[0]`) and hands the record
    back with that same key (`state.apply_gradients(...)`, `state.replace(params=...)`, also
    after a `state.replace(rng=...)` whose result is thrown away), called in a loop that
    passes what it returns back in, draws the same numbers on every iteration: reported at
    the draw, or at the call of a jitted step, where JAX's checker raises. An object made by a
    classmethod of a project class (`vae = StableVAE.create()`, returning `cls(...)`) or by a
    factory is an instance of that class, and a name bound to one of its methods (`encode =
    vae.encode`) runs that method. A loop over a non-empty constant range (`for _ in range(4):`)
    runs at least once: what its body binds replaces the binding before it. A key made from a
    constant seed where it is consumed
    (`normal(PRNGKey(0), shape)`) in a loop of traced code, or in a body a `lax` loop calls, gives
    the same draws on every iteration. An element of split keys with a constant index (`keys[0]`) is
    followed as a key of its own. A function of the module that samples from a module-level key
    (`key = jax.random.key(0)` at the top, read and never rebound inside) uses that key on each
    call: calling it twice draws the same numbers; a plain (undecorated) one is reported at its
    draw, where JAX's key-reuse checker raises. An initializer
    (`jax.nn.initializers.glorot_normal()`, flax's too, a name bound to one, or a class field
    defaulting to one: `self.kernel_init`) draws from the key it is given. `fold_in(key, i)` derives
    a new key and does not use `key` up. Two `jax.random.permutation(key, X)` and `(key, Y)` draws
    from one key (with the same other arguments, `axis=0` on both) are the idiom that shuffles
    paired arrays alike, and are left alone. A dict of keys
    given to a flax module's `init`/`apply` with one key for two streams other than `params`
    (`{"dropout": key, "noise": key}`): flax derives a stream's keys from its key, the module path
    and a count, not the stream's name, so both streams draw alike (the `params` stream draws only
    while parameters are created). A key handed to flax's `rngs=` is folded in, not used up:
    splitting it afterwards is no reuse, also when a helper of the project is what hands it
    there (`loss(params, x, rng)` running `model.apply(..., rngs={"dropout": rng})`); giving
    it to the same streams twice draws the same masks, and is. A function called through a transform
    (`jax.value_and_grad(loss)(params, key)`, or a name bound to it) uses the key as the function
    does; calling the same function once directly and once transformed on one key (`noisy(x, key)`
    then `jax.jit(noisy)(x, key)`) compares the two and is left alone, and so does a statement
    repeated word for word that waits for its result (`x = simulate(key).block_until_ready()` twice:
    a run timed again) or binds the same names to the same call again (`params = init(key, config)`
    before each of two trainings compared: a reset to the same start; a `jax.random` split or draw
    of its own repeated in the same block, `k1, k2, k3 = split(rng, 3)` before each gate's weights,
    is the copy-pasted reuse, and is reported). A library call given a key-named value by keyword
    (`dist.sample(seed=key)`, `eqx.nn.Linear(2, 2, key=key)`, `key=`, `rng=`, `rng_key=`) or as the
    first argument of `.sample(key, ...)`, `.sample_...(key, ...)` (`model.sample_actions(rng,
    obs)`) or `.run(key, ...)` uses it up (not flax's `model.init(key, x)`, which derives its keys
    with `fold_in`; but `init` and `apply` run the module's `__call__` with the arguments after
    the key or the variables, `model().init(key, x, z_rng)` of a module the project defines or a
    project factory returns, so a key `__call__` draws from there is used). haiku's `init(rng, x)`
    of a transform's product (`net = hk.transform(forward)`, or a project factory returning one)
    splits the key for its initializers, so giving it to `net.apply(params, rng, x)` afterwards,
    or to the `apply_fn` a train state was built with (`Trainer(apply_fn=net.apply, ...)`), reuses
    it. A function the caller hands in (a parameter: `sample_fn(key, x)` in `run(sample_fn,
    key)`, or `lambda k: prior(1, dim, k)` under `jax.vmap` in `abc(simulator, prior, key)`)
    draws from a key it is given, unless the call says it does not train
    (`model(x, key, is_training=False)`, `deterministic=True`), or the function is an apply
    function given the key after its first input (`apply_fn(params, obs, rng)`: an input of
    a flax module's `__call__`, which may ignore it). A function handing its
    `**kwargs` to a library call (`model_apply(state, xs, **kwargs)`) uses a key its caller passes
    by such a keyword (`objective(state, xs, rng=rng)`), and calling a local function or lambda
    that closes over a key (`loss_fn = lambda p: loss(p, x, key=key)`, then
    `jax.value_and_grad(loss_fn)(params)`) draws from it. A function storing its key in the
    record it hands a `lax` loop as the carry (`state = SamplingState(key=key, ...)`, then
    `lax.while_loop(cond, step_fn, state)`) draws from it when the body splits or draws from
    that field, and so does one putting it in a tuple carry (`init_val = (rng, x)`) that the body
    unpacks and splits. A name the scope binds only to what `split`, `fold_in` or a key maker
    returns holds a key however it is spelled (`key_decoding`). In the body of a
    `lax` loop (`scan`, `fori_loop`, `while_loop`), a key from outside the body, or one the body
    hands back in its carry after drawing from it (directly, or in a dict or record built for
    the carry, or by a helper that returns the key it drew from, reported at that draw), is
    used again on every iteration; a key the scope used
    before handing it to the loop in the initial carry (`init_X = uniform(key)`, then
    `lax.scan(body, [key, init_X])`, whose body unpacks `key, X = state` and draws from `key`) is
    used again by the first iteration; so is a key `functools.partial` binds into the body
    (`lax.scan(partial(env_step, action_key=key), ...)`), reported at the body's first use of it,
    unless the flags the partial sets keep the body from drawing (`deterministic=True`). A function
    defined after its enclosing function used a key, and drawing from that key itself, uses it
    again. So does a function the scope defines and then calls, or hands to a call (`lax.cond(p,
    _explore, _exploit)`), after the scope used the key it draws from; branches handed over together
    are alternatives, each checked against what was used before the call. The same holds for the
    branches of `lax.cond`/`lax.switch` given the scope's key: a lambda calling a function that
    draws from it (`lambda _: mutate(net, key)`), or a function given it in its operand
    (`operand=(key, net)`, unpacked by `key, net = val`), reported where the key is handed over. A
    key given to `jax.vmap` with `in_axes` None reaches every element of the batch: each draws the
    same numbers; so does a key a lambda given to `jax.vmap` closes over, drawn from with the
    element's own parameters or shape (`jax.vmap(lambda m, c: multivariate_normal(key, m,
    c))(means, covs)`; `lambda x: x + normal(key)` may mean one shared draw), and so does a
    key made from a constant seed in a function `vmap` maps. Two draws under two `if`s that
    cannot both hold (`if d == 1:`, then `if d > 1:`, on a value the function never rebinds)
    are one draw per run. haiku's
    `f.apply(params, rng, x)` draws from the key among its arguments. flax's
    `rngs={"dropout": key}` derives the stream's keys with `fold_in`: the same key given to flax
    again derives the same masks, but a split of it or a draw from it is independent of them,
    and is not reported (JAX's key-reuse checker accepts it either way round). A jitted
    function that draws from a module-level key (`key, dropout_key = jax.random.split(key)` at the
    top), or hands it to flax's `apply(..., rngs={"dropout": dropout_key})`, keeps that key as a
    constant of the compiled code: every call draws the same numbers (JAX's key-reuse checker
    rejects the second call). So does a method jitted with `self` static that draws from `self.rng`
    bound to a key in `__init__` (or one of the keys `jax.random.split` unpacks into attributes
    there), directly or through a function it hands `self.rng` to. A function given a key (a
    parameter spelled like one, or annotated `PRNGKey`, `KeyArray` or `nnx.Rngs`) that never reads
    it, and makes a key from a constant seed instead (`split(key(0))`), draws the same numbers on
    every call. A function `jax.tree.map` (or `tree_util.tree_map`) calls once per leaf that draws
    from a key from outside it gives leaves of one shape the same numbers. So does jitted code
    giving flax's `rngs=` a key made from a constant seed (`rngs={"dropout":
    jax.random.PRNGKey(0)}`, or a name bound once to such a dict, `rngs=rngs`): the same mask on
    every call. A numpyro model (a function calling `numpyro.sample`) that draws from a key made
    from a constant seed, itself or through a function of the project it hands the key to
    (`simulate(jax.random.PRNGKey(0), p)`), draws the same numbers in every run: numpyro runs the
    model again for every sample and step, and only its sites and `numpyro.prng_key()` get new keys.
    A method that runs repeatedly (called in a loop, `__call__`, or more than once on one object
    by the script, `game.ai_move()` twice) and draws from a key attribute that only the
    constructor binds (`self.key = key` in `__init__` or `setup`, or a method the script runs
    once to set the object up, `game.setup_jit()`; or a class attribute bound to a
    constant-seed key, `key = jr.PRNGKey(1)` in the class body), and that nothing changes later
    (no other method, no write on the object in a function or a loop elsewhere in the module,
    no `setattr` in the class but in its constructor), draws the same numbers on every call:
    nothing advances the key. Handing it to a jit of a method made at the call (`jax.jit(
    self.run_mcts)(self.key, state)`) draws from it as calling the method does. A key kept as
    the object's seed (`self.seed`, `self.random_state`) starts every call alike on purpose,
    as scikit-learn's `random_state` does, and is left alone.
    Two methods drawing from such a key (directly, through `mcmc.run(self.rng_key_)`, or
    through a numpyro `Predictive` called with it) draw the same numbers: the later one in the
    class body is reported. Handing it to a method the class binds jitted
    (`self.jit_step(state, self.master_key)`, with `self.jit_step = jax.jit(self.step)` in
    `__init__`) draws from it as calling the method does.
    So does a function that runs repeatedly (called in a loop, `__call__`, a jitted step the module
    calls in a loop) and draws from a key it makes from a constant seed (`rng =
    jax.random.PRNGKey(1234)`, or from a seed its object holds unchanged, `PRNGKey(self.seed)` with
    `self.seed` bound only in `__init__`, then a draw, a project function given `rng`, or `rng, key
    = split(rng)`); not a parameter's fallback (`if key is None: key = PRNGKey(0)`), a function
    called only in a sweep over a few constants (each configuration compared on the same data), or a
    test, which fixes its seeds on purpose. A method called on `self` that draws from the module's
    key is reported at its draw, like a plain helper. A module-level function drawing from a
    parameter whose default is a key made from a constant seed (`def simulate(x, key=PRNGKey(1))`,
    or a module-level name bound once to one: `key=_random_key`; or a method's, called on a
    module-level instance of its class or of one derived from it; such a default is a key however it
    is spelled, `rkey`), which the module calls without that argument more than once (or once, in a
    loop), draws the same numbers each time: the default is made once, when `def` runs. A jitted
    function that hands such a default on instead of drawing from it (into a `lax.scan` carry
    whose body splits it) is reported at the call that omits it again, in a loop or after
    another: jit consumes the default where it is called. A data generator whose loop makes its
    key from a constant seed on every pass and draws from it (`while True: key = PRNGKey(0)`,
    then `permutation(key, n)` and `yield`) shuffles every epoch alike. A draw
    inside an `assert` (`assert array_equal(x, normal(key, s))`) checks what a draw gives,
    reproducible on purpose: it is neither reported nor counted as a use. A key parameter the
    function rebinds to a constant-seed key before it reads it (`def sample_process(la, mu, T,
    key):` ... `key = jax.random.PRNGKey(2)`) ignores the caller's key: every call, and every
    element of a `vmap`, draws the same numbers (a default filled in under `if key is None:`
    reads it first, and is left alone).

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

def noisy(x, key):
    return x + random.normal(key, x.shape)

def compare(x, key):
    eager = noisy(x, key)
    jitted = jax.jit(noisy)(x, key)  # the same numbers are the point
    return eager, jitted

def walk(key, x):
    def body(carry, _):
        x, key = carry
        key, sub = random.split(key)
        return (x + random.normal(sub, x.shape), key), x
    return jax.lax.scan(body, (x, key), None, length=3)
""",
        """
from typing import NamedTuple

import jax
from jax import random

class Carry(NamedTuple):
    x: jax.Array
    key: jax.Array

def roll(x, key):
    def cond(c):
        return c.x.sum() < 10.0

    def body(c):
        key, sub = random.split(c.key)
        return Carry(c.x + random.uniform(sub, c.x.shape), key=key)  # stores `key`

    return jax.lax.while_loop(cond, body, Carry(x, key=key))
""",
        """
import time

import jax

@jax.jit
def simulate(key):
    return jax.random.normal(key, (1000,)).mean()

def timed(key):
    start = time.perf_counter()
    x = simulate(key).block_until_ready()  # compiles, then runs
    first = time.perf_counter() - start
    start = time.perf_counter()
    x = simulate(key).block_until_ready()  # the same run again, timed: equal on purpose
    return x, first, time.perf_counter() - start
""",
        """
import jax
import optax

def init(key, n):
    return jax.random.normal(key, (n,))

def train(params, tx):
    state = tx.init(params)
    updates, state = tx.update(params, state)
    return optax.apply_updates(params, updates)

def compare(key):
    params = init(key, 3)
    sgd = train(params, optax.sgd(0.1))
    params = init(key, 3)  # the same start again for the second optimizer: equal on purpose
    adam = train(params, optax.adam(0.1))
    return sgd, adam
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
    return jax.random.normal(key, (3,))  # JIT502

first = noise()
second = noise()  # JIT502
""",
        """
import jax
from jax import lax

@jax.jit
def rollout(key, x):
    def step(carry, _):
        x, key = carry
        noise = jax.random.normal(key, x.shape)  # JIT502
        return (x + noise, key), noise
    return lax.scan(step, (x, key), None, length=3)[1]

@jax.jit
def walk(key, x):
    def body(i, x):
        return x + jax.random.normal(key, x.shape)  # JIT502
    return lax.fori_loop(0, 3, body, x)
""",
        """
import equinox as eqx
import jax
import jax.numpy as jnp

def loss(params, key):
    return jnp.sum(params * jax.random.normal(key, params.shape))

@jax.jit
def step(params, key):
    grads = jax.grad(loss)(params, key)
    key, sub = jax.random.split(key)  # JIT502
    return params - grads, key

def make(key):
    noise = jax.random.normal(key, (2,))
    layer = eqx.nn.Linear(2, 2, key=key)  # JIT502
    return noise, layer
""",
        """
import jax

def dropout(x, key):
    keep = jax.random.bernoulli(key, 0.5, x.shape)
    return x * keep / 0.5

@jax.jit
def batch_dropout(xs, key):
    return jax.vmap(dropout, in_axes=(0, None))(xs, key)  # JIT502
""",
        """
import jax

key = jax.random.key(0)
key, dropout_key = jax.random.split(key)

@jax.jit
def dropout(x):
    keep = jax.random.bernoulli(dropout_key, 0.5, x.shape)  # JIT502
    return x * keep / 0.5
""",
        """
import jax

@jax.jit
def mask(x, rng):
    keep_key, _ = jax.random.split(jax.random.key(0))  # JIT502
    return x * jax.random.bernoulli(keep_key, 0.5, x.shape)
""",
        """
import jax

@jax.jit
def add_noise(grads, rng):
    return jax.tree.map(lambda g: g + jax.random.normal(rng, g.shape), grads)  # JIT502
""",
        """
import flax.linen as nn
import jax

class Net(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dropout(0.5, deterministic=False)(x)

net = Net()

@jax.jit
def forward(x):
    return net.apply({}, x, rngs={"dropout": jax.random.PRNGKey(0)})  # JIT502
""",
        """
import jax

class Noisy:
    def __init__(self, rng_key):
        self.rng_key = rng_key

    @staticmethod
    def sample_noise(key, shape):
        return jax.random.normal(key, shape)

    def noise(self):
        p = Noisy.sample_noise(self.rng_key, (3, 1))
        q = Noisy.sample_noise(self.rng_key, (1, 3))  # JIT502
        return p, q
""",
        """
import jax

def noise(key, n):
    return jax.random.normal(key, (n,))

def step(key_i):
    a = noise(key_i, 2)
    b = jax.random.normal(key_i, (2,))  # JIT502
    return a, b
""",
        """
import jax
import jax.numpy as jnp
import flax.linen as nn


class Noisy(nn.Module):
    @nn.compact
    def __call__(self, x):
        mask = jax.random.bernoulli(self.make_rng("dropout"), 0.5, x.shape)
        noise = jax.random.uniform(self.make_rng("noise"), x.shape)
        return mask, noise


key = jax.random.key(0)
(mask, noise), _ = Noisy().init_with_output(
    {"params": key, "dropout": key, "noise": key},  # JIT502
    jnp.ones(4),
)
""",
    )

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx: RuleContext) -> None:
        """Check a key parameter the function rebinds to a constant-seed key before it reads
        it (`def sample_process(la, mu, T, key): ... key = jax.random.PRNGKey(2)`): the
        caller's key is ignored, so every call (every element of a `vmap`) draws the same
        numbers."""
        if not (ctx.mentions("PRNGKey") or ctx.mentions("key(")):
            return  # (the text first: no key made from a seed anywhere)
        # (a function walked again in another context is read once)
        found: dict[int, list[tuple[str, cst.Assign]]] = state(ctx, "JIT502.overwritten", dict)
        if id(node) not in found:
            params = node.params
            found[id(node)] = [
                (p.name.value, made)
                for p in (*params.posonly_params, *params.params, *params.kwonly_params)
                if looks_like_key(p.name.value)
                and (made := _overwritten_key(node, p.name.value, ctx)) is not None
            ]
        for name, made in found[id(node)]:
            self.report(
                ctx,
                made,
                f"parameter `{name}` is rebound to `{snippet(made.value)}` before it is "
                "read: the key the caller passes is ignored, so every call draws the same "
                f"numbers; split the `{name}` given instead",
            )

    def visit_Call(self, node: cst.Call, ctx: RuleContext) -> None:
        """Analyse the enclosing scope once, the first time it consumes a key."""
        self._fixed_seed(node, ctx)
        self._key_made_per_epoch(node, ctx)
        # what the two checks below need among the arguments: a key made in the call
        # (`normal(PRNGKey(0), ...)`), a key attribute (`split(self.key)`)
        made_here = of_self = False
        for a in node.args:
            kind = type(a.value)
            if kind is cst.Call:
                made_here = True
            elif kind is cst.Attribute and _is_self(cast(cst.Attribute, a.value).value):
                of_self = True
        if made_here:
            self._model_fixed_key(node, ctx)
        self._fixed_key_per_call(node, ctx)
        self._default_key_draw(node, ctx)
        if type(node.func) is cst.Name:
            self._default_key_omitted(node, ctx)
        if of_self:
            self._stored_key(node, ctx)
        self._ignored_key(node, ctx)
        self._key_per_leaf(node, ctx)
        self._constant_rngs(node, ctx)
        self._broadcast_key(node, ctx)
        self._closed_key_in_vmap(node, ctx)
        self._closed_over_key(node, ctx)
        self._shared_streams(node, ctx)
        self._bound_into_loop_body(node, ctx)
        self._record_key_kept(node, ctx)
        body = ctx.loop_body
        done: set[tuple[int, frozenset[tuple[str, int]]]] = (
            state(ctx, "JIT502.bodies", set) if body else state(ctx, "JIT502.scopes", set)
        )
        scope = ctx.scope
        # Once per scope and per set of functions its enclosing functions were given.
        walk = (id(scope), ctx.functions_given)
        if walk in done:
            return  # analysed already: its other calls need no look
        if (
            consumer(node, ctx) is None
            and helper_consumer(node, ctx, _bound_transform(node, ctx)) is None
            and library_consumer(node, ctx) is None
        ):
            return
        done.add(walk)
        _KeyFlow(self, ctx, body).run(scope, {})

    def _record_key_kept(self, node: cst.Call, ctx: RuleContext) -> None:
        """`state = train_step(state, batch)` in a loop, where `train_step` draws from
        `state.rng` and hands `state` back with that same key (`state.apply_gradients(...)`,
        `state.replace(params=...)`, or a `state.replace(rng=...)` whose result is thrown
        away): every iteration draws from one key, the same numbers each step (pzdkn's
        NeRF jitter). Reported at the draw, once per function."""
        scope = ctx.scope
        done: set[int] = state(ctx, "JIT502.record-loops", set)
        if id(scope) in done:
            return
        done.add(id(scope))
        if not (ctx.mentions("replace") or ctx.mentions("apply_gradients")):
            return  # (the text first: no record handed back as a copy anywhere)
        reported: set[int] = state(ctx, "JIT502.record-draws", set)
        for stmt in _assigned_calls_in_loops(scope):
            self._rebound_record(stmt, cast(cst.Call, stmt.value), ctx, reported)

    def _rebound_record(
        self, stmt: cst.Assign, call: cst.Call, ctx: RuleContext, reported: set[int]
    ) -> None:
        if len(stmt.targets) != 1:
            return
        target = stmt.targets[0].target
        bound: dict[int | None, str] = {}
        if type(target) is cst.Name:
            bound[None] = target.value
        elif isinstance(target, cst.Tuple | cst.List):
            for i, el in enumerate(target.elements):
                if type(el.value) is cst.Name:
                    bound[i] = el.value.value
        given = {a.value.value for a in call.args if type(a.value) is cst.Name}
        if not given & set(bound.values()):
            return
        func = _bound_transform(call, ctx) or call.func
        resolved = ctx.resolve_function(func, needle=b"random")
        if (
            resolved is None
            or not resolved.defined_here
            or not isinstance(resolved.fn, cst.FunctionDef)  # a lambda returns one value
        ):
            return
        # Where JAX's key-reuse checker raises: at the call of a jitted function (its draws
        # are one program), at each draw of one that runs eagerly.
        jitted = ctx.jit_spec(call.func) is not None or ctx.def_spec(resolved.fn) is not None
        for param, value in arguments_of(resolved, call):
            if type(value) is not cst.Name:
                continue
            for draw, field in _field_draws(resolved.fn, param, ctx):
                if id(draw) in reported:
                    continue
                back = _handed_back_with_key(resolved.fn, param, field, ctx)
                if not any(bound.get(i) == value.value for i in back):
                    break
                reported.add(id(draw))
                self.report(
                    ctx,
                    call if jitted else draw,
                    f"PRNG key `{code(draw)}` is drawn from on every call of "
                    f"`{resolved.fn.name.value}`, which hands `{param}` back with the same "
                    "key, and the loop passes that back in: every iteration draws the same "
                    f"numbers; split it and store the new key (`{param}.replace({field}=...)`)",
                )

    def _bound_into_loop_body(self, node: cst.Call, ctx: RuleContext) -> None:
        """`lax.scan(partial(env_step, action_key=action_key), state, None, n)`: a key bound
        into a `lax` loop's body by `functools.partial` is the same key on every iteration,
        so a body that draws from it (by `_consumption`, which honours flags the partial
        sets: `deterministic=True`) draws the same numbers each time (jaxppo's per-step
        action and env keys). Reported at the body's first use of the key."""
        if last_name(node.func) not in _LOOP_NAMES:
            return  # (a cheap look at the spelling first)
        where = _LOOP_BODY_ARGS.get(ctx.qualname(node.func) or "")
        given = None if where is None else arg(node, *where)
        if given is None:
            return
        bound = _bound_once(given.value, assigned_values(ctx))
        if type(bound) is not cst.Call or ctx.qualname(bound.func) != "functools.partial":
            return
        if not bound.args or bound.args[0].keyword is not None or bound.args[0].star:
            return
        resolved = ctx.resolve_function(bound.args[0].value, needle=b"random")
        if resolved is None or not resolved.defined_here or resolved.is_method:
            return
        consumed, _, guards = _consumption(resolved, ctx)
        if not consumed:
            return
        fn = resolved.fn
        # The partial's own arguments, as a call of the body would pass them.
        fixed = bound.with_changes(func=bound.args[0].value, args=bound.args[1:])
        used = {id(v) for v in _consumed_arguments(fixed, resolved, consumed, guards)}
        params = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
        for param, value in passed_to(params, fixed) or ():
            name = key_name(value)
            if id(value) not in used or name is None or not looks_like_key(name):
                continue
            use = _first_use(fn, param)
            if use is not None:
                self.report(
                    ctx,
                    use,
                    f"PRNG key `{name}` is bound into the body of `{snippet(node.func)}` by "
                    f"`partial`{'' if name == param else f' as `{param}`'}: every iteration "
                    "draws from the same key and gets the same numbers; carry a key and split "
                    "it per iteration",
                )

    def _shared_streams(self, node: cst.Call, ctx: RuleContext) -> None:
        """`model.init({"params": key, "dropout": key}, x)`: flax derives each stream's keys
        from the key it is given, folding in the module path and a counter but not the
        stream's name, so two streams given one key draw the same numbers."""
        func = node.func
        if type(func) is not cst.Attribute or func.attr.value not in FLAX_RUNNERS:
            return
        given = [
            a.value
            for k, a in enumerate(node.args)
            if (a.keyword is not None and a.keyword.value == "rngs")
            or (k == 0 and a.keyword is None and func.attr.value.startswith("init"))
        ]
        for streams in given:
            if type(streams) is not cst.Dict:
                continue
            seen: dict[str, str] = {}
            for element in streams.elements:
                if not isinstance(element, cst.DictElement) or not isinstance(
                    element.key, cst.SimpleString
                ):
                    return  # a spread (`**rngs`) or a computed stream name
                name = key_name(element.value)
                stream = element.key.raw_value
                if name is None or not looks_like_key(name) or stream == "params":
                    continue  # `params` draws only while parameters are created
                if name in seen:
                    self.report(
                        ctx,
                        streams,
                        f"PRNG key `{name}` is given to the `{seen[name]}` and `{stream}` "
                        "streams: flax derives a stream's keys from its key, the module path "
                        "and a count, not the stream's name, so the two streams' draws in one "
                        "module are equal; split it, one key per stream",
                    )
                    return
                seen[name] = stream

    def _closed_key_in_vmap(self, node: cst.Call, ctx: RuleContext) -> None:
        """`jax.vmap(lambda mean, cov: multivariate_normal(key, mean, cov))(means, covs)`:
        the lambda draws from a key it closes over, the same for every element of the
        batch, as `in_axes` None hands one: every element draws the same numbers (CoVO-MPC's
        MPPI noise, one vector for the whole horizon)."""
        fn = node.args[0].value if node.args else None
        if not isinstance(fn, cst.Lambda):
            return
        t = ctx.transform(node.func)
        if t is None or t.in_axes_pos is None:
            return
        params = set(param_names(fn.params))
        for call in _calls_in(fn.body):
            if not _is_sampler(ctx.qualname(call.func)):
                continue
            key = arg(call, 0, "key")
            name = None if key is None else key_name(key.value)
            if name is None or _root(name) in params or not looks_like_key(name):
                continue
            if not any(
                n.value in params
                for a in call.args
                if a is not key
                for n in variable_names(a.value)
            ):
                continue  # `lambda x: x + normal(key)`: one draw shared by every element
            self.report(
                ctx,
                call,
                f"`{snippet(node.func)}` runs this lambda once per element of the batch, and "
                f"each run draws from the key `{name}` it closes over, so every element gets "
                f"the same numbers: map over split keys (`jax.random.split({name}, n)`) too",
            )
            return

    def _broadcast_key(self, node: cst.Call, ctx: RuleContext) -> None:
        """`jax.vmap(f, in_axes=(0, None))(x, key)`: `in_axes` None hands every element of
        the batch the same key, so each draws the same numbers (one dropout mask for the
        whole batch: equinox's BERT example before its fix); the vmap may be bound to a
        name first (`batched = jax.vmap(add_noise, in_axes=(0, None))`, then `batched(x,
        key)`)."""
        vmap = node.func
        if type(vmap) is cst.Name and len(node.args) > 1:
            vmap = _bound_once(vmap, assigned_values(ctx))
        if type(vmap) is not cst.Call:
            return
        t = ctx.transform(vmap.func)
        if t is None or t.in_axes_pos is None:
            return
        axes = arg(vmap, t.in_axes_pos, "in_axes")
        if axes is None or not isinstance(axes.value, cst.Tuple | cst.List):
            return
        elements = axes.value.elements
        for k, a in enumerate(node.args):
            if a.keyword is not None or a.star or k >= len(elements):
                break
            axis = elements[k].value
            name = key_name(a.value)
            if (
                isinstance(axis, cst.Name)
                and axis.value == "None"
                and name is not None
                and looks_like_key(name)
            ):
                self.report(
                    ctx,
                    node,
                    f"PRNG key `{name}` is given to `{snippet(vmap.func)}` with `in_axes` None, "
                    "so every element of the batch draws from the same key and gets the same "
                    f"numbers; split it per element (`jax.random.split({name}, n)`, in_axes 0)",
                )
                return

    def _closed_over_key(self, node: cst.Call, ctx: RuleContext) -> None:
        """A jitted function drawing from a module-level key: the compiled function keeps
        that key as a constant, so every call draws the same numbers (JAX's key-reuse
        checker rejects the second call). flax's `apply(..., rngs={"dropout": key})` too:
        it derives its keys from the one given, the same on every call."""
        if ctx.mode is not Mode.JIT or not ctx.staged or ctx.loop_body is not None:
            return  # a `lax` loop body's key from outside it: read by `_KeyFlow`
        name = (
            consumer(node, ctx)
            or library_consumer(node, ctx)
            or _flax_rngs(node)
            or _self_key_to_helper(node, ctx)
        )
        if name is None:
            return
        if name.startswith("self."):
            # `self.rng = jax.random.PRNGKey(0)` in `__init__`, read by a method jitted
            # with `self` static: the key at trace time is compiled in. (A split stored
            # back in `self.rng` there leaks a tracer: JIT202's.)
            if not _static_self_key(name, ctx) or (
                ctx.qualname(node.func) == "jax.random.split" and _stores_self(name, ctx)
            ):
                return
            where = "a key attribute of the static `self`"
        elif _root(name) in _module_keys(ctx) and ctx.is_module_global(_root(name)):
            where = "a module-level key"
        else:
            return
        self.report(
            ctx,
            _key_argument(node, name) or node,
            f"PRNG key `{name}` is {where} this jitted code closes over: compiled "
            "in as a constant, it is the same key on every call, so every call draws the "
            "same numbers; take the key as an argument and split a new one per call",
        )

    def _key_made_per_epoch(self, node: cst.Call, ctx: RuleContext) -> None:
        """A data generator whose loop makes its key from a constant seed on every pass and
        draws from it (`while True: key = random.PRNGKey(0); perm = permutation(key, n)`,
        then `yield` the batches): every epoch gets the same shuffle (mnuhn's MNIST stream,
        batch 50). Reported at the key, once per generator."""
        scope = ctx.scope
        if type(scope) is not cst.FunctionDef or not ctx.mentions("yield"):
            return  # (a generator only: the cheap text test first)
        if not _is_sampler(ctx.qualname(node.func)):
            return
        done: set[int] = state(ctx, "JIT502.epoch-keys", set)
        if id(scope) in done:
            return
        done.add(id(scope))
        if _in_test(scope, ctx.module):
            return
        for loop in descendants(scope.body):
            if type(loop) is not cst.While and type(loop) is not cst.For:
                continue
            body = list(statements(loop.body))
            if not any(type(n) is cst.Yield for n in descendants(loop.body)):
                continue  # not a generator's pass over its data
            made = {
                t.target.value: st.value
                for st in body
                if type(st) is cst.Assign
                and type(st.value) is cst.Call
                and _constant_key(st.value, ctx)
                for t in st.targets
                if type(t.target) is cst.Name
            }
            for n in descendants(loop.body):
                if type(n) is not cst.Call or not _is_sampler(ctx.qualname(n.func)):
                    continue
                key = arg(n, 0, "key")
                if key is not None and type(key.value) is cst.Name and key.value.value in made:
                    name = key.value.value
                    self.report(
                        ctx,
                        made[name],
                        f"PRNG key `{name}` is made from the same seed on every pass of this "
                        "generator's loop, so every pass draws the same numbers (the same "
                        "shuffle each epoch); make the key once, outside the loop, and split "
                        "it per pass",
                    )
                    return

    def _fixed_seed(self, node: cst.Call, ctx: RuleContext) -> None:
        """`normal(PRNGKey(0), shape)` in a loop body of traced code, or in a function a
        `vmap` maps over a batch: the same key, so the same draws, on every iteration (for
        every element). (A Python loop outside a trace that draws fixed
        inputs per configuration, as benchmarks do, means it.)"""
        if ctx.mode is Mode.NONE or not (ctx.repeats or ctx.batched):
            return
        if not _is_sampler(ctx.qualname(node.func)):
            return
        key = arg(node, 0, "key")
        made = key.value if key is not None else None
        if not isinstance(made, cst.Call) or not _constant_key(made, ctx):
            return
        if not ctx.repeats:
            # `vmap(lambda x: point(x, ...))`, `point` drawing from `PRNGKey(0)`: the key is
            # the same for every element, so is what it draws (drclab's noisy curve)
            self.report(
                ctx,
                node,
                f"PRNG key `{snippet(made)}` is made from the same seed in a function `vmap` "
                "runs once per element, so every element draws the same numbers; map over "
                "split keys (`jax.random.split(key, n)`) instead",
            )
            return
        self.report(
            ctx,
            node,
            f"PRNG key `{snippet(made)}` is made from the same seed each time this runs (a loop "
            "body), so every iteration draws the same numbers; pass a key in and split it "
            "per iteration (`jax.random.fold_in(key, i)`)",
        )

    def _stored_key(self, node: cst.Call, ctx: RuleContext) -> None:
        """A method that runs repeatedly (called in a loop, `__call__`) drawing from a key
        attribute only the constructor binds (`self.key = key`): nothing advances the key,
        so every call draws the same numbers (ReAct_Jax's `Trainer.get_n_k`, every epoch)."""
        if ctx.mode is not Mode.NONE:
            return  # traced: a static `self`'s key is `_closed_over_key`'s
        cls = ctx.enclosing_class
        scope = ctx.scope
        if cls is None or type(scope) is not cst.FunctionDef or scope.name.value == "__init__":
            return
        name = consumer(node, ctx) or _self_key_to_helper(node, ctx) or library_consumer(node, ctx)
        if name is None or not name.startswith("self.") or name.count(".") != 1:
            return
        attr = name[5:]
        if _SEED_ATTRIBUTE.fullmatch(attr):
            return  # `self.seed` (scikit-learn's `random_state`): each fit starts alike, on purpose
        if not _bound_only_in_init(cls, attr, ctx):
            return
        setters = sorted(writer_methods(cls, ctx).get(attr, ()))
        where = (
            "in the class body"
            if _class_key(cls, attr, ctx)
            else f"in `{setters[0]}`"
            if setters
            else "in `__init__`"
        )
        if runs_repeatedly_eagerly(ctx):
            self.report(
                ctx,
                _key_argument(node, name) or node,
                f"PRNG key `{name}` is bound once, {where}, and nothing advances it: every "
                f"call of `{scope.name.value}` draws the same numbers; split it and store the "
                f"new key (`{name}, sub = jax.random.split({name})`), or take a key per call",
            )
            return
        earlier = _earlier_consumer(cls, scope, name, ctx)
        if earlier is not None:
            self.report(
                ctx,
                _key_argument(node, name) or node,
                f"PRNG key `{name}` is bound once, {where}, and nothing advances it: "
                f"`{earlier}` draws from it too, so both draw the same numbers; split it and "
                f"store the new key (`{name}, sub = jax.random.split({name})`) where it is used",
            )

    def _fixed_key_per_call(self, node: cst.Call, ctx: RuleContext) -> None:
        """A function that runs repeatedly (called in a loop, a module's `__call__`, a
        jitted step the module calls in a loop) drawing from a key it makes from a constant
        seed (`rng = jax.random.PRNGKey(1234)`, then `random_routing(rng, ...)`; `choice(
        PRNGKey(0), ...)`): every call draws the same numbers (maxtext's random routing,
        a VAE's reparameterisation noise). ``node`` is the key's maker."""
        if last_name(node.func) not in _MAKER_NAMES:
            return  # (the spelling first: most calls make no key)
        if not _constant_key(node, ctx) and not _stored_seed_key(node, ctx):
            return
        if ctx.mode is not Mode.NONE and ctx.repeats:
            return  # `_fixed_seed`'s
        scope = ctx.scope
        if type(scope) is not cst.FunctionDef or scope.name.value in SETUP_METHODS:
            return
        if _in_test(scope, ctx.module):
            return  # tests fix their seeds on purpose
        params = param_names(scope.params)
        names = {  # the local names bound only to this key (not a parameter's fallback),
            # or first to it and then only to its own splits (`rng, key = split(rng)`)
            name
            for name, values in assigned_values(ctx).items()
            if values
            and values[0] is node
            and name not in params
            and (len(values) == 1 or _split_again_only(scope, node, name, ctx))
        }
        for call in _calls_in(scope.body):
            if not any(
                a.value is node or (type(a.value) is cst.Name and a.value.value in names)
                for a in call.args
            ):
                continue
            if _is_sampler(ctx.qualname(call.func)):
                key = arg(call, 0, "key")
                drawn = key is not None and (
                    key.value is node or (type(key.value) is cst.Name and key.value.value in names)
                )
            else:
                resolved = ctx.resolve_function(call.func, needle=b"random")
                if resolved is None or not resolved.defined_here:
                    continue
                consumed, _, guards = _consumption(resolved, ctx)
                drawn = any(
                    g is node or (type(g) is cst.Name and g.value in names)
                    for g in _consumed_arguments(call, resolved, consumed, guards)
                )
            if drawn:
                if _numpyro_model(scope, ctx) or not runs_repeatedly(ctx) or swept_only(ctx):
                    # (a script calling it once per configuration of a sweep, `for unroll in
                    # (False, True): main(args)`, compares runs from one seed on purpose)
                    return
                self.report(
                    ctx,
                    node,
                    f"PRNG key `{snippet(node)}` is made from the same seed on every call of "
                    f"`{scope.name.value}`, which runs repeatedly, so every call draws the same "
                    "numbers: take a key as an argument (or a stream's next key) and split it",
                )
                return

    def _default_key_draw(self, node: cst.Call, ctx: RuleContext) -> None:
        """A draw from a parameter whose default is a key made from a constant seed
        (`def forward_simulation(..., key=jr.PRNGKey(1))`), in a function the module calls
        more than once without that argument (or once, in a loop): every such call draws the
        same numbers from the one default key (dynax's noisy measurements)."""
        scope = ctx.scope
        if type(scope) is not cst.FunctionDef or not node.args:
            return
        params = scope.params
        defaults = {
            p.name.value: p.default
            for p in (*params.params, *params.kwonly_params)
            if type(p.default) is cst.Call or type(p.default) is cst.Name
        }
        if not defaults:
            return  # (most functions have no call as a default: the cheap test first)
        name = consumer(node, ctx) or library_consumer(node, ctx, spelled=False)
        if name is None or name not in defaults:
            return  # (a library call's key is known by the default: `rkey=PRNGKey(3)`)
        default = defaults[name]
        if type(default) is cst.Name:
            # `_random_key = random.PRNGKey(712)` once at the top, then `def
            # gen_dataset(bounds, key=_random_key)`: the default is that key, whatever
            # later rebinds the global (sasde's datasets)
            values = module_assignments(ctx).get(default.value)
            if not values or len(values) != 1 or ctx.assignment_count(default.value) != 1:
                return
            made = values[0]
        else:
            made = default
        if type(made) is not cst.Call or not _constant_key(made, ctx):
            return  # not a constant key
        if name in assigned_values(ctx):
            return  # rebound in the body
        positional = [p.name.value for p in (*params.posonly_params, *params.params)]
        cls = ctx.enclosing_class
        if any(stmt is scope for stmt in ctx.module.body):
            calls = ctx.call_sites(scope)  # a module-level function's calls
        elif (
            cls is not None
            and any(stmt is cls for stmt in ctx.module.body)
            and any(stmt is scope for stmt in cls.body.body)
            and positional[:1] == ["self"]
            and not scope.decorators
        ):
            # `fitter.sample()` twice on a module-level `fitter = FitSingle(...)`, the
            # method defined in its class or a base (pysersic's `rkey=PRNGKey(3)`)
            positional = positional[1:]
            calls = ctx.method_call_sites(cls, scope)
        else:
            return
        omitting = _calls_omitting(calls, positional, {name})
        if not omitting or (len(omitting) == 1 and not runs_repeatedly(ctx)):
            return
        if _in_test(scope, ctx.module):
            return
        self.report(
            ctx,
            _key_argument(node, name) or node,
            f"PRNG key `{name}` defaults to `{snippet(default)}`"
            f"{'' if made is default else f' (`{snippet(made)}`)'}, made once when `def` runs, "
            f"and the module calls `{scope.name.value}` without it more than once: each call "
            "draws the same numbers; pass a fresh key (split one) on every call",
        )

    def _default_key_omitted(self, node: cst.Call, ctx: RuleContext) -> None:
        """A call, in a loop or after another such call, that omits the key of a jitted
        function whose key parameter defaults to a key made from a constant seed and which
        hands that key on rather than drawing from it (`state = (x, v, key)`, then
        `lax.scan(step, state, None, length=T)`): every call draws the same numbers from
        the one default key (bcolloran's damped-spring noise, the same for all 50 episodes).
        JAX's key-reuse checker names the call: jit consumes its arguments, the default
        among them, where it is called. A function that draws from the key itself is
        reported at the draw (`_default_key_draw`)."""
        resolved = ctx.resolve_function(node.func)
        if resolved is None or type(resolved.fn) is not cst.FunctionDef:
            return
        fn = resolved.fn
        defaults = [
            p
            for p in (*fn.params.params, *fn.params.kwonly_params)
            if type(p.default) is cst.Call and _constant_key(p.default, ctx)
        ]
        if not defaults or ctx.def_spec(fn) is None or _in_test(fn, ctx.module):
            return
        positional = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
        omitting = _calls_omitting(ctx.call_sites(fn), positional, {p.name.value for p in defaults})
        if omitting is None or node not in omitting:
            return
        if not (ctx.in_loop and not ctx.in_sweep) and omitting.index(node) == 0:
            return  # the first call draws from the default once
        for p in defaults:
            name = p.name.value
            if (
                any(type(n) is cst.Name and n.value == name for n in descendants(fn.body))
                and not self._drawn_from(fn, name, ctx)
                and name not in scope_names(fn.body).locals
            ):
                self.report(
                    ctx,
                    node,
                    f"PRNG key `{name}` of the jitted `{fn.name.value}` defaults to "
                    f"`{snippet(cast(cst.Call, p.default))}`, made once when `def` runs, and "
                    "this call omits "
                    "it again: every such call draws the same numbers; pass a fresh key "
                    "(split one) on every call",
                )
                return

    @staticmethod
    def _drawn_from(fn: cst.FunctionDef, name: str, ctx: RuleContext) -> bool:
        """Tell whether ``fn`` hands its parameter ``name`` to `jax.random` itself (not a
        function it defines, whose `key` is its own: a loop body given the key in its carry
        draws from it inside the jitted call, which is where JAX's checker raises)."""
        return any(
            any(type(a.value) is cst.Name and a.value.value == name for a in call.args)
            and _is_sampler(ctx.qualname(call.func))
            for call in _calls_in(fn.body)
        )

    def _model_fixed_key(self, node: cst.Call, ctx: RuleContext) -> None:
        """A numpyro model (a function that calls `numpyro.sample`) drawing from a key made
        from a constant seed, itself or through a function of the project it hands the key
        to (`simulate(jax.random.PRNGKey(0), ...)`): numpyro runs the model again for every
        sample and every step of inference, and only its sample sites get new keys, so
        that draw is the same in every run (numpyro#1977: `numpyro.prng_key()` gives one)."""
        if ctx.mode is not Mode.NONE and ctx.repeats:
            return  # `_fixed_seed`'s
        scope = ctx.scope
        if type(scope) is not cst.FunctionDef or not ctx.mentions("numpyro"):
            return
        made: cst.BaseExpression | None = None
        if _is_sampler(ctx.qualname(node.func)):
            key = arg(node, 0, "key")
            made = key.value if key is not None else None
        elif any(type(a.value) is cst.Call for a in node.args):
            resolved = ctx.resolve_function(node.func, needle=b"random")
            if resolved is not None:
                consumed, _, guards = _consumption(resolved, ctx)
                given = _consumed_arguments(node, resolved, consumed, guards)
                made = next((g for g in given if type(g) is cst.Call), None)
        if type(made) is not cst.Call or not _constant_key(made, ctx):
            return
        if not _numpyro_model(scope, ctx):
            return
        self.report(
            ctx,
            made,
            f"PRNG key `{snippet(made)}` is made from the same seed in a numpyro model, which "
            "numpyro runs again for every sample and inference step: this draw is the same "
            "in every run; take a key from `numpyro.prng_key()` instead",
        )

    def _constant_rngs(self, node: cst.Call, ctx: RuleContext) -> None:
        """`apply(v, x, rngs={"dropout": jax.random.PRNGKey(0)})` in jitted code: the stream
        starts from the same key on every call, so dropout drops the same units every step
        (d2l's classifier loss before its fix)."""
        if ctx.mode is not Mode.JIT or not ctx.staged:
            return
        for value in _streams(node):
            if isinstance(value, cst.Call) and _constant_key(value, ctx):
                self.report(
                    ctx,
                    value,
                    f"`{snippet(value)}` gives this stream the same key on every call of "
                    "the jitted code, so it draws the same numbers each time (the same "
                    "dropout mask every step): take a key as an argument and split it",
                )
                return
        # `rngs = {"dropout": jax.random.PRNGKey(1337)}`, then `apply(v, x, rngs=rngs)`:
        # each call handed the dict draws from that constant key (CycleGAN's generators).
        if type(node.func) is not cst.Attribute or node.func.attr.value not in FLAX_RUNNERS:
            return
        given = arg(node, None, "rngs")
        if given is None or type(given.value) is not cst.Name:
            return
        bound = _bound_once(given.value, assigned_values(ctx))
        for key, value in _values(bound) if type(bound) is cst.Dict else ():
            if isinstance(key, cst.SimpleString) and key.raw_value == "params":
                continue
            if isinstance(value, cst.Call) and _constant_key(value, ctx):
                self.report(
                    ctx,
                    node,
                    f"`{snippet(given.value)}` holds `{snippet(value)}`, the same key on every "
                    "call of the jitted code, so this call draws the same numbers each time "
                    "(the same dropout mask every step): take a key as an argument and split it",
                )
                return

    def _key_per_leaf(self, node: cst.Call, ctx: RuleContext) -> None:
        """`tree_map(lambda g: g + normal(rng, g.shape), grads)`: the function runs once per
        leaf, each time drawing from the same key from outside it, so leaves of one shape get
        the same numbers (the DP-SGD example's noise before its fix)."""
        if not node.args or "map" not in last_name(node.func):
            return  # (a cheap look at the spelling first: `jax.tree.map`, `tree_map`)
        q = ctx.qualname(node.func)
        if q is None and isinstance(node.func, cst.Name):
            # `tree_map = tree_util.tree_map` in the function, then `tree_map(f, tree)`
            values = assigned_values(ctx).get(node.func.value)
            if values is not None and len(values) == 1:
                q = ctx.qualname(values[0])
        if q not in TREE_MAPS:
            return
        first = arg(node, 0, "f")
        fn: cst.Lambda | cst.FunctionDef | None = None
        if first is not None and isinstance(first.value, cst.Lambda):
            fn = first.value
        elif first is not None and isinstance(first.value, cst.Name):
            values = assigned_values(ctx).get(first.value.value)
            if values is not None and len(values) == 1 and isinstance(values[0], cst.Lambda):
                fn = values[0]
            elif values is None:
                resolved = ctx.resolve_function(first.value)
                if resolved is not None and isinstance(resolved.fn, cst.FunctionDef):
                    fn = resolved.fn
        if fn is None:
            return
        inner = set(param_names(fn.params))
        if isinstance(fn, cst.FunctionDef):
            inner |= scope_names(fn.body, fn.params).locals
        for call in _calls_in(fn.body):
            if not _is_sampler(ctx.qualname(call.func)):
                continue
            key = arg(call, 0, "key")
            if key is None or not isinstance(key.value, cst.Name) or key.value.value in inner:
                continue
            self.report(
                ctx,
                call,
                f"`{snippet(node.func)}` calls this function once per leaf, and each call draws "
                f"from the same key `{key.value.value}`, so leaves of one shape get the same "
                f"numbers: split it per leaf (`jax.random.split({key.value.value}, "
                "len(leaves))`) and map over the keys too",
            )
            return

    def _ignored_key(self, node: cst.Call, ctx: RuleContext) -> None:
        """`def mask(self, x, rng): ... split(key(0))`: a function given a key that it never
        reads, drawing from a key made from a constant seed instead, draws the same numbers
        on every call (jasmine's masking method, before its fix)."""
        scope = ctx.scope
        if type(scope) is not cst.FunctionDef or last_name(node.func) not in _MAKER_NAMES:
            return
        if not _constant_key(node, ctx):
            return
        ignored = _ignored_key_params(scope, ctx)
        if not ignored:
            return
        self.report(
            ctx,
            node,
            f"`{scope.name.value}` is given the key `{ignored[0]}` but never uses it, and draws "
            f"from `{snippet(node)}`, made from the same seed on every call, so every call draws "
            f"the same numbers: draw from `{ignored[0]}` (split it as needed)",
        )

    def reuse(
        self, ctx: RuleContext, node: cst.Call, name: str, first: cst.Call, where: str = ""
    ) -> None:
        """Report ``node`` consuming key ``name`` that ``first`` already consumed."""
        if first is not node and _aligned_permutations(first, node, ctx):
            return  # `X = permutation(k, X)`, `Y = permutation(k, Y)`: one shuffle of both
        where = where or (
            "on every iteration of the enclosing loop"
            if first is node
            else f"after `{snippet(first)}` already used it"
        )
        self.report(ctx, node, name=name, where=where)
