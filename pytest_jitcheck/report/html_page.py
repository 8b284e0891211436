"""``--jitcheck-html``: one self-contained page of the session's compilations.

No external resources (styles, script and data are inline), so the page works offline
and can be kept as a CI artifact. The data is the JSON report, embedded as a
``<script type="application/json">`` block; a small script renders the tables (per
function, per test), the timeline of trace/lower/compile time, and the filter.
"""

from __future__ import annotations

import html
import json
from typing import Any

_STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.5em}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:3px 6px;
text-align:left;vertical-align:top}th{background:#f3f3f3}td.n{text-align:right}
.reason{color:#555}.hint{color:#0a5}.wasteful{color:#b00;font-weight:bold}
code{font-size:12px}#filter{width:30em;padding:4px}
.bar-trace{fill:#4e79a7}.bar-lower{fill:#f28e2b}.bar-compile{fill:#e15759}
.legend span{display:inline-block;width:10px;height:10px;margin:0 4px 0 12px}
"""

_SCRIPT = """
const data = JSON.parse(document.getElementById('jitcheck-data').textContent);
const esc = s => String(s).replace(/[&<>"]/g, c => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c]));
const fmt = s => (s * 1000).toFixed(1) + ' ms';
const tot = e => e.trace_time_s + e.lower_time_s + e.compile_time_s;
function renderFunctions(q) {
  const rows = data.functions.filter(f => !q || (f.function + ' ' + f.location).toLowerCase().includes(q));
  document.getElementById('functions').innerHTML = rows.map(f =>
    `<tr class="fn-row"><td><code>${esc(f.function)}</code><br><small>${esc(f.location)}</small></td>` +
    `<td class="n">${f.compilations}</td><td class="n">${fmt(f.seconds)}</td><td class="n">${f.tests.length}</td>` +
    `<td class="reason">${Object.entries(f.reasons).map(([r, n]) => esc(n + 'x ' + r)).join('<br>')}</td></tr>`).join('');
}
function renderTests(q) {
  const out = [];
  for (const [test, events] of Object.entries(data.tests)) {
    const shown = events.filter(e => !q || (test + ' ' + e.function + ' ' + e.reason).toLowerCase().includes(q));
    if (!shown.length) continue;
    out.push(`<tr class="test-row"><td rowspan="${shown.length}"><code>${esc(test)}</code></td>` +
      shown.map(e => `<td><code>${esc(e.function)}</code></td><td class="n">${fmt(tot(e))}</td>` +
        `<td class="reason">${esc(e.reason)}` +
        (e.wasteful ? `<br><span class="wasteful">wasteful: ${esc(e.wasteful)}</span>` : '') +
        (e.hint ? `<br><span class="hint">hint: ${esc(e.hint)}</span>` : '') + `</td></tr>`).join('<tr>'));
  }
  document.getElementById('tests').innerHTML = out.join('');
}
function renderTimeline(q) {
  const events = [];
  for (const [test, es] of Object.entries(data.tests))
    for (const e of es) if (!q || (test + ' ' + e.function).toLowerCase().includes(q)) events.push([test, e]);
  const workers = [...new Set(events.map(([, e]) => e.worker || 'main'))];
  const start = {}, end = {};
  for (const [, e] of events) { const w = e.worker || 'main';
    start[w] = Math.min(start[w] ?? Infinity, e.start_s); end[w] = Math.max(end[w] ?? 0, e.start_s + tot(e)); }
  const span = Math.max(1e-6, ...workers.map(w => end[w] - start[w]));
  const W = 1000, H = 22, svg = [];
  workers.forEach((w, row) => {
    svg.push(`<text x="0" y="${row * H + 15}" font-size="11">${esc(w)}</text>`);
    for (const [test, e] of events.filter(([, e]) => (e.worker || 'main') === w)) {
      let x = 80 + (e.start_s - start[w]) / span * (W - 90);
      for (const [phase, key] of [['trace', 'trace_time_s'], ['lower', 'lower_time_s'], ['compile', 'compile_time_s']]) {
        const width = Math.max(0.5, e[key] / span * (W - 90));
        if (e[key] > 0) svg.push(`<rect class="bar-${phase}" x="${x}" y="${row * H + 3}" width="${width}" height="${H - 6}">` +
          `<title>${esc(phase + ' ' + e.function + ' (' + test + '): ' + fmt(e[key]) + ' - ' + e.reason)}</title></rect>`);
        x += e[key] / span * (W - 90);
      }
    }
  });
  const el = document.getElementById('timeline');
  el.setAttribute('viewBox', `0 0 ${W} ${Math.max(1, workers.length) * H}`);
  el.setAttribute('height', Math.max(1, workers.length) * H);
  el.innerHTML = svg.join('');
}
function render() {
  const q = document.getElementById('filter').value.trim().toLowerCase();
  renderFunctions(q); renderTests(q); renderTimeline(q);
}
document.getElementById('filter').addEventListener('input', render);
// A link can carry a filter: report.html#filter=step
if (location.hash.startsWith('#filter='))
  document.getElementById('filter').value = decodeURIComponent(location.hash.slice(8));
const n = data.functions.reduce((a, f) => a + f.compilations, 0);
const secs = data.functions.reduce((a, f) => a + f.seconds, 0);
document.getElementById('totals').textContent =
  `${n} compilation(s) of ${data.functions.length} jitted function(s), ${secs.toFixed(2)} s ` +
  `tracing+lowering+compiling; backend ${data.backend}, jax ${data.jax_version}`;
render();
"""


def render(report: dict[str, Any]) -> str:
    """Return the HTML page for a JSON report (``SessionStats.to_json()``)."""
    # "</" would end the script element early; JSON allows "<\/" in strings.
    payload = json.dumps(report).replace("</", "<\\/")
    title = "jitcheck compile report"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>{_STYLE}</style></head>
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
<script>{_SCRIPT}</script>
</body></html>
"""
