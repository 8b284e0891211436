"""Evaluate how traced an expression is (STATIC < UNKNOWN < TRACED) in a scope chain."""

from __future__ import annotations

import builtins
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import libcst as cst

from jitlint.analysis import knowledge as K
from jitlint.analysis import transforms
from jitlint.analysis.cst_util import STRING_LITERALS, strings_only, variable_names
from jitlint.analysis.kinds import ARRAYS, CONTAINERS, Kind, kind_of
from jitlint.analysis.module_info import dotted
from jitlint.analysis.scopes import param_names
from jitlint.analysis.transforms import TRACED_RESULTS, TREE_MAPS
from jitlint.model import TRACED_MODES, Mode, Taint

if TYPE_CHECKING:
    from jitlint.analysis.analyzer import Analysis, Resolved

_BUILTINS = frozenset(dir(builtins))
_LITERALS = (
    cst.Integer,
    cst.Float,
    cst.Imaginary,
    cst.SimpleString,
    cst.ConcatenatedString,
    cst.Ellipsis,
)
_LITERAL_TYPES = frozenset(_LITERALS)  # libcst's node classes are final
_STRINGS = frozenset((cst.SimpleString, cst.ConcatenatedString, cst.FormattedString))
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)
FunctionNode = cst.FunctionDef | cst.Lambda


@dataclass(frozen=True)
class Style:
    """Say how a trace treats objects: inherited by everything analysed inside it."""

    # Attributes of traced parameters are traced (jax.jit pytrees) or unknown (equinox).
    traced_attrs: bool = True
    # Writes to `self` attributes are carried out by the transform (flax nnx/linen).
    stateful: bool = False
    # Staged out to a jaxpr (jit, pmap, lax bodies, checkpoint), directly or by an enclosing
    # trace: every JAX operation returns a tracer here, even on constants (omnistaging).
    staged: bool = False
    # The transformed function is called only where it is made (`jax.jit(f)(x)`, or handed
    # to a function that only calls it): traced anew each time, so what it reads is current.
    fresh: bool = False
    # Under an equinox filter transform (`eqx.filter_jit`): only array leaves are traced,
    # Python values anywhere in the arguments (bools, callables) stay static.
    filtered: bool = False

    def under(self, filter_style: bool, stateful: bool, staged: bool) -> Style:
        """Return this style inside a transform with the given properties."""
        return Style(
            # equinox's filter transforms and flax's (nnx, linen) keep a module's Python
            # attributes static: only its arrays and variables are traced
            self.traced_attrs and not filter_style and not stateful,
            self.stateful or stateful,
            self.staged or staged,
            self.fresh,
            self.filtered or filter_style,
        )


