"""The one place pytest-jitcheck looks at JAX internals.

``jax.monitoring`` tells us *that* a jitted function was traced and compiled, and its
name, but not which Python object nor with which arguments. We read those from the
locals of JAX's ``_infer_params(fun, ji, args, kwargs)`` frame, which sits on the stack
while the trace-duration event fires (verified on jax 0.6.1 and 0.10.2). Everything here degrades
to "unknown" instead of failing when a JAX release moves things around.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from types import FrameType
from typing import Any

# Frames of JAX's jit machinery that hold the traced callable and its arguments.
_INFER_FRAMES = ("_infer_params", "_infer_params_impl")
# The jitted call's cache-miss frame, on the stack when a compilation follows a trace
# that JAX's trace cache served (the function was traced before, e.g. inlined into
# another jit, or by make_jaxpr), so no trace event fired for it.
_CALL_FRAMES = ("cache_miss",)
_MAX_DEPTH = 14
_MAX_COMPILE_DEPTH = 24


@dataclass(frozen=True)
class TraceContext:
    """What JAX's stack says about the function being traced."""

    fun: Any
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    static_argnums: tuple[int, ...]
    static_argnames: tuple[str, ...]
    caller: FrameType | None
    eager: bool
    wrapper: str = ""
    """The JAX transform whose own wrapper was traced (``jax.pmap``), if any."""


def find_trace_context() -> TraceContext | None:
    """Return the callable being traced for ``jit`` and its arguments, if visible."""
    frame: FrameType | None = sys._getframe(1)
    depth = 0
    found: dict[str, FrameType] = {}
    while frame is not None and depth < _MAX_DEPTH:
        name = frame.f_code.co_name
        if name in _INFER_FRAMES and name not in found and "fun" in frame.f_locals:
            found[name] = frame
        frame = frame.f_back
        depth += 1
    # Outermost first: on jax 0.6 `_infer_params_impl` sits inside `_infer_params` and
    # holds only the dynamic arguments.
    for name in _INFER_FRAMES:
        if name in found:
            return _context_from(found[name])
    return None


def find_call_context() -> TraceContext | None:
    """Return the jitted callable whose call is compiling now, if visible."""
    frame: FrameType | None = sys._getframe(1)
    depth = 0
    while frame is not None and depth < _MAX_COMPILE_DEPTH:
        loc = frame.f_locals if frame.f_code.co_name in _CALL_FRAMES else {}
        if "fun" in loc and "args" in loc:
            return _context_from(frame)
        frame = frame.f_back
        depth += 1
    return None


def compiled_jaxpr_origin() -> tuple[str, str, bool] | None:
    """Return ``(name, "file:line", inside_jax)`` of the jaxpr being compiled, if visible.

    For compilations no jitted call frame explains: the backward pass of a jitted
    function under ``jax.grad`` is compiled from a jaxpr derived from its trace.
    """
    frame: FrameType | None = sys._getframe(1)
    depth = 0
    while frame is not None and depth < _MAX_COMPILE_DEPTH:
        if frame.f_code.co_name == "_pjit_call_impl_python":
            jaxpr = getattr(frame.f_locals.get("jaxpr"), "jaxpr", None)
            src = getattr(getattr(jaxpr, "debug_info", None), "func_src_info", None)
            if isinstance(src, str) and " at " in src:
                name, _, location = src.rpartition(" at ")
                path = location.rpartition(":")[0]
                return name, location, _inside_jax(path)
            return None
        frame = frame.f_back
        depth += 1
    return None


def _inside_jax(path: str) -> bool:
    jax = sys.modules.get("jax")
    root = os.path.dirname(getattr(jax, "__file__", "") or "")
    return bool(root) and os.path.abspath(path).startswith(root + os.sep)


