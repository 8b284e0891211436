"""How pytest-jitcheck spells functions, paths, dtypes and avals in its messages.

A leaf module: it imports nothing else of the package (and NumPy only when asked), so
every part of the plugin shares one spelling: ``f32[3]``, ``step (model.py:12)``.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from typing import Any

_MAX_UNWRAP = 16
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def without_addresses(text: str) -> str:
    """Drop the `` at 0x7f...`` of default object reprs, which differ between runs."""
    return _ADDRESS.sub("", text)


def short_path(path: str) -> str:
    """Shorten ``/abs/dir/file.py:12`` to a path relative to the working directory."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def short_dtype(dtype: Any) -> str:
    """Spell a dtype the way JAX's avals do: ``f32``, ``bf16``, ``i8``, ``c64``, ``bool``."""
    import numpy as np

    try:
        name: str = str(np.dtype(dtype).name)
    except TypeError:
        name = str(getattr(dtype, "name", dtype))
    for long, short in (
        ("bfloat", "bf"),
        ("float", "f"),
        ("uint", "u"),
        ("int", "i"),
        ("complex", "c"),
    ):
        if name.startswith(long):
            return short + name[len(long) :]
    return name


def aval_text(dtype: Any, shape: tuple[int, ...], weak: bool = False) -> str:
    """Return ``f32[3,4]`` (``weak_f32[]`` for a weakly typed scalar)."""
    prefix = "weak_" if weak else ""
    return f"{prefix}{short_dtype(dtype)}[{','.join(str(d) for d in shape)}]"


@dataclass(frozen=True)
class FunctionInfo:
    """Who a callable is, in the user's terms."""

    name: str
    location: str
    """``file:line`` of the definition, or ``<unknown>``."""
    code: Any
    """The code object (or the name when there is none): what identifies the source."""
    target: Any
    """The innermost user callable found, after unwrapping."""

    def quoted(self) -> str:
        """Return ```name` (file:line)`` for a message, or ```name``` alone."""
        if self.location == "<unknown>":
            return f"`{self.name}`"
        return f"`{self.name}` ({short_path(self.location)})"

    def label(self) -> str:
        """Return ``name (file:line)`` with a relative path, or ``name`` alone."""
        if self.location == "<unknown>":
            return self.name
        return f"{self.name} ({short_path(self.location)})"


def code_of(obj: Any) -> Any:
    """Return the code object of a function, or of a callable object's ``__call__``."""
    code = getattr(obj, "__code__", None)
    if code is None and callable(obj):
        code = getattr(type(obj).__call__, "__code__", None)
    return code


def describe_function(fun: Any) -> FunctionInfo:
    """Name a callable through partials, bound methods and ``__wrapped__`` chains.

    ``functools.wraps`` decorators, ``jax.jit`` objects and ecosystem wrappers that set
    ``__wrapped__`` all lead to the user's function, whose name and definition line are
    what a message should show.
    """
    target = fun
    labels: list[str] = []
    for _ in range(_MAX_UNWRAP):
        if isinstance(target, functools.partial):
            labels.append("partial")
            target = target.func
            continue
        inner = getattr(target, "__func__", None)  # bound method
        if inner is not None and hasattr(target, "__self__"):
            target = inner
            continue
        try:
            wrapped = getattr(target, "__wrapped__", None)
        except Exception:
            wrapped = None
        if wrapped is None or wrapped is target or not callable(wrapped):
            break
        target = wrapped
    code = code_of(target)
    if not hasattr(target, "__code__") and not hasattr(target, "__qualname__"):  # an object
        name = f"{type(target).__qualname__}.__call__"
    else:
        name = str(
            getattr(target, "__qualname__", None) or getattr(target, "__name__", None) or target
        )
    for label in labels:
        name = f"{label}({name})"
    location = f"{code.co_filename}:{code.co_firstlineno}" if code is not None else "<unknown>"
    return FunctionInfo(name, location, code if code is not None else name, target)