@dataclass
class Frame:
    """Hold one scope being analysed: its mode, bindings and local definitions."""

    node: cst.Module | cst.FunctionDef | cst.Lambda | cst.ClassDef
    mode: Mode
    env: dict[str, Taint] = field(default_factory=dict)
    locals: set[str] = field(default_factory=set)
    defs: dict[str, cst.FunctionDef] = field(default_factory=dict)
    cls: cst.ClassDef | None = None
    # A root frame starts a trace of its own (decorated, or passed to a transform).
    root: bool = False
    returns: Taint = Taint.STATIC
    # What the function's `return` statements evidently hand back (None: not evident).
    return_kinds: set[Kind | None] = field(default_factory=set)
    # How traced each element of the tuple every `return a, b` builds is (None: no such
    # return yet); `return_mixed` once a return is something else, or of another length.
    return_parts: list[Taint] | None = None
    return_mixed: bool = False
    declared_outer: set[str] = field(default_factory=set)  # global/nonlocal names
    style: Style = field(default_factory=lambda: Style())
    # Names bound to array functions (`act = jax.nn.relu`, `f = jnp.max if c else jnp.min`).
    array_fns: set[str] = field(default_factory=set)
    # Names bound straight from an attribute (`ds = state.dynamic_scale`): often Optional.
    fields: set[str] = field(default_factory=set)
    # Names bound to list/dict/set literals here (unhashable as static arguments).
    unhashable: set[str] = field(default_factory=set)
    # Names bound to instances here (`m = MLP(...)`, `m: MLP`): name -> the class expression.
    instances: dict[str, cst.BaseExpression] = field(default_factory=dict)
    # The calls that built them (`fe = Element(points, cells)`), as bound now.
    constructions: dict[str, cst.Call] = field(default_factory=dict)
    # Names bound to an object constructed here (`svi = SVI(...)`), not received.
    built: set[str] = field(default_factory=set)
    # The method's object was constructed inside the trace: writes to `self` stay inside it.
    owns_self: bool = False
    # Parameters the caller gave an object from outside the trace it runs in (a name the
    # caller closed over, or got so itself): a tracer written into one leaks.
    outer_params: frozenset[str] = frozenset()
    # Attributes of `self` stored so far in this walk, here or by a method of the same
    # `self` it called (`self.fit(params)` storing `self.gp`): a later read gets that value.
    self_stores: set[str] = field(default_factory=set)
    # How traced each element of the tuple a name holds is: bound here to a tuple display
    # (`operands = (probs, seeds, rng)`), or a parameter the caller gave one
    # (`sample((*operands, True))`), so that unpacking it keeps a Python part static.
    parts: dict[str, list[Taint]] = field(default_factory=dict)
    # Names bound to jitted callables here: name -> (static positions, static names).
    jitted: dict[str, tuple[frozenset[int], frozenset[str]]] = field(default_factory=dict)
    # The call that made each of those (`fast = jax.jit(jnp.linalg.norm)`), as bound now.
    jit_calls: dict[str, cst.Call] = field(default_factory=dict)
    # What each name holds at this point of the walk (None: rebound to something unknown).
    kinds: dict[str, Kind | None] = field(default_factory=dict)
    # Names bound to array namespaces here (`xp = jnp`, `xp = array_namespace(x)`).
    namespaces: dict[str, str] = field(default_factory=dict)
    # What a name means at this point of the walk: the function its latest `def` made, or
    # None when rebound to something else; `partials` holds `f = partial(g, ...)` bindings.
    bound_defs: dict[str, cst.FunctionDef | None] = field(default_factory=dict)
    # A parameter the module's calls give one of several functions (`ehvi` at one call,
    # what `select_acq(name)` returns at another): the others, called as well when it is.
    alternatives: dict[str, tuple[cst.FunctionDef, ...]] = field(default_factory=dict)
    partials: dict[str, tuple[cst.Call, Resolved]] = field(default_factory=dict)
    # Parameters every call leaves at their literal default (`verbose=False`), never rebound
    # here: `if verbose:` cannot run its body.
    constants: dict[str, cst.BaseExpression] = field(default_factory=dict)
    # Names bound to a call's result (`lr = make_schedule(...)`): the call, in case it is a
    # closure factory whose returned function a transform is given later.
    products: dict[str, cst.Call] = field(default_factory=dict)
    # Names bound to a lambda here (`get = lambda x: x.data`), traced when a transform gets it.
    lambdas: dict[str, cst.Lambda] = field(default_factory=dict)
    # For the frame of a project decorator applied to a function: that function, which its
    # parameter holds undecorated.
    decorated: cst.FunctionDef | None = None


def join(*values: Taint) -> Taint:
    """Join lattice values (the most traced wins); the empty join is STATIC."""
    return max(values, default=Taint.STATIC)


def mixed_record(value: cst.BaseExpression, taint: Callable[[cst.BaseExpression], Taint]) -> bool:
    """Tell whether ``value`` is a tuple or list display with a part that is not traced
    (`(deriv_order, deriv_value)`): a list filled with such records holds Python values as
    well as tracers, and reading it as all tracers would make its Python parts traced."""
    return isinstance(value, cst.Tuple | cst.List) and any(
        type(el) is cst.Element and taint(el.value) is not Taint.TRACED for el in value.elements
    )


