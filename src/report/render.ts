/**
 * The report view as HTML text: the program with every marker pinned at its
 * line and column, an annotation under each marked line, one details panel
 * per marker, the violation path, the diagnostics and the witness text. Pure
 * string building, so the same view comes out of `tarsier report` and the
 * playground; `attachReportInteractions` makes it clickable.
 */
import type { Diagnostic } from '../witness/index.js';
import { attachReportInteractions } from './interact.js';
import type { ReportData, ReportMarker } from './model.js';

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** The short label on a pin: the step number of a waypoint, else I/C/G and the marker's number. */
function pinLabel(m: ReportMarker): string {
  if (m.step !== undefined) return String(m.step);
  return `${m.category === 'contract' ? 'C' : m.category === 'ghost' ? 'G' : 'I'}${m.id + 1}`;
}

function markerClass(m: ReportMarker): string {
  const worst = m.diagnostics.some((d) => d.severity === 'error') ? ' has-error' : m.diagnostics.length ? ' has-warning' : '';
  const avoid = m.kind.includes('(avoid)') ? ' avoid' : '';
  return `cat-${m.category}${worst}${avoid}`;
}

function where(m: ReportMarker): string {
  if (m.line === undefined) return 'no program location';
  return `line ${m.line}${m.column !== undefined ? `, column ${m.column}` : ' (line only)'}${m.function ? ` in ${m.function}` : ''}`;
}

function summaryText(m: ReportMarker, withStep = true): string {
  const nondet = m.nondetCall ? ` — ${m.nondetCall}() returns ${nondetValue(m.text)}` : '';
  return `${withStep && m.step !== undefined ? `step ${m.step}: ` : ''}${m.kind}${m.text ? ` ${m.text}` : ''}${nondet} (${where(m)})${m.status ? ` — ${m.status}` : ''}`;
}

/** `\result == 20` → `20`; anything else as written. */
function nondetValue(constraint: string): string {
  const m = /^\s*\\result\s*==\s*(.+?)\s*$/.exec(constraint);
  return m ? m[1] : constraint;
}

function diagnosticItem(d: Diagnostic, withPlace = true): string {
  const place = withPlace ? `<a class="wref" href="#W${d.line}" data-wline="${d.line}">${escapeHtml(d.file)}:${d.line}:${d.column}</a> ` : '';
  return `<li class="diag ${d.severity}" data-wline="${d.line}">${place}<b>${d.severity}</b>: ${escapeHtml(d.message)} <span class="rule">[${escapeHtml(d.rule)}]</span></li>`;
}

function pin(m: ReportMarker): string {
  return `<button type="button" class="pin ${markerClass(m)}" data-marker="${m.id}" title="${escapeHtml(summaryText(m))}">${pinLabel(m)}</button>`;
}

/** One source line with its pins inserted before the characters they point at (line-only pins first). */
function sourceLine(text: string, lineNo: number, pins: readonly ReportMarker[]): string {
  const sorted = [...pins].sort((a, b) => (a.column ?? 0) - (b.column ?? 0));
  let html = '';
  let at = 0;
  for (const m of sorted) {
    const col = Math.min(Math.max((m.column ?? 1) - 1, 0), text.length);
    if (col > at) html += escapeHtml(text.slice(at, col));
    at = Math.max(at, col);
    html += pin(m);
  }
  html += escapeHtml(text.slice(at));
  const marked = pins.length ? ' marked' : '';
  return `<div class="ln${marked}" id="L${lineNo}" data-line="${lineNo}"><span class="no">${lineNo}</span><code>${html}</code></div>`;
}

/** good (selected, confirmed, used), bad (rejected, refuted, dropped) or open (unconfirmed, read leniently). */
function statusClass(status: string): string {
  if (/^(selected|confirmed|used)\b/.test(status)) return 'good';
  if (/^(rejected|refuted|dropped)\b/.test(status)) return 'bad';
  return 'open';
}

function statusBadge(m: ReportMarker): string {
  return m.status ? ` <span class="status ${statusClass(m.status)}">${escapeHtml(m.status)}</span>` : '';
}

