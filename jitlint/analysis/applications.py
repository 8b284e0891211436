"""Read how a transform is applied: its mode, static arguments, and which params it binds."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import libcst as cst

from jitlint.analysis.cst_util import literal
from jitlint.analysis.kinds import Kind
from jitlint.analysis.module_info import dotted
from jitlint.analysis.scopes import param_names
from jitlint.analysis.transforms import Transform
from jitlint.model import Mode, Taint

_ARRAY_HINTS = ("Array", "array", "Float", "Int", "Bool", "Num", "Shaped", "PyTree", "Key")


@dataclass(frozen=True)
class Application:
    """Describe how a function is traced: the combined effect of its transforms."""

    mode: Mode
    caches: bool = False
    static_pos: frozenset[int] = frozenset()
    static_names: frozenset[str] = frozenset()
    unbatched_pos: frozenset[int] = frozenset()  # vmap in_axes=None: passed through untraced
    opaque: bool = False  # static arguments given in a form we cannot read
    filter_style: bool = False  # equinox filter_*: only array-typed params are traced
    bound_pos: int = 0  # positional params bound by functools.partial
    bound_names: frozenset[str] = frozenset()
    # How traced each partial-bound argument is (by position or name); unknown if absent.
    bound_taints: tuple[tuple[int | str, Taint], ...] = ()
    stateful: bool = False  # flax transforms: writes to module attributes are propagated
    self_traced: bool = False  # the method's class is a pytree, so `self` is an argument
    untraced: bool = False  # the transform passes the function's arguments through as data
    staged: bool = False  # staged out to a jaxpr (jit, lax bodies): constants become tracers
    # Under grad alone: the positions it differentiates (the others stay concrete), or None
    # when every argument is differentiated (jvp) or the argnums cannot be read.
    diff_pos: frozenset[int] | None = None
    # Leading positional parameters the transform always passes (traced despite defaults).
    passed: int = 0
    # What the calls of the transformed function pass (most positional arguments, keyword
    # names), when every call is seen; a parameter none of them passes keeps its default.
    calls: tuple[int, frozenset[str]] | None = None
    # Where the transformed function is called at once inside traced code (`grad(f)(x, n)`
    # under jit): the positions and names of the arguments that are tracers there. They
    # stay tracers inside, whatever the transform itself would make of them.
    traced_pos: frozenset[int] = frozenset()
    traced_names: frozenset[str] = frozenset()

    def combine(self, other: Application) -> Application:
        """Return the application of ``other`` wrapped around (or inside) this one."""
        return Application(
            mode=max(self.mode, other.mode),
            caches=self.caches or other.caches,
            static_pos=self.static_pos | other.static_pos,
            static_names=self.static_names | other.static_names,
            # Under jit every argument is traced, batched or not.
            unbatched_pos=frozenset()
            if self.caches or other.caches
            else self.unbatched_pos | other.unbatched_pos,
            opaque=self.opaque or other.opaque,
            filter_style=self.filter_style or other.filter_style,
            bound_pos=self.bound_pos + other.bound_pos,
            bound_names=self.bound_names | other.bound_names,
            bound_taints=self.bound_taints + other.bound_taints,
            stateful=self.stateful or other.stateful,
            self_traced=self.self_traced or other.self_traced,
            untraced=self.untraced or other.untraced,
            staged=self.staged or other.staged,
            diff_pos=_combined_diff(self, other),
            passed=max(self.passed, other.passed),
            calls=self.calls if other.calls is None else other.calls,
            traced_pos=self.traced_pos | other.traced_pos,
            traced_names=self.traced_names | other.traced_names,
        )

    def with_partial(self, call: cst.Call, taints: Sequence[Taint] = ()) -> Application:
        """Return this application for ``partial(f, *args, **kwargs)`` instead of ``f``.

        ``taints`` says how traced each bound argument is where the partial is made.
        """
        bound = call.args[1:]
        given = dict(enumerate(taints))
        positional = [i for i, a in enumerate(bound) if a.keyword is None and not a.star]
        names = frozenset(a.keyword.value for a in bound if a.keyword is not None)
        values: dict[int | str, Taint] = dict(self.bound_taints)
        for offset, i in enumerate(positional):
            values[self.bound_pos + offset] = given.get(i, Taint.UNKNOWN)
        for i, a in enumerate(bound):
            if a.keyword is not None:
                values[a.keyword.value] = given.get(i, Taint.UNKNOWN)
        # `partial(f, *args)` / `partial(f, **kwargs)` may bind any parameter.
        unknown = any(a.star for a in bound)
        return replace(
            self,
            bound_pos=self.bound_pos + len(positional),
            bound_names=self.bound_names | names,
            bound_taints=tuple(values.items()),
            opaque=self.opaque or unknown,
        )


def _combined_diff(a: Application, b: Application) -> frozenset[int] | None:
    """Return the differentiated positions of two applications nested under grad alone."""
    if a.mode is Mode.GRAD and b.mode is Mode.GRAD:
        if a.diff_pos is None or b.diff_pos is None:
            return None
        return a.diff_pos | b.diff_pos
    if a.mode is Mode.GRAD:
        return a.diff_pos if b.mode < Mode.GRAD else None
    if b.mode is Mode.GRAD:
        return b.diff_pos if a.mode < Mode.GRAD else None
    return None


_OPAQUE = object()


def _ints(value: object) -> frozenset[int] | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return frozenset({value})
    if isinstance(value, tuple | list | set | frozenset) and all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    ):
        return frozenset(value)  # JAX takes any collection: `static_argnames={"y"}`
    return None


def _strs(value: object) -> frozenset[str] | None:
    if isinstance(value, str):
        return frozenset({value})
    if isinstance(value, tuple | list | set | frozenset) and all(isinstance(v, str) for v in value):
        return frozenset(value)
    return None


def from_keywords(transform: Transform, args: Sequence[cst.Arg]) -> Application:
    """Build an application from a transform and the keyword arguments it was given."""
    app = Application(
        mode=transform.mode,
        caches=transform.caches,
        filter_style=transform.qualname.startswith("equinox.filter_"),
        stateful=transform.qualname.startswith("flax."),
        staged=transform.stages,
        diff_pos=frozenset({0}) if transform.differentiates_argnums else None,
        passed=transform.passes,
    )
    positional = 0
    for arg in args:
        if arg.keyword is None:
            if arg.star == "**":
                # Hidden keywords may be static_argnums or in_axes; the transforms whose calling
                # convention is known (`passes`) take only options there (odeint's rtol).
                if not transform.passes:
                    app = replace(app, opaque=True)
            elif arg.star:
                app = replace(app, diff_pos=None)
            elif positional == transform.in_axes_pos:
                app = replace(app, unbatched_pos=_none_axes(arg.value))
            elif positional == transform.argnums_pos:
                app = replace(app, diff_pos=_ints(literal(arg.value, _OPAQUE)))
            positional += 1
            continue
        key = arg.keyword.value
        if key == "argnums" and transform.differentiates_argnums:
            app = replace(app, diff_pos=_ints(literal(arg.value, _OPAQUE)))
        if key in {"static_argnums", "static_broadcasted_argnums"}:
            nums = _ints(literal(arg.value, _OPAQUE))
            app = replace(app, opaque=True) if nums is None else replace(app, static_pos=nums)
        elif key == "static_argnames":
            names = _strs(literal(arg.value, _OPAQUE))
            app = replace(app, opaque=True) if names is None else replace(app, static_names=names)
        elif key == "in_axes" and not transform.caches:
            app = replace(app, unbatched_pos=_none_axes(arg.value))
    return app


def _none_axes(expr: cst.BaseExpression) -> frozenset[int]:
    axes = literal(expr, _OPAQUE)
    if isinstance(axes, tuple | list):
        return frozenset(i for i, a in enumerate(axes) if a is None)
    return frozenset()


def static_params(
    fn: cst.FunctionDef, app: Application, bound: int = 0
) -> tuple[frozenset[int], frozenset[str]]:
    """Return the static positions and names of ``fn`` under ``app`` (indices normalised);
    ``bound``: leading parameters the callable jitted already binds (`self` of `obj.f`),
    which JAX's positions do not count."""
    positional = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)][bound:]
    pos = {p + len(positional) if p < 0 else p for p in app.static_pos}
    names = set(app.static_names)
    names.update(positional[p] for p in pos if 0 <= p < len(positional))
    pos.update(i for i, n in enumerate(positional) if n in names)
    return frozenset(pos), frozenset(names)