class Evaluator:
    """Compute the taint of expressions in the analysis' current scope chain."""

    def __init__(self, analysis: Analysis) -> None:
        self.a = analysis
        self.cache: dict[int, Taint] = {}

    # Names --------------------------------------------------------------------
    def name(self, name: str) -> Taint:
        """Return the taint of a name read in the current scope."""
        current = self.a.frame
        for frame in reversed(self.a.stack):
            if type(frame.node) is cst.ClassDef and frame is not current:
                continue  # class bodies are not enclosing scopes for their methods
            if name in frame.namespaces:
                return Taint.STATIC  # a module: `xp = jnp`
            if name in frame.env:
                return frame.env[name]
            if name in frame.locals and not isinstance(frame.node, cst.Module):
                return Taint.UNKNOWN
        info = self.a.info
        if name in info.imports or name in info.functions or name in info.classes:
            return Taint.STATIC
        if name in info.assigned or name in _BUILTINS:
            return Taint.STATIC
        return Taint.UNKNOWN

    # Expressions ----------------------------------------------------------------
    def value(self, expr: cst.BaseExpression) -> Taint:
        """Return the taint of ``expr`` (cached until the next statement)."""
        key = id(expr)
        cached = self.cache.get(key)
        if cached is None:
            cached = self._value(expr)
            self.cache[key] = cached
        return cached

    def _value(self, e: cst.BaseExpression) -> Taint:
        v = self.value
        if type(e) is cst.Name:
            if e.value in {"True", "False", "None"}:
                return Taint.STATIC
            return self.name(e.value)
        if type(e) in _LITERAL_TYPES:
            return Taint.STATIC
        if type(e) is cst.FormattedString:
            return join(
                *(
                    v(part.expression)
                    for part in e.parts
                    if type(part) is cst.FormattedStringExpression
                )
            )
        if type(e) is cst.Attribute:
            return self._attribute(e)
        if type(e) is cst.Subscript:
            base = v(e.value)
            index = join(*(self._slice(el.slice) for el in e.slice))
            if base is Taint.STATIC:
                if index is Taint.STATIC:
                    # Staged code indexes even a constant JAX array into a tracer.
                    return self._staged_array(Taint.STATIC, e.value)
                # A tracer indexes only arrays: a constant JAX array closed over
                # (`table[i]`) gives a tracer; a list or NumPy array fails right there.
                if index is Taint.TRACED and self.a.mode in TRACED_MODES:
                    kind = self.kind(e.value)
                    if kind is None or kind in ARRAYS:
                        return Taint.TRACED
                return Taint.UNKNOWN
            return join(base, index)
        if type(e) is cst.BinaryOperation:
            return self._staged_array(join(v(e.left), v(e.right)), e.left, e.right)
        if type(e) is cst.UnaryOperation:
            if type(e.operator) is cst.Not:
                return self.truth(e.expression)
            return v(e.expression)
        if type(e) is cst.BooleanOperation:
            if type(e.operator) is cst.And and is_guard(e.left, self.a.qualname):
                return Taint.UNKNOWN  # the right side only runs on concrete values
            return join(self.truth(e.left), self.truth(e.right))
        if type(e) is cst.Comparison:
            return self._comparison(e)
        if type(e) is cst.IfExp:
            return join(v(e.body), v(e.orelse))
        if type(e) is cst.Tuple or type(e) is cst.List or type(e) is cst.Set:
            return join(*(v(el.value) for el in e.elements))
        if type(e) is cst.Dict:
            return join(*(v(el.value) for el in e.elements))
        if type(e) is cst.Call:
            return self._call(e)
        if type(e) is cst.Lambda:
            return Taint.STATIC
        if isinstance(e, _COMPREHENSIONS):
            return self.a.comprehension_value(e)
        if type(e) is cst.NamedExpr:
            value = v(e.value)
            if type(e.target) is cst.Name:
                self.a.frame.env[e.target.value] = value
            return value
        if type(e) is cst.StarredElement:
            return v(e.value)
        return Taint.UNKNOWN

    def truth(self, expr: cst.BaseExpression) -> Taint:
        """Return the taint of ``expr``'s truth value: a Python container's is static."""
        if self.kind(expr) in CONTAINERS:
            return Taint.STATIC  # `if params:` asks whether a dict of tracers is empty
        return self.value(expr)

    def kind(self, expr: cst.BaseExpression) -> Kind | None:
        """Return what ``expr`` evidently holds here (see ``kinds``)."""
        return kind_of(self, expr)

    def _slice(self, s: cst.BaseSlice) -> Taint:
        if isinstance(s, cst.Index):
            return self.value(s.value)
        if isinstance(s, cst.Slice):
            parts = [p for p in (s.lower, s.upper, s.step) if p is not None]
            return join(*(self.value(p) for p in parts))
        return Taint.UNKNOWN

    def _attribute(self, e: cst.Attribute) -> Taint:
        if e.attr.value in K.STATIC_ATTRS:
            return Taint.STATIC
        base = e.value
        cls = self.a.frame.cls
        if (
            cls is not None
            and isinstance(base, cst.Name)
            and base.value == "self"
            and e.attr.value in self.a.info.static_fields.get(cls.name.value, ())
        ):
            return Taint.STATIC
        if e.attr.value in self.a.info.static_properties:
            return Taint.STATIC  # `state.num_steps`, a property returning a shape
        if type(base) is cst.Name:
            # `grid.num_dims` of `grid: TPUGrid`, a field the class declares static
            held = self.a.frame.instances.get(base.value)
            if type(held) is cst.Attribute:
                held = held.attr  # `density: types.Density2DArray`
            if held is not None and e.attr.value in self.a.info.static_fields.get(
                held.value if type(held) is cst.Name else "", ()
            ):
                return Taint.STATIC
        head = _head(base)
        if head is not None and head in self.a.info.imports and self._unbound(head):
            return Taint.STATIC  # a module attribute such as jnp.float32 or math.pi
        if type(base) is cst.Name and base.value == "self":
            stored = self.a.frame.env.get("self." + e.attr.value)
            if stored is not None:
                return stored  # a tracer this trace stored in a static `self`
        value = self.value(base)
        if value is Taint.TRACED and not self.a.frame.style.traced_attrs:
            # equinox traces the array leaves of a module and keeps the rest static: a field
            # annotated as an array is traced.
            if (
                cls is not None
                and isinstance(base, cst.Name)
                and base.value == "self"
                and e.attr.value in self.a.info.array_fields.get(cls.name.value, ())
            ):
                return value
            return Taint.UNKNOWN
        return value

    def _unbound(self, name: str) -> bool:
        return not any(name in f.env or name in f.locals for f in self.a.stack[1:])

    def _comparison(self, e: cst.Comparison) -> Taint:
        ops = [c.operator for c in e.comparisons]
        if any(isinstance(op, cst.Is | cst.IsNot) for op in ops):
            return Taint.STATIC
        left = self.value(e.left)
        tested = [c.comparator for c in e.comparisons if isinstance(c.operator, cst.In | cst.NotIn)]
        if tested:
            if len(tested) == len(ops) and all(strings_only(t) for t in tested):
                # `bc[0] in ["not-a-knot", "periodic"]`: an array equals no string (False,
                # never a tracer), so a test against strings alone is a Python value
                return Taint.STATIC
            # A static key tested against a pytree dict is static; tested against a JAX
            # array, `in` is `(arr == o).any()`, an array like any other comparison.
            arrays = [
                c.comparator
                for c in e.comparisons
                if isinstance(c.operator, cst.In | cst.NotIn) and self.kind(c.comparator) in ARRAYS
            ]
            if not arrays:
                return left
            return self._staged_array(join(left, *map(self.value, arrays)), *arrays)
        if any(isinstance(c.comparator, STRING_LITERALS) for c in e.comparisons):
            return Taint.STATIC  # arrays are never compared with strings: a Python value
        sides = [e.left, *(c.comparator for c in e.comparisons)]
        if any(type(side) is cst.Name and side.value == "None" for side in sides):
            # `X2 == None`: a JAX array compared with None falls back to identity, a Python
            # bool (False; True for `!=`), never a tracer
            return Taint.STATIC
        if any(isinstance(side, cst.Tuple | cst.List) for side in sides):
            return Taint.STATIC  # JAX refuses to compare an array with a tuple or list

        found = join(left, *(self.value(c.comparator) for c in e.comparisons))
        return self._staged_array(found, *sides)

    def _staged_array(self, found: Taint, *operands: cst.BaseExpression) -> Taint:
        """Return ``found``, or TRACED when staged code applies an operator to a JAX array:
        under jit even a constant array's `y <= 0` is a tracer (omnistaging)."""
        if found is Taint.TRACED or not self.staged:
            return found
        if any(self.kind(o) in ARRAYS for o in operands):
            return Taint.TRACED
        return found

    def args(self, call: cst.Call) -> Taint:
        """Join the taint of every argument of a call."""
        return join(*(self.value(arg.value) for arg in call.args))

    def _call(self, call: cst.Call) -> Taint:
        func = call.func
        q = self.a.qualname(func)
        args = self.args(call)
        if q is not None:
            if q in K.STATIC_CALLS or q.startswith("jax.dtypes."):
                return Taint.STATIC
            if q in TRACED_RESULTS and self.a.mode is not Mode.NONE:
                return Taint.TRACED
            if q in K.CONCRETIZING_CALLS:
                return Taint.UNKNOWN if args is Taint.TRACED else Taint.STATIC
            if q in K.NUMPY_CONVERSIONS and args is Taint.TRACED:
                return Taint.UNKNOWN
            if q in K.PASSTHROUGH_BUILTINS:
                return args
            if q.startswith(K.HOST_MODULES):
                return args
            if q in TREE_MAPS:
                mapped = self.a.tree_map_value(call)
                if mapped is not None:
                    return mapped
                callback = call.args[0].value if call.args else None
                if isinstance(callback, cst.Name | cst.Attribute) and K.is_predicate_name(
                    self.a.qualname(callback) or dotted(callback)
                ):
                    return Taint.UNKNOWN  # `tree_map(_is_none, tree)`: a structure question
            if q.startswith(K.ARRAY_MODULES):
                if K.is_predicate_name(q):
                    return Taint.UNKNOWN  # eqx.is_array_like(x) answers about structure
                if self.staged and K.stages(q) and transforms.lookup(q, frozenset()) is None:
                    return Taint.TRACED  # omnistaging: `jnp.sqrt(2.0)` is a tracer under jit
                return args if args is Taint.TRACED else Taint.UNKNOWN
        helper = self.a.applied_method(call) or self.a.resolve_function(func)
        if helper is not None:
            returned = self.a.call_helper(helper, call)
            for other in helper.others:  # every subclass's definition of a template method
                returned = join(returned, self.a.call_helper(other, call))
            return Taint.TRACED if self.staged and self.a.is_jitted(func) else returned
        if self.staged and (self.a.is_jitted(func) or self._is_transformed(func)):
            return Taint.TRACED  # a jitted or transformed function called in staged code
        if K.is_predicate_name(q):
            return Taint.UNKNOWN
        if isinstance(func, cst.Attribute) and not self._is_module_path(func):
            if func.attr.value in K.STATIC_METHODS:
                return Taint.STATIC
            if type(func.value) in _STRINGS:
                # `"shape: {}".format(x.shape)`: a Python string, made at trace time from
                # what it formats (one that formats a tracer shows the tracer's repr)
                return Taint.STATIC if args is Taint.STATIC else Taint.UNKNOWN
            # A method computes on its receiver (`x.sum()`), and a known object's method on
            # its traced arguments (`model.apply(params, x)`); an unknown object's method
            # (`tracer.get_trace(x)`) may return anything.
            receiver = self.value(func.value)
            if receiver is not Taint.STATIC:
                return receiver
            traced_args = args is Taint.TRACED and not K.is_predicate_name(q)
            return Taint.TRACED if traced_args else Taint.UNKNOWN
        if args is not Taint.TRACED and self._closes_over_tracer(func):
            # `vmap(lambda x: jnp.sum(c * x))(xs)` in traced code: the lambda computes on
            # the tracer `c` it closes over, whatever `xs` is
            return Taint.TRACED
        if args is not Taint.TRACED or K.is_predicate_name(q):
            return Taint.UNKNOWN
        if isinstance(func, cst.Name) and self._is_array_fn(func.value):
            return Taint.TRACED
        # A callable that is itself an argument of the trace (`fn(x)`), or a transformed
        # function (`jax.vmap(f)(x)`), computes on its inputs; a function imported from
        # elsewhere may return anything, so it stays unknown.
        if isinstance(func, cst.Call) or self.value(func) is Taint.TRACED:
            return Taint.TRACED
        return Taint.UNKNOWN

    @property
    def staged(self) -> bool:
        """Tell whether the current code is staged out to a jaxpr (omnistaging applies)."""
        return self.a.frame.style.staged

    def _is_transformed(self, func: cst.BaseExpression) -> bool:
        """Tell whether ``func`` is a transform applied to a function: `jax.vmap(f)`."""
        return isinstance(func, cst.Call) and self.a.transform(func.func) is not None

    def _closes_over_tracer(self, func: cst.BaseExpression) -> bool:
        """Tell whether ``func`` transforms a lambda (`jax.vmap(lambda x: ...)`) that reads a
        name traced here, in traced code."""
        if self.a.mode is Mode.NONE or not self._is_transformed(func):
            return False
        assert isinstance(func, cst.Call)
        first = func.args[0].value if func.args and not func.args[0].star else None
        if type(first) is not cst.Lambda:
            return False
        own = set(param_names(first.params))
        return any(
            n.value not in own and self.value(n) is Taint.TRACED for n in variable_names(first.body)
        )

    def _is_array_fn(self, name: str) -> bool:
        for frame in reversed(self.a.stack):
            if name in frame.array_fns:
                return True
            if name in frame.env or name in frame.locals:
                return False
        return False

    def _is_module_path(self, func: cst.Attribute) -> bool:
        head = _head(func)
        return head is not None and head in self.a.info.imports and self._unbound(head)