/** The validation's outcome above the program: verdict, reason, and the run that confirms or refutes. */
function validationBanner(data: ReportData): string {
  const v = data.validation;
  if (!v) return '';
  const run = v.counterexample
    ? `<p>${v.kind === 'violation' ? 'The violating run' : 'Counterexample'}: <code>${escapeHtml(v.counterexample.join(', ') || '(no nondet values)')}</code></p>`
    : '';
  const where = v.where ? ` <span class="where">(${v.where === 'browser' ? 'in the browser' : 'on the server, with gcc replay'})</span>` : '';
  return `<div class="validation ${statusClass(v.outcome)}" role="status"><b>Validation: witness ${escapeHtml(v.outcome)}</b> — ${escapeHtml(v.verdict)}${where}<p>${escapeHtml(v.reason)}</p>${run}</div>`;
}

function annotation(m: ReportMarker): string {
  const diags = m.diagnostics.length ? `<ul class="diags">${m.diagnostics.map((d) => diagnosticItem(d)).join('')}</ul>` : '';
  return `<div class="ann ${markerClass(m)}" data-marker="${m.id}" data-line="${m.line}"><span class="no"></span><div class="ann-body"><span class="tag ${markerClass(m)}">${pinLabel(m)}</span> ${escapeHtml(m.kind)} <code>${escapeHtml(m.text)}</code>${statusBadge(m)}${m.nondetCall ? ` <span class="nondet">${escapeHtml(m.nondetCall)}() = ${escapeHtml(nondetValue(m.text))}</span>` : ''}${diags}</div></div>`;
}

function programView(data: ReportData): string {
  const byLine = new Map<number, ReportMarker[]>();
  for (const m of data.markers) if (m.inProgram && m.line !== undefined) byLine.set(m.line, [...(byLine.get(m.line) ?? []), m]);
  const rows = data.program.lines.map((text, i) => {
    const pins = byLine.get(i + 1) ?? [];
    return sourceLine(text, i + 1, pins) + pins.map(annotation).join('');
  });
  const outside = data.markers.filter((m) => !m.inProgram && m.line !== undefined);
  const outsideHtml = outside.length
    ? `<div class="outside"><h3>Outside the program</h3><p>These point at a line or column the program does not have:</p>${outside.map((m) => annotation(m).replace('class="ann ', 'class="ann out ')).join('')}</div>`
    : '';
  const parse = data.program.parseError ? `<p class="note">The C front end could not parse the program (${escapeHtml(data.program.parseError)}); names and scopes were checked on tokens only.</p>` : '';
  return `<section class="program" aria-label="program"><h2>${escapeHtml(data.program.file)}</h2>${parse}<div class="code">${rows.join('')}</div>${outsideHtml}</section>`;
}

function details(m: ReportMarker, data: ReportData): string {
  const yaml = data.witness.lines.slice(Math.max(m.source.from - 1, 0), m.source.to).join('\n');
  const diags = m.diagnostics.length ? `<ul class="diags">${m.diagnostics.map((d) => diagnosticItem(d)).join('')}</ul>` : '<p class="ok">No lint diagnostics.</p>';
  const nondet = m.nondetCall ? `<p>Nondeterministic value: <code>${escapeHtml(m.nondetCall)}()</code> returns <code>${escapeHtml(nondetValue(m.text))}</code></p>` : '';
  return `<div class="detail" data-marker="${m.id}" hidden>
<h3><span class="tag ${markerClass(m)}">${pinLabel(m)}</span> ${escapeHtml(m.kind)}${statusBadge(m)}</h3>
<p>${m.text ? `<code>${escapeHtml(m.text)}</code> ` : ''}at ${escapeHtml(where(m))}${m.columnNote ? ` (${escapeHtml(m.columnNote)})` : ''}${m.inProgram || m.line === undefined ? '' : ' <b class="error">— outside the program</b>'}</p>
${nondet}<p class="src-ref">${escapeHtml(data.witness.file)}, lines ${m.source.from}–${m.source.to}:</p><pre class="yaml">${escapeHtml(yaml)}</pre>${diags}</div>`;
}

function pathView(data: ReportData): string {
  if (data.path.length === 0) return '';
  const items = data.path.map((id) => {
    const m = data.markers[id];
    return `<li class="${markerClass(m)}"><button type="button" class="step" data-marker="${id}">${escapeHtml(summaryText(m, false))}</button></li>`;
  });
  return `<section class="path"><h3>Violation path (${data.path.length} steps)</h3><ol>${items.join('')}</ol></section>`;
}

