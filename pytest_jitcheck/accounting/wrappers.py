"""Library jit wrappers seen from the user's side: the user's arguments, by the user's names.

``equinox.filter_jit`` traces a function of its own, ``fun_wrapped(dynamic_donate,
dynamic_nodonate, static)``, whose arguments are the user's arguments split into flat
tuples of array leaves and a static remainder. A signature of those would name
``dynamic_nodonate['first'][0]`` where the user wrote ``x``. :func:`user_call` puts the
user's arguments back together with equinox's own ``hashable_combine`` (read from the
wrapper's globals, so no equinox import and no version pin), binds them to the user's
function, and says which leaves the wrapper traces (equinox's ``is_array``); everything
else is static, as equinox makes it.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class UserCall:
    """A call as the user wrote it: function, arguments, which leaves are traced."""

    fun: Any
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    traced: Callable[[Any], bool]
    """Leaves the wrapper passes to ``jax.jit`` as arrays; the rest are static."""
    closure: Any = None
    """The user's callable when it is not a plain function (a module, a bound method)."""


def user_call(fun: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> UserCall | None:
    """Return the user's view of a call of a known library wrapper, else ``None``."""
    try:
        return _equinox(fun, args, kwargs)
    except Exception:  # a diagnostic: a wrapper that changed shape just goes unnamed
        return None


def _equinox(fun: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> UserCall | None:
    # Type-checking import hooks (jaxtyping's, which equinox's own suite turns on for
    # equinox) wrap fun_wrapped in a checker that keeps it as ``__wrapped__``.
    for _ in range(4):
        code = getattr(fun, "__code__", None)
        if code is not None and code.co_name == "fun_wrapped":
            break
        fun = getattr(fun, "__wrapped__", None)
    code = getattr(fun, "__code__", None)
    module = getattr(fun, "__module__", None) or ""
    if code is None or code.co_name != "fun_wrapped" or not module.startswith("equinox"):
        return None
    if (
        kwargs
        or len(args) != 3
        or code.co_varnames[:3]
        != (
            "dynamic_donate",
            "dynamic_nodonate",
            "static",
        )
    ):
        return None
    combine = fun.__globals__.get("hashable_combine")
    is_array = fun.__globals__.get("is_array")
    if combine is None or is_array is None:
        return None
    dynamic = {**args[0], **args[1]}
    static_fun, static_first, static_rest = args[2]
    user_fun = combine(dynamic["fun"], static_fun)
    first = combine(dynamic["first"], static_first)
    rest, user_kwargs = combine(dynamic["rest"], static_rest)
    positional: tuple[Any, ...] = (first, *tuple(rest))
    if positional[-1] is not None:  # equinox appends a None to every call
        return None
    # A callable that is not a plain function (a module, a bound method, filter_grad's
    # wrapper) shares one traced function with every other callable of its name, and
    # its own fields are part of what is compiled: describe it as an argument.
    plain = isinstance(user_fun, types.FunctionType)
    return UserCall(
        user_fun, positional[:-1], dict(user_kwargs), is_array, None if plain else user_fun
    )
