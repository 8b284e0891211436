"""What JAX's own functions need as Python values: shapes, lengths and axes (JIT404), and
the parameters JAX jits them with as static (JIT302)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from jitlint.analysis.knowledge import words
from jitlint.rules.helpers import assigned_values

if TYPE_CHECKING:
    from jitlint.analysis.context import RuleContext

# Parameters that must be Python values: {function: (positions, keywords)}.
Spec = tuple[tuple[int, ...], tuple[str, ...]]
_SHAPE_FIRST: Spec = ((0,), ("shape",))
_AXIS_SECOND: Spec = ((1,), ("axis",))
_NUMPY_PARAMS: dict[str, Spec] = {
    **dict.fromkeys(words("zeros ones empty full"), _SHAPE_FIRST),
    **dict.fromkeys(words("zeros_like ones_like full_like empty_like"), ((), ("shape",))),
    "arange": ((0, 1, 2), ("start", "stop", "step")),
    **dict.fromkeys(words("linspace logspace geomspace"), ((2,), ("num",))),
    "eye": ((0, 1), ("N", "M")),
    "identity": ((0,), ("n",)),
    "tri": ((0, 1), ("N", "M")),
    "reshape": ((1,), ("newshape", "shape")),
    "broadcast_to": ((1,), ("shape",)),
    "tile": ((1,), ("reps",)),
    "resize": ((1,), ("new_shape",)),
    **dict.fromkeys(words("split array_split"), ((1, 2), ("indices_or_sections", "axis"))),
    "moveaxis": ((1, 2), ("source", "destination")),
    "swapaxes": ((1, 2), ("axis1", "axis2")),
    "transpose": ((1,), ("axes",)),
    **dict.fromkeys(words("take take_along_axis"), ((2,), ("axis",))),
    "pad": ((1,), ("pad_width",)),
    "delete": ((1, 2), ("obj", "axis")),  # which elements go: the output's shape (jax#12592)
    "roll": ((2,), ("axis",)),
    "norm": ((2,), ("axis",)),  # `ord` is static in JAX's own jit: JIT302
    "one_hot": ((1,), ("num_classes",)),
    # diagonal offsets and rotations pick which elements, so a shape (checked on jax 0.10.2)
    **dict.fromkeys(words("triu tril diag"), ((1,), ("k",))),
    "diagonal": ((1, 2, 3), ("offset", "axis1", "axis2")),
    "rot90": ((1, 2), ("k", "axes")),
    **dict.fromkeys(words("triu_indices tril_indices"), ((0, 1, 2), ("n", "k", "m"))),
    "diag_indices": ((0, 1), ("n", "ndim")),
    "indices": ((0,), ("dimensions",)),
    "multigammaln": ((1,), ("d",)),  # jax.scipy.special: `d` sizes an `arange`
    # jax.numpy.fft: the transform's length (`n`, `s`) is its output shape
    **dict.fromkeys(words("fft ifft rfft irfft hfft ihfft"), ((1, 2), ("n", "axis"))),
    **dict.fromkeys(
        words("fftn ifftn rfftn irfftn fft2 ifft2 rfft2 irfft2"), ((1, 2), ("s", "axes"))
    ),
    **dict.fromkeys(words("fftfreq rfftfreq"), ((0,), ("n",))),
    **dict.fromkeys(
        words(
            "sum mean max min prod std var argmax argmin any all cumsum cumprod nansum nanmean "
            "nanmax nanmin median sort argsort flip count_nonzero average logsumexp softmax "
            "log_softmax expand_dims squeeze concatenate stack"
        ),
        _AXIS_SECOND,
    ),
}
_LAX_PARAMS: dict[str, Spec] = {
    "iota": ((1,), ("size",)),
    "full": _SHAPE_FIRST,
    "broadcast": ((1,), ("sizes",)),
    "broadcast_in_dim": ((1, 2), ("shape", "broadcast_dimensions")),
    "reshape": ((1,), ("new_sizes",)),
    "transpose": ((1,), ("permutation",)),
    **dict.fromkeys(words("squeeze expand_dims"), ((1,), ("dimensions",))),
    **dict.fromkeys(words("concatenate sort"), ((1,), ("dimension",))),
    **dict.fromkeys(words("argmax argmin cumsum cumprod cummax cummin"), _AXIS_SECOND),
    "top_k": ((1,), ("k",)),
    "slice": ((1, 2, 3), ("start_indices", "limit_indices", "strides")),
    "slice_in_dim": ((1, 2, 3, 4), ("start_index", "limit_index", "stride", "axis")),
    "index_in_dim": ((1, 2), ("index", "axis")),
    "dynamic_slice": ((2,), ("slice_sizes",)),
    "dynamic_slice_in_dim": ((2, 3), ("slice_size", "axis")),
    "dynamic_index_in_dim": ((2,), ("axis",)),
    "scan": ((3,), ("length",)),
    # Convolution and window geometry: strides, padding and dilations size the output
    # (each raises on a tracer under jit, checked on jax 0.10.2; jax#1453).
    "conv": ((2, 3), ("window_strides", "padding")),
    "conv_general_dilated": (
        (2, 3, 4, 5),
        ("window_strides", "padding", "lhs_dilation", "rhs_dilation"),
    ),
    "conv_with_general_padding": (
        (2, 3, 4, 5),
        ("window_strides", "padding", "lhs_dilation", "rhs_dilation"),
    ),
    "conv_transpose": ((2, 3, 4), ("strides", "padding", "rhs_dilation")),
    "reduce_window": (
        (3, 4, 5, 6, 7),
        ("window_dimensions", "window_strides", "padding", "base_dilation", "window_dilation"),
    ),
    "pad": ((2,), ("padding_config",)),
}
_NUMPY_MODULES = ("jax.numpy.", "jax.nn.", "jax.scipy.special.", "numpy.")
# Samplers of jax.random: the positions of their shape (and size or axis) parameters.
_SAMPLERS: dict[str, tuple[int, ...]] = {
    **dict.fromkeys(
        words("normal uniform bits exponential gumbel laplace logistic cauchy rademacher randint")
        | words("maxwell"),
        (1,),
    ),
    **dict.fromkeys(
        words(
            "bernoulli poisson gamma dirichlet t chisquare choice loggamma pareto rayleigh wald "
            "geometric generalized_normal lognormal"
        ),
        (2,),
    ),
    **dict.fromkeys(
        words("beta truncated_normal multivariate_normal weibull_min double_sided_maxwell"),
        (3,),
    ),
    "binomial": (3,),
    "triangular": (4,),
    "orthogonal": (1, 2),
    "categorical": (2, 3),
    "ball": (1, 3),
}


def library_spec(q: str) -> Spec | None:
    """Return which arguments of the JAX function ``q`` must be Python values."""
    last = q.rsplit(".", 1)[-1]
    if q.startswith(_NUMPY_MODULES):
        return _NUMPY_PARAMS.get(last)
    if q.startswith("jax.lax."):
        return _LAX_PARAMS.get(last)
    if q.startswith("jax.ops.segment_"):
        return ((2,), ("num_segments",))
    if q in _DIFFERENTIATING:
        return ((1,), ("argnums",))  # which arguments to differentiate: a Python int
    if q.startswith("jax.random."):
        if last == "split":
            return ((1,), ("num",))  # the number of keys: the output's length
        found = _SAMPLERS.get(last)
        return None if found is None else (found, ("shape", "axis"))
    return None


# Transforms whose `argnums` says which arguments they differentiate.
_DIFFERENTIATING = frozenset(
    f"jax.{n}" for n in ("grad", "value_and_grad", "jacfwd", "jacrev", "jacobian", "hessian")
)

# Transforms that trace every argument of the call, Python numbers included (not equinox's
# filtered jit, which keeps them static).
_TRACE_ALL = frozenset({"jax.jit", "jax.pmap", "jax.api.jit", "jax.experimental.pjit.pjit"})


_JITTED_MODULES = (
    "jax.numpy.",
    "jax.nn.",
    "jax.lax.",
    "jax.ops.",
    "jax.scipy.special.",
    "jax.random.",
)


def trace_all_call(func: cst.BaseExpression, ctx: RuleContext) -> cst.Call | None:
    """Return the `jax.jit(F)` (or pmap, pjit) call that ``func`` is, or that a name bound
    once to one holds (`fast = jax.jit(F)` then `fast(x)`)."""
    call: cst.BaseExpression | None = func
    if type(func) is cst.Name:
        call = ctx.bound_jit_call(func.value)  # what the name holds here, if rebound later
        if call is None:
            values = assigned_values(ctx).get(func.value, ())
            call = values[0] if len(values) == 1 else None
    if type(call) is not cst.Call or not call.args or call.args[0].keyword is not None:
        return None
    t = ctx.transform_named(ctx.qualname(call.func))
    return call if t is not None and t.qualname in _TRACE_ALL else None


def jitted_library(func: cst.BaseExpression, ctx: RuleContext) -> tuple[str, cst.Call] | None:
    """Return (F, the jit call) when ``func`` is ``jax.jit(F)`` of a JAX function F."""
    call = trace_all_call(func, ctx)
    if call is None:
        return None
    wrapped = ctx.qualname(call.args[0].value)
    if wrapped is None or not wrapped.startswith(_JITTED_MODULES):
        return None
    return wrapped, call


def static_params(q: str) -> tuple[tuple[int | None, str], ...]:
    """Return the parameters JAX function ``q`` is jitted with as static (by ``static_argnames``),
    with their positions (None: keyword-only)."""
    return JAX_STATIC_PARAMS.get(q, ())


# Generated by benchmarks/jax_static_params.py on jax 0.10.2.
JAX_STATIC_PARAMS_VERSION = "0.10.2"
JAX_STATIC_PARAMS: dict[str, tuple[tuple[int | None, str], ...]] = {
    "jax.numpy.allclose": ((4, "equal_nan"),),
    "jax.numpy.angle": ((1, "deg"),),
    "jax.numpy.append": ((2, "axis"),),
    "jax.numpy.argpartition": ((1, "kth"), (2, "axis")),
    "jax.numpy.argsort": (
        (1, "axis"),
        (None, "kind"),
        (None, "order"),
        (None, "stable"),
        (None, "descending"),
        (None, "dtype"),
    ),
    "jax.numpy.around": ((1, "decimals"),),
    "jax.numpy.convolve": ((2, "mode"), (None, "precision"), (None, "preferred_element_type")),
    "jax.numpy.corrcoef": ((2, "rowvar"), (3, "dtype")),
    "jax.numpy.correlate": ((2, "mode"), (None, "precision"), (None, "preferred_element_type")),
    "jax.numpy.count_nonzero": ((1, "axis"), (2, "keepdims")),
    "jax.numpy.cov": ((2, "rowvar"), (3, "bias"), (4, "ddof"), (7, "dtype")),
    "jax.numpy.cross": ((2, "axisa"), (3, "axisb"), (4, "axisc"), (5, "axis")),
    "jax.numpy.cumprod": ((1, "axis"), (2, "dtype")),
    "jax.numpy.cumsum": ((1, "axis"), (2, "dtype")),
    "jax.numpy.diagonal": ((1, "offset"), (2, "axis1"), (3, "axis2")),
    "jax.numpy.diff": ((1, "n"), (2, "axis")),
    "jax.numpy.digitize": ((2, "right"), (None, "method")),
    "jax.numpy.dot": (
        (None, "precision"),
        (None, "preferred_element_type"),
        (None, "out_sharding"),
    ),
    "jax.numpy.gradient": ((None, "axis"), (None, "edge_order")),
    "jax.numpy.inner": ((None, "precision"), (None, "preferred_element_type")),
    "jax.numpy.isclose": ((4, "equal_nan"),),
    "jax.numpy.lexsort": ((1, "axis"),),
    "jax.numpy.matmul": (
        (None, "precision"),
        (None, "preferred_element_type"),
        (None, "out_sharding"),
    ),
    "jax.numpy.median": ((1, "axis"), (3, "overwrite_input"), (4, "keepdims")),
    "jax.numpy.nancumprod": ((1, "axis"), (2, "dtype")),
    "jax.numpy.nancumsum": ((1, "axis"), (2, "dtype")),
    "jax.numpy.nanmax": ((1, "axis"), (3, "keepdims")),
    "jax.numpy.nanmean": ((1, "axis"), (2, "dtype"), (4, "keepdims")),
    "jax.numpy.nanmedian": ((1, "axis"), (3, "overwrite_input"), (4, "keepdims")),
    "jax.numpy.nanmin": ((1, "axis"), (3, "keepdims")),
    "jax.numpy.nanpercentile": (
        (2, "axis"),
        (4, "overwrite_input"),
        (5, "method"),
        (6, "keepdims"),
    ),
    "jax.numpy.nanprod": ((1, "axis"), (2, "dtype"), (4, "keepdims")),
    "jax.numpy.nanquantile": ((2, "axis"), (4, "overwrite_input"), (5, "method"), (6, "keepdims")),
    "jax.numpy.nanstd": ((1, "axis"), (2, "dtype"), (5, "keepdims")),
    "jax.numpy.nansum": ((1, "axis"), (2, "dtype"), (4, "keepdims")),
    "jax.numpy.nanvar": ((1, "axis"), (2, "dtype"), (5, "keepdims")),
    "jax.numpy.packbits": ((1, "axis"), (2, "bitorder")),
    "jax.numpy.partition": ((1, "kth"), (2, "axis")),
    "jax.numpy.percentile": (
        (2, "axis"),
        (4, "overwrite_input"),
        (5, "method"),
        (6, "keepdims"),
        (None, "out_sharding"),
    ),
    "jax.numpy.polyder": ((1, "m"),),
    "jax.numpy.polyfit": ((2, "deg"), (3, "rcond"), (4, "full"), (6, "cov")),
    "jax.numpy.polyint": ((1, "m"),),
    "jax.numpy.polyval": ((None, "unroll"),),
    "jax.numpy.put_along_axis": ((3, "axis"), (4, "inplace"), (None, "mode")),
    "jax.numpy.quantile": ((2, "axis"), (4, "overwrite_input"), (5, "method"), (6, "keepdims")),
    "jax.numpy.ravel": ((1, "order"), (None, "out_sharding")),
    "jax.numpy.resize": ((1, "new_shape"),),
    "jax.numpy.rollaxis": ((1, "axis"), (2, "start")),
    "jax.numpy.rot90": ((1, "k"), (2, "axes")),
    "jax.numpy.round": ((1, "decimals"),),
    "jax.numpy.searchsorted": ((2, "side"), (None, "method")),
    "jax.numpy.sort": (
        (1, "axis"),
        (None, "kind"),
        (None, "order"),
        (None, "stable"),
        (None, "descending"),
    ),
    "jax.numpy.swapaxes": ((1, "axis1"), (2, "axis2")),
    "jax.numpy.take_along_axis": (
        (2, "axis"),
        (3, "mode"),
        (4, "fill_value"),
        (None, "wrap_negative_indices"),
    ),
    "jax.numpy.trace": ((2, "axis1"), (3, "axis2"), (4, "dtype")),
    "jax.numpy.trapezoid": ((3, "axis"),),
    "jax.numpy.tril": ((1, "k"),),
    "jax.numpy.triu": ((1, "k"),),
    "jax.numpy.unpackbits": ((1, "axis"), (2, "count"), (3, "bitorder")),
    "jax.numpy.unstack": ((None, "axis"),),
    "jax.numpy.unwrap": ((2, "axis"),),
    "jax.numpy.vander": ((1, "N"), (2, "increasing")),
    "jax.numpy.vdot": ((None, "precision"), (None, "preferred_element_type")),
    "jax.numpy.linalg.cholesky": ((None, "upper"), (None, "symmetrize_input")),
    "jax.numpy.linalg.cond": ((1, "p"),),
    "jax.numpy.linalg.eigh": ((1, "UPLO"), (2, "symmetrize_input")),
    "jax.numpy.linalg.eigvalsh": ((1, "UPLO"), (None, "symmetrize_input")),
    "jax.numpy.linalg.matrix_power": ((1, "n"),),
    "jax.numpy.linalg.matrix_rank": ((None, "hermitian"),),
    "jax.numpy.linalg.norm": ((1, "ord"), (2, "axis"), (3, "keepdims")),
    "jax.numpy.linalg.qr": ((1, "mode"),),
    "jax.numpy.linalg.slogdet": ((None, "method"),),
    "jax.numpy.linalg.svd": (
        (1, "full_matrices"),
        (2, "compute_uv"),
        (3, "hermitian"),
        (4, "subset_by_index"),
    ),
    "jax.nn.glu": ((1, "axis"),),
    "jax.nn.log_softmax": ((1, "axis"),),
    "jax.nn.logmeanexp": ((1, "axis"), (3, "keepdims")),
    "jax.nn.standardize": ((1, "axis"), (None, "algorithm")),
}
