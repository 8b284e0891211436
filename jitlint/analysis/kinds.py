"""Know what kind of object an expression holds: a JAX array, a mask, NumPy, a container.

Kinds follow bindings in order (``x = np.zeros(3)`` then ``x = jnp.asarray(x)``), so rules
judge a name by what it holds at that line, not by any value it is ever given. ``None`` means
the kind is not known; rules then fall back on what they can see.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

import libcst as cst

from jitlint.analysis import knowledge as K
from jitlint.model import Taint

if TYPE_CHECKING:
    from jitlint.analysis.taint import Evaluator


class Kind(enum.Enum):
    """Say what an expression evidently holds."""

    JAX = "JAX array"
    MASK = "JAX boolean array"
    NUMPY = "NumPy array"
    SEQUENCE = "Python list or tuple"
    MAPPING = "Python dict"


ARRAYS = frozenset({Kind.JAX, Kind.MASK})
CONTAINERS = frozenset({Kind.SEQUENCE, Kind.MAPPING})

# Modules that are array namespaces when held in a variable (`xp = jnp`).
NAMESPACES = K.words("""
    jax.numpy numpy jax.lax jax.random jax.nn jax.scipy jax.scipy.special jax.numpy.linalg
    numpy.linalg scipy scipy.special math
    """)
# Functions returning the array namespace of their argument (array API).
NAMESPACE_OF = ("array_namespace", "get_namespace", "__array_namespace__")

_JAX_ARRAY_MODULES = ("jax.numpy.", "jax.random.", "jax.nn.", "jax.scipy.special.")
_MASK_FUNCTIONS = frozenset(
    f"jax.numpy.{n}"
    for n in K.words("""
        isnan isinf isfinite isneginf isposinf isreal signbit isclose isin logical_and all any
        logical_or logical_not logical_xor greater greater_equal less less_equal equal
        not_equal
        """)
) | {"jax.random.bernoulli"}
# jax.numpy functions that return a tuple, a list or a Python value, not one array.
_NOT_ONE_ARRAY = K.words("""
    split array_split hsplit vsplit dsplit meshgrid nonzero where unique broadcast_arrays
    histogram histogram2d histogramdd atleast_1d atleast_2d atleast_3d tril_indices
    triu_indices diag_indices indices ix_ unravel_index frexp modf divmod vectorize
    linalg.eigh linalg.eig linalg.svd linalg.qr linalg.slogdet linalg.lstsq
    """)
# numpy.random functions that return a generator, a bit generator or state, not an array.
_NUMPY_RANDOM_OBJECTS = frozenset(
    f"random.{n}"
    for n in K.words("""
        default_rng RandomState Generator SeedSequence BitGenerator PCG64 PCG64DXSM Philox
        MT19937 SFC64 seed get_state set_state get_bit_generator set_bit_generator
        """)
)
# Methods of arrays that return an array of the same library.
ARRAY_METHODS = K.words("""
    reshape astype ravel flatten transpose squeeze copy clip sum mean max min prod cumsum
    cumprod std var swapaxes round conj argmax argmin argsort sort take repeat dot
    """)
_ARRAY_ATTRS = K.words("T real imag mT")
_MASK_METHODS = K.words("any all")
_BIT_OPERATORS = frozenset({cst.BitAnd, cst.BitOr, cst.BitXor})
# Methods and jax.numpy functions that move elements without changing their dtype: a boolean
# mask stays one (`mask.ravel()[:-1]`, `jnp.concatenate([m1, m2])`).
_LAYOUT_METHODS = K.words("reshape ravel flatten transpose squeeze swapaxes repeat take")
_LAYOUT_FUNCTIONS = frozenset(
    f"jax.numpy.{n}"
    for n in K.words("""
        concatenate stack hstack vstack dstack column_stack ravel reshape transpose squeeze
        expand_dims tile repeat flip fliplr flipud roll broadcast_to moveaxis swapaxes
        """)
)
# Methods no Python container has: a traced receiver of one is an array.
_ONLY_ARRAYS_HAVE = (ARRAY_METHODS | _MASK_METHODS) - K.words("copy sort")
_BOOL_DTYPES = frozenset({"bool", "jax.numpy.bool_", "jax.numpy.bool", "numpy.bool_", "numpy.bool"})
_MAX_DEPTH = 8
# Calls into these are answered by the tables above, never by walking a project function.
_LIBRARIES = ("jax.", "numpy.", "scipy.", "math.", "builtins.", "flax.", "optax.", "equinox.")


# Functions returning a Python list or tuple (of arrays, maybe): `tree_leaves(params)`.
_LIST_RESULTS = K.words("""
    jax.tree_util.tree_leaves jax.tree.leaves jax.tree_util.tree_flatten jax.tree.flatten
    jax.tree_util.tree_leaves_with_path jax.tree.leaves_with_path
    jax.tree_util.tree_flatten_with_path jax.tree.flatten_with_path
    """)


_SEQUENCE_DISPLAYS = frozenset({cst.List, cst.Tuple, cst.ListComp})


def kind_of(ev: Evaluator, e: cst.BaseExpression, depth: int = 0) -> Kind | None:
    """Return the kind of ``e`` at this point of the walk, if it is evident."""
    if depth > _MAX_DEPTH:
        return None
    # `type(e) is C`: libcst's node classes are final, and isinstance is slow on them.
    if type(e) is cst.Name:
        return ev.a.name_kind(e.value)
    if type(e) in _SEQUENCE_DISPLAYS:
        return Kind.SEQUENCE
    if type(e) is cst.Dict or type(e) is cst.DictComp:
        return Kind.MAPPING
    if type(e) is cst.Call:
        return _call_kind(ev, e, depth)
    if type(e) is cst.Attribute:
        if e.attr.value in _ARRAY_ATTRS:
            base = kind_of(ev, e.value, depth + 1)
            if base is Kind.MASK and e.attr.value in {"T", "mT"}:
                return Kind.MASK
            return Kind.JAX if base in ARRAYS else base if base is Kind.NUMPY else None
        return ev.a.attribute_kind(e)
    if type(e) is cst.Subscript:
        base = kind_of(ev, e.value, depth + 1)
        if base is Kind.SEQUENCE and len(e.slice) == 1 and isinstance(e.slice[0].slice, cst.Slice):
            return Kind.SEQUENCE  # `args[1:]` of a tuple is a tuple
        return base if base in ARRAYS or base is Kind.NUMPY else None
    if type(e) is cst.Comparison:
        if any(
            isinstance(c.operator, cst.Is | cst.IsNot | cst.In | cst.NotIn) for c in e.comparisons
        ):
            return None
        operands = [e.left, *(c.comparator for c in e.comparisons)]
        return Kind.MASK if any(_is_array(ev, o, depth) for o in operands) else None
    if type(e) is cst.UnaryOperation:
        if type(e.operator) is cst.Not:
            return None
        if type(e.operator) is cst.BitInvert and kind_of(ev, e.expression, depth + 1) in (
            Kind.MASK,
            Kind.NUMPY,
        ):
            return kind_of(ev, e.expression, depth + 1)  # `~mask` is a mask
        return _arithmetic(ev, [e.expression], depth)
    if type(e) is cst.BinaryOperation:
        operands = [e.left, e.right]
        if type(e.operator) is cst.Add or type(e.operator) is cst.Multiply:
            # `(slice(None),) * n + args`: tuples concatenated or repeated stay tuples
            sides = [kind_of(ev, o, depth + 1) for o in operands]
            if type(e.operator) is cst.Add and sides == [Kind.SEQUENCE, Kind.SEQUENCE]:
                return Kind.SEQUENCE
            if type(e.operator) is cst.Multiply and Kind.SEQUENCE in sides:
                other = operands[1 - sides.index(Kind.SEQUENCE)]
                if ev.a.value(other) is Taint.STATIC:
                    return Kind.SEQUENCE
        if type(e.operator) in _BIT_OPERATORS:
            kinds = {kind_of(ev, o, depth + 1) for o in operands}
            if Kind.MASK in kinds and kinds <= {Kind.MASK, None}:
                return Kind.MASK
        return _arithmetic(ev, operands, depth)
    if type(e) is cst.IfExp:
        body = kind_of(ev, e.body, depth + 1)
        return body if body is kind_of(ev, e.orelse, depth + 1) else None
    return None


def _is_array(ev: Evaluator, e: cst.BaseExpression, depth: int) -> bool:
    """Tell whether ``e`` is a JAX array: by its kind, or as a traced scalar computation."""
    kind = kind_of(ev, e, depth + 1)
    if kind is not None:
        return kind in ARRAYS
    # In traced code a traced operand of arithmetic or a comparison is an array: a pytree
    # of them supports neither.
    return ev.a.is_traced(e)


def _arithmetic(ev: Evaluator, operands: list[cst.BaseExpression], depth: int) -> Kind | None:
    kinds = [kind_of(ev, o, depth + 1) for o in operands]
    if any(k in CONTAINERS for k in kinds):
        return None  # `xs * 2` repeats a list
    if any(k in ARRAYS for k in kinds) or any(
        k is None and _is_array(ev, o, depth) for k, o in zip(kinds, operands, strict=True)
    ):
        return Kind.JAX  # JAX wins over NumPy: `np_array + jax_array` is a JAX array
    if Kind.NUMPY in kinds and all(
        k is Kind.NUMPY or ev.a.value(o) is Taint.STATIC
        for k, o in zip(kinds, operands, strict=True)
    ):
        return Kind.NUMPY
    return None


def _call_kind(ev: Evaluator, call: cst.Call, depth: int) -> Kind | None:
    func = call.func
    q = ev.a.qualname(func)
    if q == "jax.device_get" and call.args and not ev.a.is_traced(call.args[0].value):
        return Kind.NUMPY  # a concrete array fetched to the host (a tracer stays one)
    if q is not None and q not in K.STATIC_CALLS:
        if q in _MASK_FUNCTIONS or (q.startswith("jax.numpy.") and _bool_dtype(ev, call)):
            return Kind.MASK
        if q in _LAYOUT_FUNCTIONS and _masks_only(ev, call, depth):
            return Kind.MASK
        if (
            q == "jax.numpy.reshape"
            and call.args
            and kind_of(ev, call.args[0].value, depth + 1) is Kind.NUMPY
        ):
            return Kind.NUMPY  # it calls the argument's own `reshape` (jax#3391)
        if q.startswith(_JAX_ARRAY_MODULES):
            name = q.split(".", 2)[-1]
            if q.startswith("jax.numpy.") and name in _NOT_ONE_ARRAY:
                return None
            if q.startswith(("jax.nn.initializers", "jax.numpy.dtype")):
                return None
            return Kind.JAX
        if q.startswith("numpy.") and not q.startswith("numpy.testing."):
            name = q.removeprefix("numpy.")
            if name in _NUMPY_RANDOM_OBJECTS:
                return None  # `np.random.default_rng(0)`: a generator, not an array
            if name in K.DISPATCHES_TO_METHOD and call.args:
                first = kind_of(ev, call.args[0].value, depth + 1)
                return Kind.JAX if first in ARRAYS else Kind.NUMPY  # `np.mean(x)`: `x.mean()`
            return Kind.NUMPY
        if q in {"list", "tuple", "sorted"} or q in _LIST_RESULTS:
            return Kind.SEQUENCE
        if q == "dict":
            return Kind.MAPPING
    if type(func) is cst.Attribute:
        method = func.attr.value
        if method in K.AT_OPS and _is_at(func.value):
            return Kind.JAX
        receiver = kind_of(ev, func.value, depth + 1)
        if receiver is None and method in _ONLY_ARRAYS_HAVE and ev.a.is_traced(func.value):
            receiver = Kind.JAX  # `x.any(axis=1)` on a traced value: only arrays have it
        if method == "tolist" and receiver in (*ARRAYS, Kind.NUMPY):
            return Kind.SEQUENCE
        if method == "copy" and receiver is not None:
            return Kind.JAX if receiver is Kind.MASK else receiver
        if receiver in ARRAYS or receiver is Kind.NUMPY:
            if method == "astype" and call.args:
                if _is_bool_dtype(ev, call.args[0].value):
                    return Kind.MASK if receiver in ARRAYS else Kind.NUMPY
                return Kind.JAX if receiver in ARRAYS else Kind.NUMPY
            if method in _MASK_METHODS:
                return Kind.MASK if receiver in ARRAYS else Kind.NUMPY
            if method in _LAYOUT_METHODS and receiver is Kind.MASK:
                return Kind.MASK
            if method in ARRAY_METHODS:
                return Kind.JAX if receiver in ARRAYS else Kind.NUMPY
    if q is None or not q.startswith(_LIBRARIES):
        return ev.a.helper_kind(call)  # `mask = make_mask(n, lengths)`: what it returns
    return None


def _masks_only(ev: Evaluator, call: cst.Call, depth: int) -> bool:
    """Tell whether the arrays a layout function is given (its first argument, or the
    elements of a list or tuple there) are all boolean masks."""
    if not call.args or call.args[0].keyword is not None or call.args[0].star:
        return False
    first = call.args[0].value
    parts = (
        [el.value for el in first.elements] if isinstance(first, cst.List | cst.Tuple) else [first]
    )
    return bool(parts) and all(kind_of(ev, p, depth + 1) is Kind.MASK for p in parts)


def _bool_dtype(ev: Evaluator, call: cst.Call) -> bool:
    for a in call.args:
        if a.keyword is not None and a.keyword.value == "dtype":
            return _is_bool_dtype(ev, a.value)
    q = ev.a.qualname(call.func) or ""
    if q in {"jax.numpy.array", "jax.numpy.asarray"} and call.args:
        first = call.args[0].value
        return (
            isinstance(first, cst.List | cst.Tuple)
            and bool(first.elements)
            and all(
                isinstance(el.value, cst.Name) and el.value.value in {"True", "False"}
                for el in first.elements
            )
        )
    return False


def _is_bool_dtype(ev: Evaluator, dtype: cst.BaseExpression) -> bool:
    if isinstance(dtype, cst.Name) and dtype.value == "bool":
        return True
    if isinstance(dtype, cst.SimpleString):
        return dtype.raw_value == "bool"
    return ev.a.qualname(dtype) in _BOOL_DTYPES


def _is_at(expr: cst.BaseExpression) -> bool:
    return (
        isinstance(expr, cst.Subscript)
        and isinstance(expr.value, cst.Attribute)
        and expr.value.attr.value == "at"
    )


def namespace_of(ev: Evaluator, value: cst.BaseExpression) -> str | None:
    """Return the array namespace module ``value`` denotes (`jnp`, `array_namespace(x)`)."""
    if type(value) is cst.Name or type(value) is cst.Attribute:
        q = ev.a.qualname(value)
        return q if q in NAMESPACES else None
    if type(value) is cst.Call:
        func = value.func
        q = ev.a.qualname(func) or ""
        target: cst.BaseExpression | None = None
        if q.rsplit(".", 1)[-1] in NAMESPACE_OF[:2] and value.args:
            target = value.args[0].value
        elif type(func) is cst.Attribute and func.attr.value == NAMESPACE_OF[2]:
            target = func.value
        if target is None:
            return None
        kind = kind_of(ev, target)
        if kind in ARRAYS or (kind is None and ev.a.is_traced(target)):
            return "jax.numpy"
        return "numpy" if kind is Kind.NUMPY else None
    return None