def is_guard(
    test: cst.BaseExpression, qualname: Callable[[cst.BaseExpression], str | None]
) -> bool:
    """Tell whether ``test`` checks that values are concrete (``not_jax_tracer(x)``, or
    ``not is_tracer(x)``), as itself or as any conjunct of an ``and`` (`if sparse and
    not_jax_tracer(x):`)."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return is_guard(test.left, qualname) or is_guard(test.right, qualname)
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test = test.expression  # `not _is_tracer(x) and x > n`: `x > n` only runs concrete
    if not isinstance(test, cst.Call):
        return False
    q = (qualname(test.func) or "").lower()
    if q == "isinstance" and len(test.args) == 2:
        return "tracer" in cst.Module([]).code_for_node(test.args[1].value).lower()
    return any(p in q.rsplit(".", 1)[-1] for p in K.GUARD_NAME_PARTS)


def runs_untraced(
    test: cst.BaseExpression, qualname: Callable[[cst.BaseExpression], str | None]
) -> bool:
    """Tell whether an `if` body with this test only runs outside any trace.

    `if not _is_under_jax_transform():` and `if trace_state_clean():` (either as one of the
    conjuncts of an `and`) guard code that must not run while tracing.
    """
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return runs_untraced(test.left, qualname) or runs_untraced(test.right, qualname)
    negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
    call = test.expression if isinstance(test, cst.UnaryOperation) else test
    if not isinstance(call, cst.Call):
        return False
    last = (qualname(call.func) or "").rsplit(".", 1)[-1].lower()
    if negated:
        return any(p in last for p in K.TRACING_PREDICATES)
    return any(p in last for p in K.UNTRACED_PREDICATES)


def concrete_by_type(
    test: cst.BaseExpression, qualname: Callable[[cst.BaseExpression], str | None]
) -> list[str]:
    """Return the names an `if` test proves concrete: `isinstance(x, (np.ndarray, int))`."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return concrete_by_type(test.left, qualname) + concrete_by_type(test.right, qualname)
    if not (isinstance(test, cst.Call) and qualname(test.func) == "isinstance"):
        return []
    if len(test.args) != 2 or not isinstance(test.args[0].value, cst.Name):
        return []
    types = test.args[1].value
    named = [el.value for el in types.elements] if isinstance(types, cst.Tuple) else [types]
    if named and all(qualname(t) in K.CONCRETE_TYPES for t in named):
        return [test.args[0].value.value]
    return []