def seed_params(fn: cst.FunctionDef | cst.Lambda, app: Application) -> dict[str, Taint]:
    """Return the taint of each parameter of ``fn`` when traced as ``app`` says."""
    params = fn.params
    positional = [*params.posonly_params, *params.params]
    n = len(positional)
    # Transforms number the parameters left after partial / bound-method binding.
    visible = n - app.bound_pos
    static_pos = {(p + visible if p < 0 else p) + app.bound_pos for p in app.static_pos}
    unbatched = {(p + visible if p < 0 else p) + app.bound_pos for p in app.unbatched_pos}
    diff = {p + visible if p < 0 else p for p in app.diff_pos or ()}
    env: dict[str, Taint] = {}

    def seed(param: cst.Param, index: int | None) -> Taint:
        name = param.name.value
        bound = dict(app.bound_taints)
        if index is not None and index < app.bound_pos:
            return bound.get(index, Taint.UNKNOWN)
        if (index is not None and index in static_pos) or name in app.static_names:
            return Taint.STATIC
        if name in app.bound_names:
            return bound.get(name, Taint.UNKNOWN)
        if app.calls is not None and param.default is not None:
            positional, keywords = app.calls
            given = index is not None and index - app.bound_pos < positional
            if not given and name not in keywords:
                return Taint.STATIC  # no call passes it: its default, a Python value
            if app.caches and not app.opaque:
                return Taint.TRACED  # jit traces what a call passes, a Python bool too
        if app.opaque or (index is not None and index in unbatched):
            return Taint.UNKNOWN
        # grad differentiates `argnums` only: the other arguments stay concrete.
        if (
            app.mode is Mode.GRAD
            and app.diff_pos is not None
            and (index is None or index - app.bound_pos not in diff)
        ):
            return Taint.UNKNOWN
        if index == 0 and name in {"self", "cls"}:
            return Taint.TRACED if app.self_traced else Taint.UNKNOWN
        # A parameter with a default is usually left at it: a Python value, not traced.
        # `None` is the exception: it marks an optional array argument.
        default = param.default
        passed = index is not None and index - app.bound_pos < app.passed
        if passed:
            default = None  # the transform passes it, whatever its default
        if default is not None and not (isinstance(default, cst.Name) and default.value == "None"):
            return Taint.UNKNOWN
        if default is not None and param.annotation is not None:
            # `axis: int | None = None` is an option, not an optional array argument.
            text = cst.Module([]).code_for_node(param.annotation.annotation)
            if not any(h in text for h in _ARRAY_HINTS):
                return Taint.UNKNOWN
        if is_container_param(param) and container_kind(param) is None:
            return Taint.UNKNOWN
        if app.filter_style and param.annotation is not None:
            text = cst.Module([]).code_for_node(param.annotation.annotation)
            if not any(h in text for h in _ARRAY_HINTS):
                return Taint.STATIC
        return Taint.TRACED

    def seed_as_called(param: cst.Param, index: int | None) -> Taint:
        found = seed(param, index)
        if found is Taint.STATIC:
            return found
        at = None if index is None else index - app.bound_pos
        if (at is not None and at in app.traced_pos) or param.name.value in app.traced_names:
            return Taint.TRACED
        return found

    for i, p in enumerate(positional):
        env[p.name.value] = seed_as_called(p, i)
    if isinstance(params.star_arg, cst.Param):
        env[params.star_arg.name.value] = Taint.UNKNOWN if app.opaque else Taint.TRACED
    for p in params.kwonly_params:
        env[p.name.value] = seed_as_called(p, None)
    if params.star_kwarg is not None:
        env[params.star_kwarg.name.value] = Taint.UNKNOWN if app.opaque else Taint.TRACED
    return env


