"""Client settings: what an editor may change on top of ``[tool.jitlint]``.

Editors send them as ``initializationOptions`` and in ``workspace/didChangeConfiguration``,
either bare or under a ``jitlint`` key::

    {"select": ["JIT1"], "ignore": ["JIT203"], "fixAll": true,
     "severity": {"JIT1": "error", "print-in-jit": "hint"}, "debounce": 50, "project": true}
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from lsprotocol import types

from jitlint import RuleInfo, Settings

SEVERITIES = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "info": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}
# A file that could not be checked is an error; a finding is a warning unless configured.
_DEFAULT_SEVERITY = {"JIT9": types.DiagnosticSeverity.Error}
DEFAULT_DEBOUNCE_MS = 30


@dataclass(frozen=True)
class ClientSettings:
    """Hold the editor's settings; ``None`` for ``select`` means: keep the file's selection."""

    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    fix_all: bool = True
    severity: Mapping[str, types.DiagnosticSeverity] = field(default_factory=dict)
    debounce_ms: int = DEFAULT_DEBOUNCE_MS
    project: bool = False  # saved files get the project-wide analysis (``jitlint --project``)

    def severity_for(self, code: str, name: str) -> types.DiagnosticSeverity:
        """Return the severity of a finding: by name, else by the longest matching prefix."""
        if name in self.severity:
            return self.severity[name]
        table = {**_DEFAULT_SEVERITY, **self.severity}
        best = max((k for k in table if code.startswith(k)), key=len, default=None)
        return table[best] if best is not None else types.DiagnosticSeverity.Warning

    def apply(self, base: Settings, rules: Sequence[RuleInfo]) -> tuple[Settings, list[str]]:
        """Return ``base`` narrowed or widened by ``select``/``ignore``, and unknown selectors."""
        if self.select is None and not self.ignore:
            return base, []
        unknown: list[str] = []
        chosen = set(base.select)
        if self.select is not None:
            chosen = set(resolve(self.select, rules, unknown))
        chosen -= resolve(self.ignore, rules, unknown)
        return dataclasses.replace(base, select=frozenset(chosen)), unknown


def resolve(selectors: Iterable[str], rules: Sequence[RuleInfo], unknown: list[str]) -> set[str]:
    """Turn codes, prefixes, names and ``ALL`` into codes; collect what matched nothing."""
    out: set[str] = set()
    for raw in selectors:
        sel = raw.strip()
        if sel.upper() == "ALL":
            out.update(r.code for r in rules)
            continue
        matched = {r.code for r in rules if r.code.startswith(sel.upper()) or r.name == sel}
        if sel and not matched:
            unknown.append(sel)
        out |= matched
    return out


def _strings(value: object) -> tuple[str, ...] | None:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    return None


def parse(raw: object) -> tuple[ClientSettings, list[str]]:
    """Read client settings from JSON-like data; return them and one line per problem."""
    if isinstance(raw, Mapping) and isinstance(raw.get("jitlint"), Mapping):
        raw = raw["jitlint"]
    if raw is None:
        return ClientSettings(), []
    if not isinstance(raw, Mapping):
        return ClientSettings(), ["settings must be an object"]
    problems: list[str] = []
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key in ("select", "ignore"):
            strings = _strings(value)
            if strings is None:
                problems.append(f"`{key}` must be a list of strings")
            else:
                values[key] = strings
        elif key in ("fixAll", "project"):
            if isinstance(value, bool):
                values["fix_all" if key == "fixAll" else key] = value
            else:
                problems.append(f"`{key}` must be true or false")
        elif key == "severity":
            values["severity"] = _severity(value, problems)
        elif key == "debounce":
            if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 10_000:
                values["debounce_ms"] = value
            else:
                problems.append("`debounce` must be a number of milliseconds (0..10000)")
        elif key != "jitlint":
            problems.append(f"unknown setting `{key}`")
    return ClientSettings(**values), problems


def _severity(value: object, problems: list[str]) -> dict[str, types.DiagnosticSeverity]:
    if not isinstance(value, Mapping):
        problems.append("`severity` must map codes or names to error/warning/information/hint")
        return {}
    out = {}
    for key, level in value.items():
        if isinstance(key, str) and isinstance(level, str) and level.lower() in SEVERITIES:
            # Codes and prefixes in any case; names (kebab-case) as written.
            out[key if "-" in key else key.upper()] = SEVERITIES[level.lower()]
        else:
            problems.append(f"`severity.{key}`: use error, warning, information or hint")
    return out