def dispatching_primitive() -> bool:
    """Tell whether JAX is compiling a primitive applied eagerly (no frame locals needed)."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "apply_primitive":
            return True
        frame = frame.f_back
    return False


def has_tracer(tree: Any) -> bool:
    """Tell whether a pytree holds a JAX tracer (the call is inside a transformation)."""
    import jax

    try:
        leaves = jax.tree_util.tree_leaves(tree)
    except Exception:
        return False
    return any(isinstance(leaf, jax.core.Tracer) for leaf in leaves)


# Functions of jax._src.api whose frames sit on the stack while a transformation runs,
# with the transform's public name.
_TRANSFORM_FRAMES = {
    "grad_f": "jax.grad",
    "grad_f_aux": "jax.grad",
    "value_and_grad_f": "jax.value_and_grad",
    "vmap_f": "jax.vmap",
    "jacfun": "jax.jacfwd/jacrev",
    "vjp": "jax.vjp",
    "jvp": "jax.jvp",
    "linearize": "jax.linearize",
}
# Inner frames a transform uses for itself (jax.grad calls value_and_grad and vjp).
_IMPLIED = {
    "jax.grad": {"jax.value_and_grad", "jax.vjp"},
    "jax.value_and_grad": {"jax.vjp"},
    "jax.jacfwd/jacrev": {"jax.vjp", "jax.jvp", "jax.vmap"},
}


def enclosing_transform() -> str:
    """Name the JAX transformations running now, outermost first: ``jax.vmap(jax.grad)``.

    A backward pass (the transposed computation under ``grad``/``vjp``) is marked as
    such. Returns "" outside any transformation.
    """
    frame: FrameType | None = sys._getframe(1)
    names: list[str] = []
    backward = False
    while frame is not None:
        if frame.f_globals.get("__name__", "").startswith("jax._src"):
            code = frame.f_code.co_name
            if "bwd" in code or code in ("_vjp_pullback_wrapper", "backward_pass"):
                backward = True
            name = _TRANSFORM_FRAMES.get(code)
            if name is not None and frame.f_globals.get("__name__") == "jax._src.api":
                names.append(name)
        frame = frame.f_back
    chain: list[str] = []
    for name in reversed(names):  # outermost first
        if name in chain or any(name in _IMPLIED.get(outer, ()) for outer in chain):
            continue
        chain.append(name)
    text = "".join(f"{n}(" for n in chain[:-1]) + (chain[-1] if chain else "")
    text += ")" * max(len(chain) - 1, 0)
    if text and backward:
        text += " (backward pass)"
    return text


def unwrap_jax_wrapper(fun: Any) -> tuple[Any, str]:
    """Return the user's function inside JAX's own wrapper, and the transform's name.

    ``jax.pmap`` traces closures of its own (``_cached_shard_map.<locals>._fun``, possibly
    behind ``functools.wraps`` layers) that hold the user's function as ``fun.f``.
    """
    layer = fun
    for _ in range(8):
        if layer is None or "_cached_shard_map" not in (getattr(layer, "__qualname__", "") or ""):
            break
        code = getattr(layer, "__code__", None)
        cells = getattr(layer, "__closure__", None) or ()
        for name, cell in zip(getattr(code, "co_freevars", ()), cells, strict=False):
            if name == "fun":
                try:
                    inner = getattr(cell.cell_contents, "f", None)
                except ValueError:
                    inner = None
                if inner is not None:
                    return inner, "jax.pmap"
        layer = getattr(layer, "__wrapped__", None)
    return fun, ""


def _context_from(frame: FrameType) -> TraceContext:
    loc = frame.f_locals
    fun, wrapper = unwrap_jax_wrapper(loc.get("fun"))
    ji = loc.get("ji", loc.get("jit_info"))
    args = loc.get("args", ())
    kwargs = loc.get("kwargs", {})
    caller, eager = _user_caller(frame.f_back)
    return TraceContext(
        fun=fun,
        args=tuple(args) if isinstance(args, tuple | list) else (),
        kwargs=dict(kwargs) if isinstance(kwargs, dict) else {},
        static_argnums=tuple(getattr(ji, "static_argnums", ()) or ()),
        static_argnames=tuple(getattr(ji, "static_argnames", ()) or ()),
        caller=caller,
        eager=not wrapper and (eager or is_jax_internal(fun)),
        wrapper=wrapper,
    )


def _user_caller(frame: FrameType | None) -> tuple[FrameType | None, bool]:
    """Return the first frame outside JAX, and whether JAX dispatched a primitive."""
    eager = False
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if frame.f_code.co_name == "apply_primitive":
            eager = True
        if not _is_jax_module(name) and not name.startswith("pytest_jitcheck"):
            return frame, eager
        frame = frame.f_back
    return None, eager


def _is_jax_module(name: str) -> bool:
    return name == "jax" or name.startswith(("jax.", "jaxlib"))


def is_jax_internal(fun: Any) -> bool:
    """Tell whether ``fun`` is defined inside JAX (``jnp.add``, a primitive's impl)."""
    target = getattr(fun, "func", fun)  # functools.partial
    module = getattr(target, "__module__", None) or ""
    return _is_jax_module(module)


def tracer_origin(tracer: Any) -> str:
    """Describe the jitted function whose trace created ``tracer``."""
    info = getattr(tracer, "_debug_info", None)
    src = getattr(info, "func_src_info", None)
    if isinstance(src, str) and src:
        return src
    return "an unknown traced function"
