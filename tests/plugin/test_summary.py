"""Session statistics: ranking, reason grouping, worker merge; lazy JAX import."""

from __future__ import annotations

import subprocess
import sys

from pytest_jitcheck.report import SessionStats, html_page, trace_events


def _shape(old, new):
    return {"kind": "shape", "path": "x", "old": old, "new": new}


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
    stats.add_test("t1", [_event("a"), _event("a", [_shape("f32[1]", "f32[2]")])])
    stats.add_test("t2", [_event("a", [_shape("f32[2]", "f32[3]")]), _event("b", seconds=5.0)])
    stats.add_test("t3", [_event("c", seconds=9.0)])
    stats.add_test("t4", [])
    ranked = stats.ranked()
    assert [(s.name, s.count) for s in ranked] == [("a", 3), ("c", 1), ("b", 1)]
    assert ranked[0].tests == {"t1", "t2"}
    assert dict(ranked[0].reasons) == {"x: shape": 2}
    lines = stats.terminal_lines()
    assert lines[0] == (
        "5 compilation(s) of 3 jitted function(s), 14.30 s tracing+lowering+compiling "
        "(backend unknown)"
    )
    assert "2x x: shape, last x: f32[2] -> f32[3]" in lines[3]
    assert "t4" not in stats.tests


def test_structure_reasons_are_kept_whole_and_workers_merge():
    controller, worker = SessionStats(), SessionStats()
    worker = SessionStats("gw0")
    change = {"kind": "pytree structure", "path": "batch", "old": "{'x'}", "new": "{'mask', 'x'}"}
    worker.add_test("t9", [_event("a", [change])])
    worker.backend = "cpu"
    controller.merge(worker.worker_output())
    assert controller.backend == "cpu"
    assert dict(controller.ranked()[0].reasons) == {"batch: pytree structure": 1}
    report = controller.to_json()
    assert report["functions"][0]["reasons"] == {"batch: pytree structure": 1}
    assert report["tests"] == {"t9": worker.tests["t9"]}
    assert report["tests"]["t9"][0]["worker"] == "gw0"
    assert controller.terminal_lines()[-1].endswith(
        "1x batch: pytree structure, last pytree structure of batch changed: {'x'} -> {'mask', 'x'}"
    )


def test_plugin_import_does_not_import_jax():
    code = "import sys, pytest_jitcheck.plugin; print('jax' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_trace_events_have_one_complete_event_per_phase_and_a_process_per_worker():
    stats = SessionStats()
    one = {**_event("a"), "lower_time_s": 0.2, "start_s": 1.0, "worker": "gw0", "reason": "r"}
    two = {**_event("b"), "start_s": 2.0, "worker": "gw1", "reason": "first compilation"}
    stats.add_test("t1", [one])
    stats.add_test("t2", [two])
    trace = trace_events.build(stats.tests)["traceEvents"]
    names = {e["args"]["name"] for e in trace if e["ph"] == "M"}
    assert names == {"pytest gw0", "pytest gw1"}
    complete = [e for e in trace if e["ph"] == "X"]
    assert [e["name"] for e in complete] == ["trace a", "lower a", "trace b"]
    assert complete[0]["ts"] == 1e6 and complete[1]["ts"] == 1e6 + 0.1e6
    assert complete[0]["args"] == {
        "function": "a",
        "location": "/src/a.py:1",
        "test": "t1",
        "reason": "r",
        "call_site": "",
    }
    assert complete[0]["pid"] != complete[2]["pid"]


def test_html_page_is_self_contained_and_escapes_the_data():
    stats = SessionStats()
    stats.add_test("t</script><b>", [_event("a")])
    page = html_page.render(stats.to_json())
    assert page.count("</script>") == 2  # the data block and the script, nothing injected
    assert "t<\\/script><b>" in page
    for external in ("src=", "href=", "http://", "https://"):
        assert external not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