_CONTAINER_TYPES = {
    "tuple": Kind.SEQUENCE,
    "list": Kind.SEQUENCE,
    "collections.abc.Sequence": Kind.SEQUENCE,
    "typing.Sequence": Kind.SEQUENCE,
    "dict": Kind.MAPPING,
    "collections.abc.Mapping": Kind.MAPPING,
    "typing.Mapping": Kind.MAPPING,
}


def containers_by_type(
    test: cst.BaseExpression, qualname: Callable[[cst.BaseExpression], str | None]
) -> dict[str, Kind]:
    """Return the names an `if` test proves Python containers: `isinstance(x, tuple)` (a
    tuple of tracers is still a tuple: its length and truth value are Python values)."""
    if type(test) is cst.BooleanOperation and isinstance(test.operator, cst.And):
        return containers_by_type(test.left, qualname) | containers_by_type(test.right, qualname)
    if not (type(test) is cst.Call and qualname(test.func) == "isinstance"):
        return {}
    if len(test.args) != 2 or not isinstance(test.args[0].value, cst.Name):
        return {}
    types = test.args[1].value
    named = [el.value for el in types.elements] if isinstance(types, cst.Tuple) else [types]
    kinds = {_CONTAINER_TYPES.get(qualname(t) or "") for t in named}
    if len(kinds) == 1 and None not in kinds:
        kind = kinds.pop()
        assert kind is not None
        return {test.args[0].value.value: kind}
    return {}


def guarded_names(test: cst.BaseExpression) -> list[str]:
    """Return the names a concreteness guard checks."""
    if isinstance(test, cst.BooleanOperation):
        return guarded_names(test.left) + guarded_names(test.right)
    if isinstance(test, cst.Call):
        return [a.value.value for a in test.args if isinstance(a.value, cst.Name)]
    return []


def _head(expr: cst.BaseExpression) -> str | None:
    while isinstance(expr, cst.Attribute):
        expr = expr.value
    return expr.value if isinstance(expr, cst.Name) else None
