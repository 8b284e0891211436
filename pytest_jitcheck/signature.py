"""Abstract signatures of jitted calls, and why one call missed the compile cache.

A signature lists, per argument path, what JAX keys its cache on: shape, dtype and weak
type of array leaves, the value of static arguments, and each argument's pytree
structure. Diffing a new signature against the closest earlier one of the same function
names the argument that caused a recompilation, in the user's terms.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

_STATIC_REPR_MAX = 60


@dataclass(frozen=True)
class ArgSpec:
    """One leaf of a signature: an argument path and what JAX sees there."""

    path: str
    arg: str
    text: str
    static: bool = False

    def __str__(self) -> str:
        suffix = " (static)" if self.static else ""
        return f"{self.path}{suffix}: {self.text}"


@dataclass(frozen=True)
class Signature:
    """The abstract signature of one call of a jitted function."""

    leaves: tuple[ArgSpec, ...] = ()
    structures: tuple[tuple[str, str], ...] = ()
    dict_keys: tuple[tuple[str, tuple[str, ...] | None], ...] = field(default=(), repr=False)

    def __str__(self) -> str:
        return ", ".join(str(leaf) for leaf in self.leaves) or "()"

    def to_json(self) -> dict[str, Any]:
        """Return a JSON-serialisable form."""
        return {
            "args": [{"path": s.path, "type": s.text, "static": s.static} for s in self.leaves],
            "structures": dict(self.structures),
        }


def short_dtype(dtype: Any) -> str:
    """Spell a dtype the way JAX's short reprs do: ``f32``, ``bf16``, ``i8``, ``bool``."""
    import numpy as np

    try:
        name: str = str(np.dtype(dtype).name)
    except TypeError:
        name = str(getattr(dtype, "name", dtype))
    for long, short in (("bfloat", "bf"), ("float", "f"), ("uint", "u"), ("int", "i")):
        if name.startswith(long):
            return short + name[len(long) :]
    if name.startswith("complex"):
        return "c" + name[len("complex") :]
    return name


def leaf_text(leaf: Any) -> str:
    """Describe one dynamic leaf as JAX abstracts it, e.g. ``weak_f32[]`` or ``i32[2,3]``."""
    import jax

    try:
        abstractify = getattr(jax, "typeof", None) or getattr(jax.core, "get_aval")  # noqa: B009
        aval = abstractify(leaf)
        dtype, shape = aval.dtype, aval.shape
        weak = bool(getattr(aval, "weak_type", False))
    except Exception:
        return type(leaf).__name__
    prefix = "weak_" if weak else ""
    return f"{prefix}{short_dtype(dtype)}[{','.join(str(d) for d in shape)}]"


def _static_text(value: Any) -> str:
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    if len(text) > _STATIC_REPR_MAX:
        text = text[: _STATIC_REPR_MAX - 3] + "..."
    return text


def _bind(fun: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[tuple[str, int, Any]]:
    """Pair each argument with its parameter name and position (-1 for keywords)."""
    names: list[str] = []
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        params = []
    for p in params:
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            names.append(p.name)
        elif p.kind is p.VAR_POSITIONAL:
            break
    bound = [(names[i] if i < len(names) else f"args[{i}]", i, a) for i, a in enumerate(args)]
    bound += [(k, -1, v) for k, v in kwargs.items()]
    return bound


def make_signature(
    fun: Any,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    static_argnums: Iterable[int] = (),
    static_argnames: Iterable[str] = (),
) -> Signature:
    """Build the abstract signature of calling the jitted ``fun`` with these arguments."""
    import jax

    nums = {n if n >= 0 else n + len(args) for n in static_argnums}
    names = set(static_argnames)
    leaves: list[ArgSpec] = []
    structures: list[tuple[str, str]] = []
    dict_keys: list[tuple[str, tuple[str, ...] | None]] = []
    for name, pos, value in _bind(fun, args, kwargs):
        if pos in nums or name in names:
            leaves.append(ArgSpec(name, name, _static_text(value), static=True))
            continue
        flat, treedef = jax.tree_util.tree_flatten_with_path(value)
        structures.append((name, str(treedef)))
        keys = tuple(sorted(repr(k) for k in value)) if isinstance(value, dict) else None
        dict_keys.append((name, keys))
        for path, leaf in flat:
            leaves.append(ArgSpec(name + jax.tree_util.keystr(path), name, leaf_text(leaf)))
    return Signature(tuple(leaves), tuple(structures), tuple(dict_keys))


def _structure_change(arg: str, old: Signature, new: Signature) -> str:
    old_keys = dict(old.dict_keys).get(arg)
    new_keys = dict(new.dict_keys).get(arg)
    if old_keys is not None and new_keys is not None and old_keys != new_keys:
        parts = []
        added = [k for k in new_keys if k not in old_keys]
        removed = [k for k in old_keys if k not in new_keys]
        if added:
            parts.append("keys {" + ", ".join(added) + "} added")
        if removed:
            parts.append("keys {" + ", ".join(removed) + "} removed")
        return f"pytree structure of {arg} changed: " + "; ".join(parts)
    return (
        f"pytree structure of {arg} changed: "
        f"{dict(old.structures)[arg]} -> {dict(new.structures)[arg]}"
    )


def diff(old: Signature, new: Signature) -> list[str]:
    """List what changed from ``old`` to ``new``, one line per argument path."""
    changes: list[str] = []
    old_struct, new_struct = dict(old.structures), dict(new.structures)
    changed_structs = {
        a for a in old_struct.keys() & new_struct.keys() if old_struct[a] != new_struct[a]
    }
    old_leaves = {s.path: s for s in old.leaves}
    new_args = {s.arg for s in new.leaves}
    old_args = {s.arg for s in old.leaves}
    seen_args: set[str] = set()
    for spec in new.leaves:
        if spec.arg not in old_args:
            if spec.arg not in seen_args:
                changes.append(f"argument {spec.arg} added")
            seen_args.add(spec.arg)
            continue
        if spec.arg in changed_structs:
            if spec.arg not in seen_args:
                changes.append(_structure_change(spec.arg, old, new))
            seen_args.add(spec.arg)
            continue
        before = old_leaves.get(spec.path)
        if before is not None and (before.text != spec.text or before.static != spec.static):
            suffix = " (static)" if spec.static else ""
            changes.append(f"{spec.path}{suffix}: {before.text} -> {spec.text}")
    changes.extend(f"argument {a} removed" for a in sorted(old_args - new_args))
    return changes


def hint_for(changes: list[str]) -> str:
    """Return a one-line hint for the usual fix of these changes."""
    text = " ".join(changes)
    if "(static)" in text:
        return (
            "each new value of a static argument compiles again; pass values that vary "
            "as traced arguments, or keep the static value fixed"
        )
    if "pytree structure" in text or "argument " in text:
        return "keep the pytree structure of arguments fixed (e.g. always pass optional keys)"
    if "weak_" in text:
        return (
            "Python scalars are weakly typed; pass arrays of a fixed dtype "
            "(e.g. jnp.float32(x)) every time"
        )
    return (
        "shapes or dtypes vary between calls; pad or bucket inputs to a few fixed shapes "
        "and keep dtypes consistent"
    )
