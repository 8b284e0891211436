"""Tables of what is static at trace time: attributes, functions, methods."""

from __future__ import annotations


def words(text: str) -> frozenset[str]:
    """Return the whitespace-separated words of ``text`` as a set."""
    return frozenset(text.split())


# Attributes of arrays that are Python values at trace time.
STATIC_ATTRS = frozenset(
    [
        "shape",
        "ndim",
        "dtype",
        "size",
        "itemsize",
        "nbytes",
        "weak_type",
        "sharding",
        "aval",
        "named_shape",
    ]
)

# Calls whose result is a Python value even when given traced arguments.
STATIC_CALLS = words("""
    len isinstance issubclass type callable hasattr id repr str hash
    jax.numpy.issubdtype jax.numpy.dtype jax.numpy.result_type jax.numpy.shape jax.numpy.ndim
    jax.numpy.size jax.numpy.iinfo jax.numpy.finfo jax.numpy.promote_types jax.numpy.can_cast
    jax.numpy.isdtype jax.numpy.iscomplexobj jax.numpy.isrealobj jax.numpy.isscalar
    jax.numpy.iterable numpy.iscomplexobj numpy.isrealobj numpy.isscalar numpy.shape
    numpy.ndim numpy.size numpy.dtype numpy.issubdtype
    numpy.iinfo numpy.finfo numpy.result_type jax.dtypes.canonicalize_dtype
    jax.dtypes.issubdtype jax.dtypes.result_type jax.tree_util.tree_structure
    jax.tree.structure jax.device_count jax.local_device_count jax.process_index
    jax.process_count jax.devices jax.local_devices jax.default_backend
    jax.tree_util.all_leaves jax.core.is_concrete jax.lax.axis_size
    jax.lax.broadcast_shapes jax.numpy.broadcast_shapes numpy.broadcast_shapes jax.lax.dtype
    """)

# Builtins that turn a traced value into a Python value (an error JIT401 reports).
CONCRETIZING_CALLS = words("int float bool complex")
# NumPy's conversions to an array: on a tracer they raise (JIT402 says so), and the code
# after one is written for the NumPy array it returns, as after `float(x)` for a float.
NUMPY_CONVERSIONS = frozenset(
    f"numpy.{n}" for n in words("asarray array asanyarray ascontiguousarray")
)

# `zip` and the length-checking spellings of it that JAX and libraries built on it bind
# (`zip = util.safe_zip`): each element of the result pairs the arguments' elements.
ZIPS = frozenset({"zip", "jax._src.util.safe_zip", "jax.util.safe_zip"})

# Builtins and methods whose result carries the taint of their arguments.
PASSTHROUGH_BUILTINS = frozenset(
    [
        "range",
        "enumerate",
        "zip",
        "reversed",
        "sorted",
        "list",
        "tuple",
        "dict",
        "set",
        "min",
        "max",
        "sum",
        # `all(x > 0)` calls bool() on each element: on a traced array, a traced truth value
        "all",
        "any",
        "abs",
        "round",
        "iter",
        "next",
        "map",
        "filter",
        # fetches a concrete array to the host; a tracer passes through (no primitive bound)
        "jax.device_get",
    ]
)

# Module prefixes whose functions compute on (and return) arrays.
# Methods of a flax `Module` that run it (`__call__`, or the method given as `method=`),
# taking a dict of keys, one per random stream.
FLAX_RUNNERS = frozenset({"apply", "init", "init_with_output"})
# haiku's transforms: their products' `init(rng, ...)` split the key they are given, and
# `apply(params, [state,] [rng,] ...)` runs the function transformed.
HAIKU_TRANSFORMS = frozenset({"haiku.transform", "haiku.transform_with_state"})

ARRAY_MODULES = ("jax.", "flax.", "equinox.", "optax.")
# Functions that bind JAX primitives: in staged code (jit, lax bodies) they return tracers
# whatever their arguments, constants included (`jnp.sqrt(2.0)`, `jnp.array(x.shape)`).
STAGING_MODULES = (
    "jax.numpy.",
    "jax.lax.",
    "jax.nn.",
    "jax.random.",
    "jax.scipy.",
    "jax.image.",
    "jax.ops.",
)
STAGING_CALLS = words("jax.device_put jax.pure_callback jax.debug.callback")
# ... except these, which build Python objects (shapes, dimension numbers, initialisers) or,
# for collectives, fold constants (`lax.psum(1, "i")` is the axis size, a Python int).
NOT_STAGING = words("""
    jax.numpy.broadcast_shapes jax.lax.broadcast_shapes jax.lax.conv_dimension_numbers
    jax.lax.conv_general_shape_tuple jax.lax.padtype_to_pads jax.lax.psum jax.lax.pmean
    jax.lax.pmax jax.lax.pmin jax.numpy.get_printoptions jax.numpy.printoptions
    """)
NOT_STAGING_PREFIXES = ("jax.nn.initializers.", "jax.random.key_impl")


def stages(qualname: str) -> bool:
    """Tell whether calling ``qualname`` in staged code returns a tracer, whatever its inputs."""
    if qualname in STAGING_CALLS:
        return True
    if not qualname.startswith(STAGING_MODULES) or qualname in STATIC_CALLS:
        return False
    if qualname in NOT_STAGING or qualname.startswith(NOT_STAGING_PREFIXES):
        return False
    # Classes (`lax.Precision`, `lax.GatherDimensionNumbers`) build Python objects.
    return not qualname.rsplit(".", 1)[-1][:1].isupper()


HOST_MODULES = ("numpy.", "math.")

# Methods returning keys or other Python values, whatever the receiver.
STATIC_METHODS = words("keys __len__")

# Name prefixes of unresolved helpers that by convention answer questions about structure.
PREDICATE_PREFIXES = ("is_", "has_", "_is_", "_has_", "not_", "_not_")
STATIC_NAME_SUFFIXES = ("_shape", "_shapes", "_dtype", "_ndim")
# Name parts of functions that test whether a value is concrete (a guard, not a use).
GUARD_NAME_PARTS = ("tracer", "concrete")
# Name parts of functions that say whether code is being traced (`not` of one guards a
# block that never runs traced), and of those that say it is not.
TRACING_PREDICATES = ("under_jax_transform", "under_transform", "is_tracing", "under_jit")
UNTRACED_PREDICATES = ("trace_state_clean",)


def is_predicate_name(qualname: str | None) -> bool:
    """Tell whether a callee's name says it answers a question about structure."""
    last = (qualname or "").rsplit(".", 1)[-1].lower()
    return (
        last.startswith(PREDICATE_PREFIXES)
        or last.endswith(STATIC_NAME_SUFFIXES)
        or any(p in last for p in GUARD_NAME_PARTS)
    )


# `.at[...]` update methods: each returns a new array.
AT_OPS = words("set add subtract mul multiply divide power min max apply")
# NumPy functions that hand an array-like argument that is not an ndarray to its own method
# (`np.mean(x, axis=0)` calls `x.mean(axis=0)`): on a JAX array, tracer or not, they compute
# with JAX. A list of tracers has no such method and fails. Checked against JAX in the tests.
DISPATCHES_TO_METHOD = words("""
    mean sum std var max min prod any all argmax argmin cumsum cumprod amax amin round
    around reshape transpose squeeze swapaxes repeat moveaxis
    """)

# Types whose instances are never tracers: after `isinstance(x, T)` holds, x is concrete.
CONCRETE_TYPES = words("""
    int float bool complex str bytes numpy.ndarray numpy.generic numpy.number numpy.integer
    numpy.floating numpy.bool_ numpy.complexfloating slice range type types.EllipsisType
    """)
