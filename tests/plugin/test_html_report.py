"""--jitcheck-html and --jitcheck-trace end to end, merged across xdist workers.

The page is rendered by a real headless browser (Debian's ``chromium``) where one is
installed; without it that part skips.
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

# Each test runs pytest in a subprocess (JAX start-up, compilations): tens of seconds.
pytestmark = pytest.mark.slow

SUITE = """
import jax
import jax.numpy as jnp


@jax.jit
def square(x):
    return x * x


@jax.jit
def cube(x):
    return x * x * x


def test_square_shapes():
    for n in range(1, 4):
        square(jnp.ones(n))


def test_cube():
    cube(jnp.ones(2))


def test_fresh_lambdas():
    for _ in range(2):
        jax.jit(lambda x: x + 1)(jnp.ones(2))
"""


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture
def run(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\naddopts = -p no:cacheprovider\nfilterwarnings = error\n")
    pytester.makepyfile(test_suite=SUITE)
    result = pytester.runpytest_subprocess(
        "-n", "2", "--jitcheck-html", "report.html", "--jitcheck-trace", "trace.json"
    )
    result.assert_outcomes(passed=3, warnings=1)
    return pytester


def test_trace_events_from_both_workers(run: pytest.Pytester) -> None:
    trace = json.loads((run.path / "trace.json").read_text())["traceEvents"]
    complete = [e for e in trace if e["ph"] == "X"]
    functions = {e["args"]["function"] for e in complete}
    assert {"square", "cube", "test_fresh_lambdas.<locals>.<lambda>"} <= functions
    assert {e["name"].split()[0] for e in complete} >= {"trace", "lower", "compile"}
    assert all(e["dur"] > 0 and "test" in e["args"] and "reason" in e["args"] for e in complete)
    processes = {e["args"]["name"] for e in trace if e["ph"] == "M"}
    assert processes <= {"pytest gw0", "pytest gw1"} and processes
    squares = [e for e in complete if e["args"]["function"] == "square" and "trace" in e["name"]]
    assert [e["args"]["reason"] for e in squares] == [
        "first compilation",
        "x: f32[1] -> f32[2]",
        "x: f32[2] -> f32[3]",
    ]


def test_html_page_renders_offline_in_a_headless_browser(run: pytest.Pytester) -> None:
    page = run.path / "report.html"
    text = page.read_text()
    assert "<script src" not in text and "<link" not in text
    browser = _chromium()
    if browser is None:
        pytest.skip("chromium is not installed (apt-get install chromium)")

    def dom(fragment: str = "") -> str:
        out = subprocess.run(
            [
                browser,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--virtual-time-budget=3000",
                "--dump-dom",
                page.as_uri() + fragment,
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        return out.stdout.split('<script type="application/json"')[0]  # the body, not the code

    rendered = dom()
    # The script ran: one row per function, per-test rows, a bar per compile phase.
    assert rendered.count('class="fn-row"') == 3
    assert rendered.count('class="test-row"') == 3
    assert rendered.count('class="bar-compile"') >= 6
    assert "6 compilation(s) of 3 jitted function(s)" in rendered
    assert "wasteful: a fresh function object" in rendered
    filtered = dom("#filter=cube")
    assert filtered.count('class="fn-row"') == 1
    assert "square" not in filtered.split("<h2>Functions")[1]