function entryList(data: ReportData): string {
  const others = data.markers.filter((m) => m.step === undefined);
  if (others.length === 0) return '';
  const items = others.map((m) => `<li class="${markerClass(m)}"><button type="button" class="step" data-marker="${m.id}">${escapeHtml(`${pinLabel(m)}: ${summaryText(m)}`)}</button></li>`);
  return `<section class="entries"><h3>Entries (${others.length})</h3><ul>${items.join('')}</ul></section>`;
}

function witnessView(data: ReportData): string {
  const byLine = new Map<number, Diagnostic[]>();
  for (const d of data.diagnostics) byLine.set(d.line, [...(byLine.get(d.line) ?? []), d]);
  const rows = data.witness.lines.map((text, i) => {
    const ds = byLine.get(i + 1);
    const diag = ds ? `<ul class="diags inline">${ds.map((d) => diagnosticItem(d, false)).join('')}</ul>` : '';
    return `<div class="wl${ds ? ' has-diag' : ''}" id="W${i + 1}" data-wline="${i + 1}"><span class="no">${i + 1}</span><code>${escapeHtml(text)}</code></div>${diag}`;
  });
  return `<section class="witness" aria-label="witness"><h3>${escapeHtml(data.witness.file)}</h3><div class="code">${rows.join('')}</div></section>`;
}

/** The view without page chrome: what the playground puts into its result area. */
export function renderReportBody(data: ReportData): string {
  const errors = data.diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = data.diagnostics.length - errors;
  const counts = (c: string) => data.markers.filter((m) => m.category === c).length;
  const facts = data.witness.kind === 'none' ? ['no witness yet: paste one, open a file or pick an example'] : [
    data.witness.versions.join(', ') || data.witness.format,
    `${data.witness.kind} witness`,
    data.witness.producer ? `by ${data.witness.producer}` : '',
    `${counts('invariant')} invariants`,
    data.path.length ? `${data.path.length} path steps` : '',
    counts('contract') ? `${counts('contract')} contracts` : '',
    `${errors} lint errors, ${warnings} warnings`,
  ].filter(Boolean);
  const fatal = data.fatal ? `<div class="fatal" role="alert"><b>The witness could not be read:</b> ${escapeHtml(data.fatal)}</div>` : '';
  const general = data.general.length ? `<section class="general"><h3>Diagnostics of the whole witness</h3><ul class="diags">${data.general.map((d) => diagnosticItem(d)).join('')}</ul></section>` : '';
  return `<div class="tarsier-report">
<header><h1>${escapeHtml(data.witness.file)} <span class="on">on</span> ${escapeHtml(data.program.file)}</h1><p class="facts">${escapeHtml(facts.join(' · '))}</p>${fatal}${validationBanner(data)}</header>
<div class="panes">${programView(data)}
<aside><section class="details"><p class="hint">Click a pin in the program, or an entry below, to see its witness text and diagnostics.</p>${data.markers.map((m) => details(m, data)).join('')}</section>
${pathView(data)}${entryList(data)}${general}${witnessView(data)}</aside></div></div>`;
}

