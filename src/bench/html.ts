import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunRecord } from './results.js';
import type { ToolSummary } from './summary.js';

export interface ReportInput {
  readonly summary: ToolSummary;
  readonly records: readonly RunRecord[];
}

/** chart.js's UMD bundle, to inline into the page (no network needed to open it). */
export function chartJsSource(): string | undefined {
  const candidates: string[] = [];
  try {
    const require = createRequire(import.meta.url);
    candidates.push(join(dirname(require.resolve('chart.js')), 'chart.umd.js'));
  } catch {
    /* fall back to the repository layout */
  }
  candidates.push(resolve(dirname(fileURLToPath(import.meta.url)), '../../../node_modules/chart.js/dist/chart.umd.js'));
  for (const c of candidates) if (existsSync(c)) return readFileSync(c, 'utf8');
  return undefined;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

/** JSON that can sit inside a <script> element. */
function scriptJson(v: unknown): string {
  return JSON.stringify(v).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** The page: score tables, a per-task table (sortable, filterable), the score-based CPU-time quantile plot, and a scatter plot of two tools. */
export function renderHtmlReport(inputs: readonly ReportInput[], chartJs = chartJsSource()): string {
  const data = {
    tools: inputs.map((i) => ({
      summary: i.summary,
      runs: i.records.map((r) => ({
        id: r.id,
        task: r.task,
        property: r.property,
        expected: r.expected,
        status: r.status,
        category: r.category,
        points: r.points,
        cpu: r.cpuTime,
        wall: r.wallTime,
        mem: r.memory,
        validation: r.validation?.status ?? null,
        reason: r.reason ?? null,
        log: r.log ?? null,
        machine: r.machine ? `${r.machine.worker} on ${r.machine.host} (${r.machine.cpuModel}, ${r.machine.cores} cores)` : null,
      })),
    })),
  };
  const title = `Tarsier benchmark: ${inputs.map((i) => i.summary.name).join(' vs. ')}`;
  const chart = chartJs ? `<script>${chartJs.replace(/<\/script/gi, '<\\/script')}</script>` : '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(title)}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { border: 1px solid #ccc; padding: 2px 8px; text-align: right; white-space: nowrap; }
th { background: #f0f0f0; white-space: normal; } td.l, th.l { text-align: left; }
#runs th { cursor: pointer; user-select: none; }
tr.meta td { font-weight: bold; background: #fafafa; }
.correct { background: #d8f5d0; } .wrong { background: #f8c8c8; font-weight: bold; }
.unknown, .missing { background: #fff; } .correct-unconfirmed { background: #fff3c4; }
td.timeout { background: #eee; } td.error, td.oom { background: #fde2c8; }
.plots { display: flex; flex-wrap: wrap; gap: 2em; } .plot { width: 560px; height: 380px; }
.filters { margin: .5em 0; } .filters label { margin-right: 1em; }
.note { color: #666; }
</style>
${chart}
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<p class="note">Scores as the SV-COMP rules define them: +2 correct TRUE, +1 correct FALSE, &minus;32 incorrect TRUE, &minus;16 incorrect FALSE, 0 otherwise. Meta categories are normalised by task counts.</p>
<h2>Totals</h2>
<table id="totals"></table>
<h2>Scores per category</h2>
<table id="categories"></table>
<h2>Plots</h2>
${chartJs ? '' : '<p class="note">chart.js was not found when this page was written; plots are left out.</p>'}
<div class="plots">
<div class="plot"><canvas id="quantile"></canvas></div>
<div class="plot" id="scatterBox"><canvas id="scatter"></canvas></div>
</div>
<h2>Runs</h2>
<div class="filters">
<label>task <input id="fTask" size="24" placeholder="substring"></label>
<label>expected <select id="fExpected"><option value="">all</option><option value="true">true</option><option value="false">false</option><option value="none">none</option></select></label>
<label>status <select id="fStatus"><option value="">all</option><option>correct</option><option>wrong</option><option>correct-unconfirmed</option><option>unknown</option><option>timeout</option><option>out of memory</option><option>error</option></select></label>
<span id="count" class="note"></span>
</div>
<table id="runs"></table>
<script id="data" type="application/json">${scriptJson(data)}</script>
<script>
(function () {
  const data = JSON.parse(document.getElementById('data').textContent);
  const tools = data.tools;
  const el = (tag, attrs, ...kids) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) e.setAttribute(k, v);
    for (const k of kids) e.append(k instanceof Node ? k : document.createTextNode(String(k)));
    return e;
  };
  const num = (x) => (Number.isInteger(x) ? String(x) : x.toFixed(2));

  // Totals, ranked by score then success run time.
  const ranked = tools.map((t) => t.summary).sort((a, b) => b.score - a.score || a.cpuTimeCorrect - b.cpuTimeCorrect);
  const heads = ['tool', 'score', 'runs', 'correct true', 'correct false', 'incorrect true', 'incorrect false', 'unconfirmed', 'unknown', 'timeout', 'out of memory', 'error', 'CPU time of correct results (s)'];
  const totals = document.getElementById('totals');
  totals.append(el('tr', {}, ...heads.map((h, i) => el('th', { class: i ? '' : 'l' }, h))));
  for (const s of ranked) {
    const cells = [num(s.score), s.runs, s.correctTrue, s.correctFalse, s.incorrectTrue, s.incorrectFalse, s.unconfirmed, s.unknown, s.timeouts, s.outOfMemory, s.errors, s.cpuTimeCorrect.toFixed(1)];
    totals.append(el('tr', {}, el('td', { class: 'l' }, s.name), ...cells.map((c) => el('td', {}, c))));
  }

  // Categories side by side.
  const names = [...new Set(ranked.flatMap((s) => s.categories.map((c) => c.name)))];
  const order = (n) => (n === 'Overall' ? 0 : n.includes('.') ? 2 : 1);
  names.sort((a, b) => order(a) - order(b) || (a < b ? -1 : 1));
  const cats = document.getElementById('categories');
  cats.append(el('tr', {}, el('th', { class: 'l' }, 'category'), el('th', {}, 'tasks'), ...ranked.map((s) => el('th', {}, s.name + ' score')), ...ranked.map((s) => el('th', {}, s.name + ' normalised'))));
  for (const n of names) {
    const cs = ranked.map((s) => s.categories.find((c) => c.name === n));
    const any = cs.find((c) => c);
    const tr = el('tr', { class: order(n) < 2 ? 'meta' : '' }, el('td', { class: 'l' }, order(n) < 2 ? n + ' (meta)' : n), el('td', {}, any ? any.tasks : 0));
    for (const c of cs) tr.append(el('td', {}, c ? num(Math.round(c.score * 100) / 100) : '-'));
    for (const c of cs) tr.append(el('td', {}, c ? c.normalizedScore.toFixed(3) : '-'));
    cats.append(tr);
  }

  // Per-task table: one row per run id, one column group per tool.
  const ids = [];
  const byId = new Map();
  tools.forEach((t, ti) => t.runs.forEach((r) => {
    if (!byId.has(r.id)) { byId.set(r.id, { id: r.id, task: r.task, property: r.property, expected: r.expected, per: [] }); ids.push(r.id); }
    byId.get(r.id).per[ti] = r;
  }));
  const rows = ids.map((id) => byId.get(id));
  const columns = [
    { name: 'task', get: (r) => r.task, cls: 'l' },
    { name: 'property', get: (r) => r.property, cls: 'l' },
    { name: 'expected', get: (r) => r.expected || '', cls: 'l' },
  ];
  tools.forEach((t, ti) => {
    const p = tools.length > 1 ? t.summary.name + ' ' : '';
    columns.push({ name: p + 'status', get: (r) => (r.per[ti] ? r.per[ti].status : ''), cls: 'l', cat: ti });
    columns.push({ name: p + 'points', get: (r) => (r.per[ti] ? r.per[ti].points : null) });
    columns.push({ name: p + 'CPU s', get: (r) => (r.per[ti] ? r.per[ti].cpu : null), fmt: (v) => v.toFixed(2) });
    columns.push({ name: p + 'wall s', get: (r) => (r.per[ti] ? r.per[ti].wall : null), fmt: (v) => v.toFixed(2) });
    columns.push({ name: p + 'MB', get: (r) => (r.per[ti] ? r.per[ti].mem / 1048576 : null), fmt: (v) => v.toFixed(1) });
  });
  let sortCol = 0, sortDir = 1;
  const table = document.getElementById('runs');
  const fTask = document.getElementById('fTask'), fExp = document.getElementById('fExpected'), fStatus = document.getElementById('fStatus');
  const statusMatches = (r, want) => r.per.some((x) => x && (x.category === want || x.status === want));
  function render() {
    table.textContent = '';
    table.append(el('tr', {}, ...columns.map((c, i) => {
      const th = el('th', { class: c.cls || '' }, c.name + (i === sortCol ? (sortDir > 0 ? ' \\u25B2' : ' \\u25BC') : ''));
      th.onclick = () => { sortDir = i === sortCol ? -sortDir : 1; sortCol = i; render(); };
      return th;
    })));
    const q = fTask.value.trim(), e = fExp.value, s = fStatus.value;
    const shown = rows.filter((r) =>
      (!q || r.task.includes(q)) &&
      (!e || (e === 'none' ? !r.expected : (r.expected || '').startsWith(e))) &&
      (!s || statusMatches(r, s)));
    const col = columns[sortCol];
    shown.sort((a, b) => {
      const x = col.get(a), y = col.get(b);
      if (x === y) return a.id < b.id ? -1 : 1;
      if (x === null || x === '') return 1;
      if (y === null || y === '') return -1;
      return (x < y ? -1 : 1) * sortDir;
    });
    for (const r of shown) {
      const tr = el('tr', {});
      for (const c of columns) {
        const v = c.get(r);
        const td = el('td', { class: c.cls || '' }, v === null ? '' : c.fmt ? c.fmt(v) : v);
        if (c.cat !== undefined && r.per[c.cat]) {
          const x = r.per[c.cat];
          const st = x.status === 'timeout' ? ' timeout' : x.status === 'error' ? ' error' : x.status === 'out of memory' ? ' oom' : '';
          td.className = 'l ' + x.category + (x.category === 'unknown' ? st : '');
          td.title = [x.reason, x.validation ? 'witness: ' + x.validation : '', x.log ? 'log: ' + x.log : '', x.machine ? 'ran on ' + x.machine : ''].filter(Boolean).join('; ');
        }
        tr.append(td);
      }
      table.append(tr);
    }
    document.getElementById('count').textContent = shown.length + ' of ' + rows.length + ' runs';
  }
  [fTask, fExp, fStatus].forEach((x) => x.addEventListener('input', render));
  render();

  if (typeof Chart === 'undefined') return;
  const colors = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b'];
  // Score-based quantile plot, as in the competition reports: the correct
  // results sorted by CPU time; x is the accumulated score, starting at the
  // (negative) sum of points of the incorrect results.
  const quantile = (t) => {
    let x = t.runs.filter((r) => r.category === 'wrong').reduce((s, r) => s + r.points, 0);
    return t.runs.filter((r) => r.category === 'correct').sort((a, b) => a.cpu - b.cpu || (a.id < b.id ? -1 : 1))
      .map((r) => ({ x: (x += r.points), y: Math.max(r.cpu, 0.01), id: r.id }));
  };
  new Chart(document.getElementById('quantile'), {
    type: 'line',
    data: { datasets: tools.map((t, i) => ({
      label: t.summary.name,
      data: quantile(t),
      borderColor: colors[i % colors.length], backgroundColor: colors[i % colors.length], pointRadius: 2, borderWidth: 1.5,
    })) },
    options: { animation: false, maintainAspectRatio: false,
      plugins: { title: { display: true, text: 'Quantile plot: CPU time of correct results' }, tooltip: { callbacks: { label: (c) => c.raw.id + ': ' + c.raw.y.toFixed(2) + ' s' } } },
      scales: { x: { type: 'linear', ticks: { precision: 0 }, title: { display: true, text: 'accumulated score' } }, y: { type: 'logarithmic', title: { display: true, text: 'CPU time (s)' } } } },
  });
  if (tools.length < 2) { document.getElementById('scatterBox').style.display = 'none'; return; }
  const [a, b] = tools;
  const other = new Map(b.runs.map((r) => [r.id, r]));
  const pts = a.runs.filter((r) => other.has(r.id)).map((r) => ({ x: Math.max(r.cpu, 0.01), y: Math.max(other.get(r.id).cpu, 0.01), id: r.id, both: r.category === 'correct' && other.get(r.id).category === 'correct' }));
  const lo = Math.min(...pts.map((p) => Math.min(p.x, p.y)), 1), hi = Math.max(...pts.map((p) => Math.max(p.x, p.y)), 1);
  const diagonal = [{ x: lo, y: lo }, { x: hi, y: hi }];
  new Chart(document.getElementById('scatter'), {
    type: 'scatter',
    data: { datasets: [
      { label: 'both correct', data: pts.filter((p) => p.both), backgroundColor: '#2ca02c' },
      { label: 'other', data: pts.filter((p) => !p.both), backgroundColor: '#999' },
      { label: 'equal time', type: 'line', data: diagonal, borderColor: '#bbb', borderDash: [4, 4], borderWidth: 1, pointRadius: 0 },
    ] },
    options: { animation: false, maintainAspectRatio: false,
      plugins: { title: { display: true, text: 'CPU time per run: ' + a.summary.name + ' vs. ' + b.summary.name }, tooltip: { callbacks: { label: (c) => (c.raw.id || '') + ': ' + c.raw.x.toFixed(2) + ' s / ' + c.raw.y.toFixed(2) + ' s' } } },
      scales: { x: { type: 'logarithmic', title: { display: true, text: a.summary.name + ' CPU time (s)' } }, y: { type: 'logarithmic', title: { display: true, text: b.summary.name + ' CPU time (s)' } } } },
  });
})();
</script>
</body>
</html>
`;
}

export function writeHtmlReport(file: string, inputs: readonly ReportInput[]): void {
  writeFileSync(file, renderHtmlReport(inputs));
}
