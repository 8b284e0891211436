"""Session statistics: ranking, reason grouping, worker merge; lazy JAX import."""

from __future__ import annotations

import subprocess
import sys

from pytest_jitcheck.summary import SessionStats


def _event(name, changes=(), seconds=0.1):
    return {
        "function": name,
        "location": f"/src/{name}.py:1",
        "trace_time_s": seconds,
        "lower_time_s": 0.0,
        "compile_time_s": 0.0,
        "changes": list(changes),
    }


def test_ranked_by_count_then_time_with_grouped_reasons():
    stats = SessionStats()
    stats.add_test("t1", [_event("a"), _event("a", ["x: f32[1] -> f32[2]"])])
    stats.add_test("t2", [_event("a", ["x: f32[2] -> f32[3]"]), _event("b", seconds=5.0)])
    stats.add_test("t3", [_event("c", seconds=9.0)])
    stats.add_test("t4", [])
    ranked = stats.ranked()
    assert [(s.name, s.count) for s in ranked] == [("a", 3), ("c", 1), ("b", 1)]
    assert ranked[0].tests == {"t1", "t2"}
    assert dict(ranked[0].reasons) == {"x changed": 2}
    lines = stats.terminal_lines()
    assert lines[0] == (
        "5 compilation(s) of 3 jitted function(s), 14.30 s tracing+lowering+compiling "
        "(backend unknown)"
    )
    assert "2x x changed, last x: f32[2] -> f32[3]" in lines[3]
    assert "t4" not in stats.tests


def test_structure_reasons_are_kept_whole_and_workers_merge():
    controller, worker = SessionStats(), SessionStats()
    change = "pytree structure of batch changed: keys {'mask'} added"
    worker.add_test("t9", [_event("a", [change])])
    worker.backend = "cpu"
    controller.merge({"tests": worker.tests, "backend": worker.backend})
    assert controller.backend == "cpu"
    assert dict(controller.ranked()[0].reasons) == {change: 1}
    report = controller.to_json()
    assert report["functions"][0]["reasons"] == {change: 1}
    assert report["tests"] == {"t9": worker.tests["t9"]}


def test_plugin_import_does_not_import_jax():
    code = "import sys, pytest_jitcheck.plugin; print('jax' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
