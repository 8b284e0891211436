"""``--jitcheck-trace``: the session's compilations as Chrome/Perfetto trace events.

One complete event (``"ph": "X"``) per phase of each compilation (trace, lowering,
backend compile), with the function, the test and the reason in ``args``. Each pytest
process (the controller, or each xdist worker) is one trace process, named by a
metadata event; timestamps are that process's own ``perf_counter`` in microseconds.
The file opens in https://ui.perfetto.dev next to JAX's profiler traces.
"""

from __future__ import annotations

from typing import Any

_PHASES = (("trace", "trace_time_s"), ("lower", "lower_time_s"), ("compile", "compile_time_s"))


def build(tests: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """Return the trace-event JSON object for the events of every test."""
    pids: dict[str, int] = {}
    events: list[dict[str, Any]] = []
    for nodeid, compiles in tests.items():
        for e in compiles:
            worker = str(e.get("worker", "main"))
            if worker not in pids:
                pids[worker] = len(pids) + 1
                events.append(
                    {
                        "name": "process_name",
                        "ph": "M",
                        "pid": pids[worker],
                        "tid": 0,
                        "args": {"name": f"pytest {worker}"},
                    }
                )
            ts = float(e.get("start_s", 0.0)) * 1e6
            args = {
                "function": e["function"],
                "location": e["location"],
                "test": nodeid,
                "reason": e.get("reason", ""),
                "call_site": e.get("call_site", ""),
            }
            for phase, key in _PHASES:
                duration = float(e.get(key, 0.0)) * 1e6
                if duration <= 0:
                    continue
                events.append(
                    {
                        "name": f"{phase} {e['function']}",
                        "cat": f"jitcheck.{phase}",
                        "ph": "X",
                        "ts": round(ts, 3),
                        "dur": round(duration, 3),
                        "pid": pids[worker],
                        "tid": 0,
                        "args": args,
                    }
                )
                ts += duration
    return {"traceEvents": events, "displayTimeUnit": "ms"}
