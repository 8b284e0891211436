"""Session-wide compile statistics: terminal summary, JSON report, xdist merge.

Events arrive here in their JSON form (``CompileEvent.to_json()``), the form in which
pytest-xdist workers send them, so the controller's summary and every report file are
built from the same data whichever process ran the test.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from pytest_jitcheck._naming import short_path
from pytest_jitcheck.accounting.events import Change, ChangeKind

_TOP = 10
_REASONS = 3


@dataclass
class FunctionStats:
    """Compilations of one function across the session."""

    name: str
    location: str
    count: int = 0
    seconds: float = 0.0
    tests: set[str] = field(default_factory=set)
    reasons: Counter[str] = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)


class SessionStats:
    """Events of every test, keyed by node id; merges the workers' under xdist."""

    def __init__(self, worker: str = "main") -> None:
        self.tests: dict[str, list[dict[str, Any]]] = {}
        self.backend: str = "unknown"
        self.worker = worker

    def add_test(self, nodeid: str, events: list[dict[str, Any]]) -> None:
        """Record one test's events (JSON form), tagged with the process that ran them."""
        for e in events:
            e.setdefault("worker", self.worker)
        if events:
            self.tests.setdefault(nodeid, []).extend(events)

    def worker_output(self) -> dict[str, Any]:
        """Return what an xdist worker sends to the controller."""
        return {"tests": self.tests, "backend": self.backend, "worker": self.worker}

    def merge(self, data: dict[str, Any]) -> None:
        """Merge the :meth:`worker_output` of another process (an xdist worker)."""
        for nodeid, events in data.get("tests", {}).items():
            for e in events:
                e.setdefault("worker", data.get("worker", "worker"))
            self.add_test(nodeid, events)
        if self.backend == "unknown":
            self.backend = data.get("backend", "unknown")

    def ranked(self) -> list[FunctionStats]:
        """Return per-function stats, most compilations (then most time) first."""
        stats: dict[tuple[str, str], FunctionStats] = {}
        for nodeid, events in self.tests.items():
            for e in events:
                key = (e["function"], e["location"])
                s = stats.setdefault(key, FunctionStats(*key))
                s.count += 1
                s.seconds += e["trace_time_s"] + e["lower_time_s"] + e["compile_time_s"]
                s.tests.add(nodeid)
                for change in e["changes"]:
                    reason = _reason_key(change)
                    s.reasons[reason] += 1
                    s.examples[reason] = change_text(change)
        return sorted(stats.values(), key=lambda s: (-s.count, -s.seconds, s.name))

    def to_json(self) -> dict[str, Any]:
        """Return the report: JAX version, backend, per-function totals, per-test events."""
        import jax

        return {
            "jax_version": jax.__version__,
            "backend": self.backend,
            "functions": [
                {
                    "function": s.name,
                    "location": s.location,
                    "compilations": s.count,
                    "seconds": round(s.seconds, 6),
                    "tests": sorted(s.tests),
                    "reasons": dict(s.reasons.most_common()),
                }
                for s in self.ranked()
            ],
            "tests": self.tests,
        }

    def write(self, path: str) -> None:
        """Write the JSON report to ``path``."""
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(self.to_json(), fh, indent=2, sort_keys=False)
            fh.write("\n")

    def write_outputs(
        self, report: str | None = None, html: str | None = None, trace: str | None = None
    ) -> None:
        """Write the JSON report, the HTML page and the trace file that were asked for."""
        from pytest_jitcheck.report import html_page, trace_events

        if report:
            self.write(report)
        if html:
            with open(html, "w", encoding="utf-8") as fh:
                fh.write(html_page.render(self.to_json()))
        if trace:
            with open(trace, "w", encoding="utf-8") as fh:
                json.dump(trace_events.build(self.tests), fh)
                fh.write("\n")

    def terminal_lines(self) -> list[str]:
        """Return the lines of the terminal summary section."""
        ranked = self.ranked()
        total = sum(s.count for s in ranked)
        seconds = sum(s.seconds for s in ranked)
        lines = [
            f"{total} compilation(s) of {len(ranked)} jitted function(s), "
            f"{seconds:.2f} s tracing+lowering+compiling (backend {self.backend})"
        ]
        if not ranked:
            return lines
        lines.append(f"{'count':>6} {'seconds':>8}  function")
        for s in ranked[:_TOP]:
            lines.append(f"{s.count:>6} {s.seconds:>8.3f}  {s.name} ({short_path(s.location)})")
            for reason, n in s.reasons.most_common(_REASONS):
                example = s.examples[reason]
                # "x: shape" needs its last example; "new function object" is one already.
                text = f"{reason}, last {example}" if ": " in reason else example
                lines.append(f"{'':>17}{n}x {text}")
        if len(ranked) > _TOP:
            lines.append(f"... {len(ranked) - _TOP} more in --jitcheck-report")
        return lines


def change_text(change: dict[str, str]) -> str:
    """Render a change record in its JSON form, as ``Change.__str__`` renders the record."""
    try:
        kind = ChangeKind(change["kind"])
    except (KeyError, ValueError, TypeError):
        return str(change)
    return str(Change(kind, change.get("path", ""), change.get("old", ""), change.get("new", "")))


def _reason_key(change: dict[str, str]) -> str:
    """Group every shape change of ``x`` as ``x: shape``, every new function object alike."""
    try:
        return Change(ChangeKind(change["kind"]), change.get("path", "")).group
    except (KeyError, ValueError, TypeError):
        return str(change)
