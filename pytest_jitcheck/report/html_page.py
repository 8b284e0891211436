"""``--jitcheck-html``: one self-contained page of the session's compilations.

No external resources (styles, script and data are inline), so the page works offline
and can be kept as a CI artifact. The data is the JSON report, embedded as a
``<script type="application/json">`` block; ``page.js`` (inlined) renders the tables (per
function, per test), the timeline of trace/lower/compile time, and the filter, styled
by ``page.css``.
"""

from __future__ import annotations

import html
import json
from importlib import resources
from typing import Any


def _asset(name: str) -> str:
    return (resources.files(__package__) / name).read_text(encoding="utf-8")


def render(report: dict[str, Any]) -> str:
    """Return the HTML page for a JSON report (``SessionStats.to_json()``)."""
    # "</" would end the script element early; JSON allows "<\/" in strings.
    payload = json.dumps(report).replace("</", "<\\/")
    title = "jitcheck compile report"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>{_asset("page.css")}</style></head>
<body>
<h1>{html.escape(title)}</h1>
<p id="totals"></p>
<p><input id="filter" type="search" placeholder="filter by function, test or reason"></p>
<h2>Timeline</h2>
<p class="legend"><span class="bar-trace" style="background:#4e79a7"></span>trace
<span style="background:#f28e2b"></span>lowering<span style="background:#e15759"></span>compile</p>
<svg id="timeline" width="100%" xmlns="http://www.w3.org/2000/svg"></svg>
<h2>Functions</h2>
<table><thead><tr><th>function</th><th>compilations</th><th>time</th><th>tests</th>
<th>reasons</th></tr></thead><tbody id="functions"></tbody></table>
<h2>Tests</h2>
<table><thead><tr><th>test</th><th>function</th><th>time</th><th>reason</th></tr></thead>
<tbody id="tests"></tbody></table>
<script type="application/json" id="jitcheck-data">{payload}</script>
<script>{_asset("page.js")}</script>
</body></html>
"""
