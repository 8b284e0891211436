"""Compile accounting: record every compilation of a jitted callable during a block.

Usable without pytest::

    from pytest_jitcheck.accounting import CompileRecorder

    with CompileRecorder() as rec:
        step(params, batch)
    for event in rec.events:
        print(event.describe())

``events`` holds the typed records (:class:`CompileEvent`, :class:`Change`),
``signature`` the abstract signatures and their diff, ``history`` what each function
compiled before, ``attribution`` the reading of JAX's stack, ``recorder`` the listeners.
"""

from __future__ import annotations

from pytest_jitcheck.accounting.events import Change, ChangeKind, CompileEvent, hint_for
from pytest_jitcheck.accounting.recorder import CompileRecorder, unwrap_chain

__all__ = ["Change", "ChangeKind", "CompileEvent", "CompileRecorder", "hint_for", "unwrap_chain"]