def defaults_in_force(
    fn: cst.FunctionDef | cst.Lambda, app: Application
) -> dict[str, cst.BaseExpression]:
    """Return the parameters no call passes, when every call is known: each holds its
    default (the same condition under which ``seed_params`` makes them static)."""
    if app.calls is None:
        return {}
    positional_count, keywords = app.calls
    params = fn.params
    out: dict[str, cst.BaseExpression] = {}
    for index, param in enumerate((*params.posonly_params, *params.params)):
        if param.default is None or index < app.bound_pos:
            continue
        name = param.name.value
        if name in app.bound_names or index - app.bound_pos < positional_count:
            continue
        if name not in keywords:
            out[name] = param.default
    for param in params.kwonly_params:
        name = param.name.value
        if param.default is not None and name not in keywords and name not in app.bound_names:
            out[name] = param.default
    return out


def is_container_param(param: cst.Param) -> bool:
    """Tell whether a parameter holds a Python container (its truthiness and len are static)."""
    if isinstance(param.default, cst.Tuple | cst.List | cst.Dict):
        return True
    if param.annotation is None:
        return False
    return _annotation_head(param.annotation.annotation) in _CONTAINER_HINTS


def _annotation_head(annotation: cst.BaseExpression) -> str:
    """Return the last name of an annotation's head: `List` of `typing.List[int]`."""
    head = annotation.value if type(annotation) is cst.Subscript else annotation
    name = dotted(head)
    if name is None:  # `"List[int]"`, `X | None`: read as written
        name = cst.Module([]).code_for_node(head).split("[", 1)[0]
    return name.rsplit(".", 1)[-1]


