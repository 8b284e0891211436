"""Rule on NumPy functions applied to traced values (JIT402)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from jitlint.analysis import knowledge as K
from jitlint.analysis.kinds import Kind
from jitlint.analysis.knowledge import words
from jitlint.fixes.edits import reference
from jitlint.fixes.model import NodeFix, Replace
from jitlint.model import Applicability, Mode
from jitlint.rules.base import Rule, snippet
from jitlint.rules.helpers import ALL_MODES, assigned_values, traced_index, transformed_callee
from jitlint.rules.library_params import library_spec

if TYPE_CHECKING:
    from jitlint.analysis.context import RuleContext

# Functions NumPy and jax.numpy both have with the same meaning, so `np.f` -> `jnp.f` is safe.
_SAME_IN_JNP = words("""
    abs absolute add all allclose amax amin any arange arccos arcsin arctan arctan2 argmax
    argmin argsort around array asarray average ceil clip concatenate cos cosh cumprod cumsum
    diag diagonal diff divide dot einsum equal exp expm1 eye floor full greater hypot inner
    isclose isfinite isinf isnan kron less linspace log log10 log1p log2 logaddexp logical_and
    logical_not logical_or matmul max maximum mean median min minimum moveaxis multiply
    nan_to_num nanmax nanmean nanmin nansum negative ones outer power prod ravel reciprocal
    reshape round sign sin sinh sort sqrt square squeeze stack std subtract sum swapaxes take
    tan tanh tensordot tile trace transpose tril triu var vstack hstack where zeros zeros_like
    ones_like full_like cross cbrt exp2 floor_divide fmax fmin mod remainder percentile quantile
    cov corrcoef interp convolve roll flip expand_dims broadcast_to atleast_1d atleast_2d
    count_nonzero linalg.norm linalg.inv linalg.det linalg.solve linalg.eigh linalg.svd
    linalg.qr linalg.cholesky linalg.slogdet linalg.pinv
    """)
# Functions `jax.numpy` takes from NumPy as they are (`jnp.save is np.save`): NumPy code.
_NUMPY_OWN = frozenset({"jax.numpy.save", "jax.numpy.savez"})
# NumPy functions that write arrays to files: no JAX version; the array must be concrete.
_WRITERS = words("save savez savez_compressed savetxt")
# NumPy functions that only read shapes and dtypes or test types; tracers pass through them.
_HARMLESS = words(
    "isscalar ndim shape size dtype result_type iinfo finfo issubdtype broadcast_shapes"
)
# jnp's shape queries answer from an array's own attributes, and from NumPy for anything
# else: a list of tracers is converted (checked on jax 0.10.2).
_NUMPY_QUERIES = frozenset({"jax.numpy.ndim", "jax.numpy.shape", "jax.numpy.size"})
_DISPLAYS = (cst.List, cst.Tuple, cst.ListComp, cst.GeneratorExp)


_SEEDERS = frozenset({"numpy.random.seed", "numpy.random.RandomState", "numpy.random.default_rng"})

# Where NumPy's samplers take `size` positionally (a traced size is JIT404's).
_SIZE_POSITION = {
    "numpy.random.uniform": 2,
    "numpy.random.normal": 2,
    "numpy.random.randint": 2,
    "numpy.random.binomial": 2,
    "numpy.random.poisson": 1,
    "numpy.random.exponential": 1,
    "numpy.random.choice": 1,
    "numpy.random.rand": 0,
    "numpy.random.randn": 0,
    "numpy.random.random": 0,
}


class NumpyOnTracer(Rule):
    """
    ## What it does
    Flags a NumPy function (`np.log`, `np.asarray`, ...) or a SciPy function
    (`scipy.special.erf`, ...; not a result record such as `OptimizeResult`, a dict) called
    on a traced value, and a NumPy array indexed by a
    traced value (`table[i]`) or given one to store (`out[i] = x`), and a NumPy function
    handed to a transform (`jax.vmap(np.sin)(x)`, anywhere), under `jax.jit`, `vmap`,
    `grad` and
    the `lax` loop bodies; and `jnp.ndim`/`jnp.shape`/`jnp.size` of a Python list or tuple
    holding traced values, which they convert with NumPy. `jnp.save` and `jnp.savez` are
    NumPy's own functions (`jnp.save is np.save`): a traced value saved with them fails the
    same way, and the fix is to save outside the trace, not another spelling. A NumPy
    sampler given a traced parameter (`np.random.uniform(low=low, ...)`) converts it too
    (that it would otherwise draw once, at trace time, is JIT204's). A traced seed
    (`np.random.seed(s)`) is left out: under `vmap` JAX raises an integer conversion there,
    not this error.

    ## Why is this bad?
    NumPy computes on the host with concrete data. Given a tracer it asks for the array's
    value, and JAX raises `TracerArrayConversionError`; this also happens under `jax.grad`
    alone, where Python control flow is otherwise fine. NumPy on shapes or constants
    (`np.prod(x.shape)`, `np.pi`, `np.sqrt(2.0)`) is fine: those are Python values.

    ## Example
    ```python
    @jax.jit
    def log_softmax(x):
        return x - np.log(jnp.sum(jnp.exp(x), axis=-1, keepdims=True))
    ```

    ## Use instead
    ```python
    @jax.jit
    def log_softmax(x):
        return x - jnp.log(jnp.sum(jnp.exp(x), axis=-1, keepdims=True))
    ```
    NumPy reductions and reshapes that defer to the array's own method (`np.mean(x)`,
    `np.sum(x, axis=0)`, `np.reshape(x, s)`, ...) are not reported: given a JAX array they
    call `x.mean()`, which JAX computes.

    ## Fix safety
    The fix replaces `np.f` with `jnp.f` (using the module's own alias for `jax.numpy`, or
    adding `import jax.numpy as jnp` after the module's imports) for functions that have the
    same meaning in both libraries; it is safe. Calls passing `out=` and functions outside
    that list get no fix.
    """

    code = "JIT402"
    name = "numpy-on-tracer"
    message = "NumPy function called on a traced value fails under jit and grad; use `jnp`"
    modes = ALL_MODES  # ordinary code only for `jax.jit(np.cumsum)(x)`
    fix_applicability = Applicability.SAFE
    VALID = (
        """
import jax
import jax.numpy as jnp
import numpy as np

@jax.jit
def f(x):
    n = np.prod(x.shape)
    scale = np.sqrt(2.0 / n) * np.pi
    return x.reshape(n) * scale + jnp.mean(x)

def host(x):
    return np.mean(np.asarray(x))

@jax.jit
def centre(x):
    return x - np.mean(x, axis=0)  # `x.mean(axis=0)`: JAX computes it
""",
    )
    INVALID = (
        """
import jax
import jax.numpy as jnp
import numpy as np

@jax.jit
def log_softmax(x):
    return x - np.log(jnp.sum(jnp.exp(x), axis=-1, keepdims=True))  # JIT402
""",
        """
import jax
import numpy as onp
from scipy import special

def loss(w, x):
    return onp.square(x @ w).sum() + special.erf(w).sum()  # JIT402

g = jax.grad(loss)
""",
        """
import jax
import numpy as np

TABLE = np.linspace(0.0, 1.0, 5)

@jax.jit
def lookup(x, i):
    return x * TABLE[i]  # JIT402
""",
        """
import jax
import numpy as np

@jax.jit
def first_rows(x):
    out = np.zeros((2, x.shape[1]))
    out[0] = x[0]  # JIT402
    return out
""",
        """
import jax
import numpy as np

sines = jax.vmap(np.sin)(np.arange(3.0))  # JIT402
""",
    )

    def visit_Subscript(self, node: cst.Subscript, ctx: RuleContext) -> None:
        """Check a NumPy array indexed by a traced value: `table[i]`, `table[mask]`."""
        if ctx.mode is Mode.NONE:
            return
        index = traced_index(node, ctx, Kind.NUMPY)
        if index is not None:
            self.report(
                ctx,
                node,
                f"`{snippet(node)}` indexes a NumPy array with traced `{snippet(index)}`, "
                "which NumPy converts to an array and fails under jit and grad "
                "(TracerArrayConversionError); make the table a JAX array: "
                "`jnp.asarray(table)[i]`",
            )

    def visit_Assign(self, node: cst.Assign, ctx: RuleContext) -> None:
        """Check a traced value stored into a NumPy array: `out[i] = x`."""
        if ctx.mode is Mode.NONE:
            return
        for target in node.targets:
            self._store(target.target, node.value, ctx)

    def visit_AugAssign(self, node: cst.AugAssign, ctx: RuleContext) -> None:
        """Check `out[i] += x` with a NumPy `out` and a traced `x`."""
        if ctx.mode is Mode.NONE:
            return
        self._store(node.target, node.value, ctx)

    def _store(
        self, target: cst.BaseExpression, value: cst.BaseExpression, ctx: RuleContext
    ) -> None:
        if type(target) is not cst.Subscript or ctx.kind_of(target.value) is not Kind.NUMPY:
            return
        if not ctx.is_traced(value):
            return
        self.report(
            ctx,
            target,
            f"storing traced `{snippet(value)}` into the NumPy array `{snippet(target.value)}` "
            "makes NumPy ask for its value and fails under jit and grad; build the result with "
            "`jnp` (`out = out.at[i].set(x)` on a JAX array) or store after the jitted call",
        )

    def visit_Call(self, node: cst.Call, ctx: RuleContext) -> None:
        """Check NumPy calls whose arguments are traced."""
        if self._jitted_numpy(node, ctx) or ctx.mode is Mode.NONE:
            return
        q = ctx.qualname(node.func)
        if q is not None and q.startswith("scipy.") and q.count(".") >= 2:
            # SciPy's result records (`OptimizeResult`, `OdeResult`: dict subclasses) keep
            # what they are given, tracers included
            record = q.rsplit(".", 1)[-1].endswith("Result")
            if not record and any(ctx.is_traced(a.value) for a in node.args):
                self.report(
                    ctx,
                    node,
                    f"SciPy `{snippet(node.func)}` called on a traced value fails under jit and "
                    f"grad (TracerArrayConversionError); use `jax.{q}` if it exists",
                )
            return
        if q in _NUMPY_QUERIES:
            first = node.args[0].value if node.args and node.args[0].keyword is None else None
            if isinstance(first, _DISPLAYS) and ctx.is_traced(first):
                name = q.removeprefix("jax.numpy.")
                self.report(
                    ctx,
                    node,
                    f"`jnp.{name}` of a Python list or tuple holding traced values converts it "
                    "with NumPy and fails under jit and grad (TracerArrayConversionError); "
                    f"ask the arrays themselves (`x.{name}`) or stack them first",
                )
            return
        if q in _NUMPY_OWN:
            q = "numpy." + q.removeprefix("jax.numpy.")  # `jnp.save` is NumPy's own
        if (
            q is not None
            and q.startswith("numpy.random.")
            and q.count(".") == 2
            and q not in _SEEDERS
        ):
            # `np.random.uniform(low=low, ...)` with a traced bound: NumPy converts it
            # (checked on jax 0.10.2: TracerArrayConversionError for uniform, normal, choice
            # and randint). That it would draw once at trace time is JIT204's. A traced seed
            # is converted to an integer under vmap (TracerIntegerConversionError): not ours.
            if any(
                ctx.is_traced(a.value)
                for k, a in enumerate(node.args)
                if not a.star
                and (a.keyword.value if a.keyword else "") not in ("size", "shape")
                and not (a.keyword is None and k == _SIZE_POSITION.get(q, -1))
            ):
                self.report(
                    ctx,
                    node,
                    f"NumPy's `{snippet(node.func)}` converts its traced arguments with NumPy "
                    "and fails under jit and grad (TracerArrayConversionError); draw with "
                    "`jax.random` and a key passed in",
                )
            return
        if (
            q is None
            or not q.startswith("numpy.")
            or q.startswith(("numpy.random.", "numpy.testing."))
        ):
            return
        name = q.removeprefix("numpy.")
        if name in _HARMLESS or q in K.STATIC_CALLS:
            return
        first = node.args[0].value if node.args and node.args[0].keyword is None else None
        if name in K.DISPATCHES_TO_METHOD and not isinstance(first, _DISPLAYS):
            return  # `np.mean(x)` is `x.mean()`: JAX computes it
        spec = library_spec(q)
        shapes = (
            {id(a) for k, a in enumerate(node.args) if a.keyword is None and k in spec[0]}
            | {id(a) for a in node.args if a.keyword is not None and a.keyword.value in spec[1]}
            if spec is not None
            else set()
        )
        # A traced shape (`np.ones(shape=(n,))`) fails as a shape does: JIT404 says so.
        if not any(
            ctx.is_traced(a.value) and not _is_dict(a.value, ctx, node) and id(a) not in shapes
            for a in node.args
        ):
            return
        if name in _WRITERS:
            self.report(
                ctx,
                node,
                f"`{snippet(node.func)}` is NumPy's, and writing a traced value to a file fails "
                "under jit and grad (TracerArrayConversionError); return the value and save it "
                "outside the trace (or in `jax.debug.callback`)",
            )
            return
        self.report(
            ctx,
            node,
            f"NumPy `{snippet(node.func)}` called on a traced value fails under jit and grad "
            f"(TracerArrayConversionError); use `jnp.{name}`",
            self._fix(node, name, ctx),
        )

    def _jitted_numpy(self, node: cst.Call, ctx: RuleContext) -> bool:
        """`jax.jit(np.cumsum)(x)`: the transform hands a NumPy function a tracer."""
        found = transformed_callee(node, ctx)
        if found is None:
            return False
        func, target = found
        q = ctx.qualname(target) or ""
        name = q.removeprefix("numpy.")
        if not q.startswith("numpy.") or name in _HARMLESS or q in K.STATIC_CALLS:
            return False
        self.report(
            ctx,
            node,
            f"`{snippet(func)}` hands NumPy's `{name}` tracers, which NumPy cannot compute on "
            "(and jit refuses NumPy's function objects: TypeError); transform "
            f"`jnp.{name}` instead",
        )
        return True

    def _fix(self, node: cst.Call, name: str, ctx: RuleContext) -> NodeFix | None:
        if name not in _SAME_IN_JNP or any(
            a.keyword is not None and a.keyword.value == "out" for a in node.args
        ):
            return None
        try:
            new, imports = reference(ctx.module, f"jax.numpy.{name}")
        except LookupError:  # the conventional alias is taken by something else
            return None
        title = f"Replace with `{new}`" + (f" (adds `{imports[0]}`)" if imports else "")
        return NodeFix(title, Applicability.SAFE, (Replace(node.func, new),), imports)


def _is_dict(expr: cst.BaseExpression, ctx: RuleContext, call: cst.Call) -> bool:
    """Tell whether ``expr`` is evidently a dict: NumPy wraps it whole and never reads it."""
    if isinstance(expr, cst.Name):
        # `metrics = np.sum(metrics, -1)` rebinds the name with this very call: skip that.
        values = [v for v in assigned_values(ctx).get(expr.value) or () if v is not call]
        return bool(values) and all(_is_dict(v, ctx, call) for v in values)
    if isinstance(expr, cst.Call):
        return ctx.qualname(expr.func) == "dict"
    return isinstance(expr, cst.Dict | cst.DictComp)
