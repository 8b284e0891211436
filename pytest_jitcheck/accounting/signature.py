"""Abstract signatures of jitted calls, and why one call missed the compile cache.

A signature lists what JAX keys its cache on: per argument, whether it was passed by
position or keyword and its pytree structure (empty pytrees included); per array leaf,
shape, dtype, weak type and (on several devices) sharding; per static argument, its value,
kept as a flattened tree so that a change deep inside is found structurally; and the JAX
config that enters the cache key. Diffing a new signature against the closest earlier one
of the same function gives typed :class:`Change` records.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from pytest_jitcheck._naming import aval_text, without_addresses
from pytest_jitcheck.accounting.events import Change, ChangeKind

_STATIC_REPR_MAX = 60
_STATIC_PARTS_MAX = 256
# Config options that JAX's trace context (part of the jit cache key) includes and that
# tests change: what jax_explain_cache_misses reports as "tracing context doesn't match".
CONFIG_KEYS = (
    "jax_default_matmul_precision",
    "jax_enable_x64",
    "jax_numpy_rank_promotion",
    "jax_numpy_dtype_promotion",
    "jax_default_prng_impl",
    "jax_threefry_partitionable",
    "jax_softmax_custom_jvp",
    "jax_debug_nans",
    "jax_debug_infs",
)


@dataclass(frozen=True)
class ArgSpec:
    """One leaf of a signature: an argument path and what JAX sees there."""

    path: str
    arg: str
    text: str
    static: bool = False
    sharding: str = ""
    dtype: str = ""
    shape: tuple[int, ...] = ()
    weak: bool = False

    def __str__(self) -> str:
        suffix = " (static)" if self.static else ""
        return f"{self.path}{suffix}: {self.text}"


@dataclass(frozen=True)
class ArgInfo:
    """How one argument was passed: by keyword or not, its tree, its static parts."""

    name: str
    keyword: bool
    static: bool
    structure: str = ""
    dict_keys: tuple[str, ...] | None = None
    static_parts: tuple[tuple[str, str], ...] = ()
    static_hash: int | None = None
    identity_hashed: bool = False
    mixed: bool = False
    """Array leaves traced, other leaves static (``equinox.filter_jit``'s split)."""


@dataclass(frozen=True)
class Signature:
    """The abstract signature of one call of a jitted function."""

    leaves: tuple[ArgSpec, ...] = ()
    args: tuple[ArgInfo, ...] = ()
    config: tuple[tuple[str, str], ...] = ()

    def __str__(self) -> str:
        return ", ".join(str(leaf) for leaf in self.leaves) or "()"

    def to_json(self) -> dict[str, Any]:
        """Return a JSON-serialisable form."""
        return {
            "args": [{"path": s.path, "type": s.text, "static": s.static} for s in self.leaves],
            "structures": {a.name: a.structure for a in self.args if not a.static},
            "keywords": [a.name for a in self.args if a.keyword],
        }


def leaf_spec(path: str, arg: str, leaf: Any) -> ArgSpec:
    """Describe one dynamic leaf as JAX abstracts it, e.g. ``weak_f32[]`` or ``i32[2,3]``."""
    import jax

    try:
        abstractify = getattr(jax, "typeof", None) or getattr(jax.core, "get_aval")  # noqa: B009
        aval = abstractify(leaf)
        dtype, shape = aval.dtype, tuple(aval.shape)
        weak = bool(getattr(aval, "weak_type", False))
    except Exception:
        return ArgSpec(path, arg, type(leaf).__name__)
    sharding = ""
    spec = getattr(leaf, "sharding", None)
    if spec is not None and len(getattr(spec, "device_set", ())) > 1:
        sharding = str(getattr(spec, "spec", spec))
    text = aval_text(dtype, shape, weak)
    return ArgSpec(path, arg, text, sharding=sharding, dtype=str(dtype), shape=shape, weak=weak)


def _short(text: str) -> str:
    if len(text) > _STATIC_REPR_MAX:
        return text[: _STATIC_REPR_MAX - 3] + "..."
    return text


def _repr(value: Any) -> str:
    try:
        return repr(value)
    except Exception:
        return f"<{type(value).__name__}>"


def _static_parts(value: Any) -> tuple[str, tuple[tuple[str, str], ...]]:
    """Flatten a static value into ``(tree structure, ((subpath, repr), ...))``."""
    import jax

    try:
        flat, treedef = jax.tree_util.tree_flatten_with_path(value)
    except Exception:
        return type(value).__name__, (("", _repr(value)),)
    parts = tuple((jax.tree_util.keystr(p), _repr(leaf)) for p, leaf in flat[:_STATIC_PARTS_MAX])
    return str(treedef), parts


def _hash_of(value: Any) -> tuple[int | None, bool]:
    """Return the value's hash, and whether its class hashes by identity."""
    try:
        digest = hash(value)
    except Exception:
        return None, False
    cls: Any = type(value)
    return digest, cls.__hash__ is object.__hash__


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


def config_state() -> tuple[tuple[str, str], ...]:
    """Return the values of the JAX options in :data:`CONFIG_KEYS` now."""
    import jax

    values = getattr(jax.config, "values", {})
    return tuple((k, str(values[k])) for k in CONFIG_KEYS if k in values)


def _mixed_arg(
    name: str, keyword: bool, value: Any, traced: Callable[[Any], bool], leaves: list[ArgSpec]
) -> ArgInfo:
    """Describe an argument whose traced leaves are its arrays, the rest static."""
    import jax

    flat, treedef = jax.tree_util.tree_flatten_with_path(value)
    parts: list[tuple[str, str]] = []
    statics: list[Any] = []
    for path, leaf in flat:
        sub = jax.tree_util.keystr(path)
        if traced(leaf):
            leaves.append(leaf_spec(name + sub, name, leaf))
            continue
        text = _repr(leaf)
        leaves.append(ArgSpec(name + sub, name, _short(text), static=True))
        if len(parts) < _STATIC_PARTS_MAX:
            parts.append((sub, text))
            statics.append(leaf)
    keys = tuple(sorted(repr(k) for k in value)) if isinstance(value, dict) else None
    digest, _ = _hash_of(tuple(statics))
    return ArgInfo(name, keyword, False, str(treedef), keys, tuple(parts), digest, mixed=True)


def make_signature(
    fun: Any,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    static_argnums: Iterable[int] = (),
    static_argnames: Iterable[str] = (),
    traced: Callable[[Any], bool] | None = None,
    closure: Any = None,
) -> Signature:
    """Build the abstract signature of calling the jitted ``fun`` with these arguments.

    With ``traced`` (a library wrapper's filter, such as ``equinox.filter_jit``'s), each
    argument's leaves for which it holds are traced and the others static; ``closure``
    is the user's callable when it is not a plain function, described as ``fun``.
    """
    import jax

    nums = {n if n >= 0 else n + len(args) for n in static_argnums}
    names = set(static_argnames)
    leaves: list[ArgSpec] = []
    infos: list[ArgInfo] = []
    if traced is not None:
        if closure is not None:
            infos.append(_mixed_arg("fun", False, closure, traced, leaves))
        for name, pos, value in _bind(fun, args, kwargs):
            infos.append(_mixed_arg(name, pos < 0, value, traced, leaves))
        return Signature(tuple(leaves), tuple(infos), config_state())
    for name, pos, value in _bind(fun, args, kwargs):
        keyword = pos < 0
        if pos in nums or name in names:
            structure, parts = _static_parts(value)
            leaves.append(ArgSpec(name, name, _short(_repr(value)), static=True))
            infos.append(ArgInfo(name, keyword, True, structure, None, parts, *_hash_of(value)))
            continue
        flat, treedef = jax.tree_util.tree_flatten_with_path(value)
        keys = tuple(sorted(repr(k) for k in value)) if isinstance(value, dict) else None
        infos.append(ArgInfo(name, keyword, False, str(treedef), keys))
        for path, leaf in flat:
            leaves.append(leaf_spec(name + jax.tree_util.keystr(path), name, leaf))
    return Signature(tuple(leaves), tuple(infos), config_state())


def _structure_change(old: ArgInfo, new: ArgInfo) -> Change:
    if old.dict_keys is not None and new.dict_keys is not None and old.dict_keys != new.dict_keys:
        return Change(
            ChangeKind.STRUCTURE,
            new.name,
            "dict with keys {" + ", ".join(old.dict_keys) + "}",
            "dict with keys {" + ", ".join(new.dict_keys) + "}",
        )
    return Change(ChangeKind.STRUCTURE, new.name, *_around_difference(old.structure, new.structure))


def _around_difference(old: str, new: str) -> tuple[str, str]:
    """Cut two long texts to a window around their first difference (``...`` elsewhere)."""
    if len(old) <= _STATIC_REPR_MAX and len(new) <= _STATIC_REPR_MAX:
        return old, new
    start = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), None)
    if start is None:
        start = min(len(old), len(new))
    start = max(0, start - _STATIC_REPR_MAX // 3)

    def window(text: str) -> str:
        cut = text[start : start + _STATIC_REPR_MAX]
        cut = " ".join(cut.split())  # multi-line reprs (flax's GraphDef) on one line
        return (
            ("..." if start else "") + cut + ("..." if start + _STATIC_REPR_MAX < len(text) else "")
        )

    return window(old), window(new)


def _static_change(old: ArgInfo, new: ArgInfo) -> Change | None:
    if old.structure != new.structure:
        return Change(ChangeKind.STATIC_VALUE, new.name, old.structure, new.structure)
    old_parts = dict(old.static_parts)
    for sub, text in new.static_parts:
        if without_addresses(old_parts.get(sub, "")) != without_addresses(text):
            return Change(
                ChangeKind.STATIC_VALUE,
                new.name + sub,
                _short(old_parts.get(sub, "")),
                _short(text),
            )
    # Textually equal up to object addresses: JAX's cache compares by hash and ==, so
    # a new hash means the value (or an object inside it) hashes by identity.
    if old.static_hash == new.static_hash:
        return None
    moved = [sub for sub, text in new.static_parts if old_parts.get(sub) != text]
    if new.identity_hashed or moved:
        sub = moved[0] if moved and not new.identity_hashed else ""
        shown = without_addresses(dict(new.static_parts).get(sub, ""))
        return Change(ChangeKind.STATIC_IDENTITY, new.name + sub, "", _short(shown))
    return Change(ChangeKind.STATIC_VALUE, new.name, "hash changed", "")


def _leaf_change(before: ArgSpec, spec: ArgSpec) -> Change | None:
    if before.text == spec.text and before.sharding == spec.sharding:
        return None
    if before.shape != spec.shape:
        kind = ChangeKind.SHAPE
    elif before.dtype != spec.dtype:
        kind = ChangeKind.DTYPE
    elif before.weak != spec.weak:
        kind = ChangeKind.WEAK_TYPE
    elif before.sharding != spec.sharding:
        return Change(ChangeKind.SHARDING, spec.path, before.sharding, spec.sharding)
    else:
        kind = ChangeKind.OTHER
    return Change(kind, spec.path, before.text, spec.text)


def diff(old: Signature, new: Signature) -> list[Change]:
    """List what changed from ``old`` to ``new``, one record per argument path."""
    changes: list[Change] = []
    old_args = {a.name: a for a in old.args}
    new_args = {a.name: a for a in new.args}
    old_leaves = {s.path: s for s in old.leaves}
    broken: set[str] = set()
    for name, info in new_args.items():
        before = old_args.get(name)
        if before is None:
            changes.append(Change(ChangeKind.STRUCTURE, name, "", "passed"))
            broken.add(name)
        elif before.keyword != info.keyword:
            how = ("by position", "by keyword")
            changes.append(
                Change(ChangeKind.STRUCTURE, name, how[before.keyword], how[info.keyword])
            )
            broken.add(name)
        elif info.mixed and before.mixed and before.structure == info.structure:
            change = _static_change(before, info)
            if change is not None:
                changes.append(change)
        elif info.static or before.static:
            change = _static_change(before, info)
            if change is not None:
                changes.append(change)
            broken.add(name)
        elif before.structure != info.structure:
            changes.append(_structure_change(before, info))
            broken.add(name)
    for spec in new.leaves:
        before_spec = old_leaves.get(spec.path)
        if spec.arg in broken or before_spec is None or spec.static:
            continue
        change = _leaf_change(before_spec, spec)
        if change is not None:
            changes.append(change)
    changes.extend(
        Change(ChangeKind.STRUCTURE, name, "passed", "")
        for name in old_args
        if name not in new_args
    )
    old_config = dict(old.config)
    for key, value in new.config:
        if key in old_config and old_config[key] != value:
            changes.append(Change(ChangeKind.CONFIG, key, old_config[key], value))
    return changes
