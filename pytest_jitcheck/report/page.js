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