export const REPORT_CSS = `
.tarsier-report{font:14px/1.4 system-ui,sans-serif;color:#1d2329;display:flex;flex-direction:column;height:100%;}
.tarsier-report header{padding:6px 12px;border-bottom:1px solid #ccd;}
.tarsier-report h1{font-size:17px;margin:2px 0}.tarsier-report h1 .on{color:#778;font-weight:normal}
.tarsier-report h2,.tarsier-report h3{font-size:14px;margin:8px 0 4px}
.tarsier-report .facts{margin:0;color:#445}
.tarsier-report .fatal{background:#fde2e2;border:1px solid #c33;padding:6px 10px;margin:6px 0;border-radius:4px}
.tarsier-report .panes{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);flex:1;min-height:0}
.tarsier-report .program,.tarsier-report aside{overflow:auto;padding:0 10px 20px}
.tarsier-report aside{border-left:1px solid #ccd;background:#fafbfc}
.tarsier-report .code{font:13px/1.45 ui-monospace,Menlo,Consolas,monospace}
.tarsier-report .ln,.tarsier-report .wl,.tarsier-report .ann{display:flex;white-space:pre}
.tarsier-report .no{display:inline-block;min-width:3.5em;text-align:right;padding-right:10px;color:#99a;user-select:none;flex:none}
.tarsier-report .ln.marked{background:#fff8dc}
.tarsier-report .ln code,.tarsier-report .wl code{font:inherit;white-space:pre}
.tarsier-report .pin{font:bold 10px/1 system-ui,sans-serif;border:none;border-radius:8px;padding:2px 5px;margin:0 2px;cursor:pointer;vertical-align:1px;color:#fff;background:#2f6fb3}
.tarsier-report .cat-waypoint.pin,.tarsier-report .tag.cat-waypoint{background:#7b3fb5}
.tarsier-report .cat-contract.pin,.tarsier-report .tag.cat-contract{background:#1d8a6b}
.tarsier-report .cat-ghost.pin,.tarsier-report .tag.cat-ghost{background:#8a6d1d}
.tarsier-report .avoid.pin{background:#777}
.tarsier-report .has-error.pin{box-shadow:0 0 0 2px #d22}
.tarsier-report .has-warning.pin{box-shadow:0 0 0 2px #e90}
.tarsier-report .pin.sel,.tarsier-report .ann.sel{outline:2px solid #f0a000}
.tarsier-report .ann{white-space:normal;font:12px/1.35 system-ui,sans-serif;background:#eef3fa;border-left:3px solid #2f6fb3;margin:1px 0;cursor:pointer}
.tarsier-report .ann.cat-waypoint{border-left-color:#7b3fb5;background:#f4eefa}
.tarsier-report .ann.has-error{border-left-color:#d22;background:#fdecec}
.tarsier-report .ann-body{padding:2px 6px}.tarsier-report .ann code{font-size:12px}
.tarsier-report .tag{display:inline-block;font:bold 10px/1 system-ui;color:#fff;background:#2f6fb3;border-radius:8px;padding:2px 5px}
.tarsier-report .status{border-radius:3px;padding:0 4px;font-size:12px}.tarsier-report .status.good{background:#dff3df;color:#175}.tarsier-report .status.bad{background:#fbe3e3;color:#a11}.tarsier-report .status.open{background:#f3eedb;color:#653}
.tarsier-report .validation{border:1px solid;border-radius:4px;padding:4px 10px;margin:6px 0}.tarsier-report .validation p{margin:2px 0}
.tarsier-report .validation.good{background:#e9f7e9;border-color:#5a5}.tarsier-report .validation.bad{background:#fdecec;border-color:#c33}.tarsier-report .validation.open{background:#fbf6e4;border-color:#b95}
.tarsier-report .validation .where{color:#667;font-weight:normal}
.tarsier-report .nondet{background:#e8f6e8;border:1px solid #8c8;border-radius:3px;padding:0 4px}
.tarsier-report .diags{margin:2px 0;padding-left:18px;overflow-wrap:anywhere}
.tarsier-report .diag.error{color:#b00}.tarsier-report .diag.warning{color:#a60}
.tarsier-report .diags.inline{font:12px system-ui;margin:0 0 2px 4.5em}
.tarsier-report .rule{color:#889}
.tarsier-report .wl.has-diag{background:#fdecec}.tarsier-report .wl.hl{background:#fff2b3}
.tarsier-report pre.yaml{background:#f1f1f4;padding:6px;overflow:auto;font-size:12px}
.tarsier-report .step{all:unset;display:block;cursor:pointer}.tarsier-report .step:hover{text-decoration:underline}
.tarsier-report .path ol,.tarsier-report .entries ul{padding-left:22px;margin:2px 0}
.tarsier-report .note{color:#845}.tarsier-report .ok{color:#374}.tarsier-report .hint{color:#667}
.tarsier-report .outside{margin-top:14px;border-top:1px dashed #c88}
`;

/** JSON that can sit inside a <script> element. */
function scriptSafe(source: string): string {
  return source.replace(/<\/script/gi, '<\\/script').replace(/<!--/g, '<\\!--');
}

/** The whole self-contained page: no network, the interaction script inlined. */
export function renderReportPage(data: ReportData): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(`${data.witness.file} on ${data.program.file}`)} — Tarsier report</title>
<style>html,body{margin:0;height:100%}${REPORT_CSS}</style></head>
<body>${renderReportBody(data)}
<script>${scriptSafe(`(${attachReportInteractions.toString()})(document.querySelector('.tarsier-report'));`)}</script>
</body></html>
`;
}