def optional_parts(annotation: cst.BaseExpression) -> list[cst.BaseExpression]:
    """Return the types an annotation admits besides None: `State` of `Optional[State]`,
    `State | None` or `Union[State, None]`; anything else (a string too) is returned as is."""
    if type(annotation) is cst.BinaryOperation and type(annotation.operator) is cst.BitOr:
        return optional_parts(annotation.left) + optional_parts(annotation.right)
    if type(annotation) is cst.Subscript and _annotation_head(annotation) in {"Optional", "Union"}:
        out: list[cst.BaseExpression] = []
        for element in annotation.slice:
            if type(element.slice) is not cst.Index:
                return [annotation]
            out.extend(optional_parts(element.slice.value))
        return out
    if type(annotation) is cst.Name and annotation.value == "None":
        return []
    return [annotation]


def container_kind(param: cst.Param) -> Kind | None:
    """Return the container kind a parameter's annotation or default gives it, if any.

    A list or dict argument of a traced function is a pytree: its leaves are traced, its
    length and truth value are Python values.
    """
    default = param.default
    if type(default) is cst.Tuple or type(default) is cst.List:
        return Kind.SEQUENCE
    if type(default) is cst.Dict:
        return Kind.MAPPING
    if param.annotation is None:
        return None
    head = _annotation_head(param.annotation.annotation)
    if head in {"dict", "Dict", "Mapping"}:
        return Kind.MAPPING
    if head in _CONTAINER_HINTS:
        return Kind.SEQUENCE
    return None


def array_annotation(annotation: cst.BaseExpression) -> bool:
    """Tell whether an annotation names a JAX or NumPy array, maybe optional (`jax.Array`,
    `jnp.ndarray`, `Optional[Array]`, jaxtyping's `Float[Array, "n"]`): traced, it is one
    array leaf, not a pytree of them."""
    parts = optional_parts(annotation)
    return bool(parts) and all(_array_hint(part) for part in parts)


def python_scalar_annotation(annotation: cst.BaseExpression) -> bool:
    """Tell whether an annotation names a Python scalar (`int`, `float`, `bool`, `str`)."""
    return type(annotation) is cst.Name and annotation.value in {"int", "float", "bool", "str"}


def _array_hint(annotation: cst.BaseExpression) -> bool:
    head = _annotation_head(annotation)
    if head in _ARRAY_TYPES:
        return True
    if head not in _JAXTYPING_DTYPES or type(annotation) is not cst.Subscript:
        return False
    first = annotation.slice[0].slice
    return type(first) is cst.Index and _annotation_head(first.value) in _ARRAY_TYPES


_ARRAY_TYPES = frozenset({"Array", "ndarray", "ArrayImpl"})
# jaxtyping's dtype annotations: `Float[Array, "batch dim"]`.
_JAXTYPING_DTYPES = frozenset(
    {"Float", "Int", "Bool", "Real", "Complex", "Num", "Shaped", "Inexact", "Integer", "UInt"}
    | {"Float32", "Float64", "Int32", "Int64", "UInt8", "UInt32", "Complex64", "Key"}
)


_CONTAINER_HINTS = frozenset(
    {"Sequence", "tuple", "Tuple", "list", "List", "dict", "Dict", "Mapping", "Iterable"}
)


def all_unknown(fn: cst.FunctionDef | cst.Lambda) -> dict[str, Taint]:
    """Return an environment where every parameter of ``fn`` is UNKNOWN."""
    return dict.fromkeys(param_names(fn.params), Taint.UNKNOWN)
