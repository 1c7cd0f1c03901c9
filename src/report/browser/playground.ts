/**
 * The playground page: a program and a witness (pasted, opened, or an
 * example), the report view of the one on the other (lint included, redrawn
 * as you edit), and `verify`, `select` and `validate` in the browser (Web
 * Worker, Z3 in WebAssembly).
 * With `tarsier serve` behind it, "Verify with replay" and "Validate with
 * replay" run on the server, where gcc can replay a counterexample; a
 * violation witness, which only a run of the program confirms, is always
 * validated there. As static files, the server parts are switched off.
 */
import { makeExpressionChecker, needsPreprocessing, parseCProgram, type CProgram } from '../../c/index.js';
import { TarsierError } from '../../common/errors.js';
import { attachReportInteractions } from '../interact.js';
import { buildReport } from '../model.js';
import { REPORT_CSS, renderReportBody } from '../render.js';
import type { ValidationView } from '../validation.js';
import type { PlaygroundProperty } from '../properties.js';
import type { WorkerReply, WorkerRequest } from './verify-worker.js';


const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const programArea = $<HTMLTextAreaElement>('program');
const witnessArea = $<HTMLTextAreaElement>('witness');
const programName = $<HTMLInputElement>('program-name');
const witnessName = $<HTMLInputElement>('witness-name');
const out = $<HTMLDivElement>('out');
const reportArea = $<HTMLDivElement>('report');
const status = $<HTMLSpanElement>('status');

/** The last selection's or validation's verdicts, shown on the report until the program or witness changes. */
let statuses: Array<{ witnessLine: number; status: string }> = [];
/** The last validation's outcome, shown above the report until the program or witness changes. */
let validation: ValidationView | undefined;
/** What the witness is, as the last drawn report read it. */
let witnessState: { kind: string; fatal?: string } = { kind: 'empty' };
/** What the server offers (nothing for static files). */
let server = { ok: false, gcc: false };

const style = document.createElement('style');
style.textContent = REPORT_CSS;
document.head.append(style);

function say(text: string, cls = ''): void {
  const line = document.createElement('div');
  line.textContent = text;
  if (cls) line.className = cls;
  out.append(line);
  out.scrollTop = out.scrollHeight;
}

/** Parses the program for scope checks when no preprocessor is needed (there is no cpp in the browser). */
function parseForScopes(text: string, file: string): { program?: CProgram; error?: string } {
  if (needsPreprocessing(text)) return { error: 'the program has preprocessor directives, and there is no preprocessor in the browser' };
  try {
    return { program: parseCProgram(text, file, { dataModel: $<HTMLSelectElement>('data-model').value as 'ILP32' | 'LP64' }) };
  } catch (e) {
    if (e instanceof TarsierError) return { error: e.format() };
    throw e;
  }
}

/** Draws the report of the witness on the program; returns the number of lint errors. */
function showReport(): number {
  const file = programName.value || 'program.c';
  const { program, error } = parseForScopes(programArea.value, file);
  const data = buildReport({
    programText: programArea.value,
    programFile: file,
    witnessText: witnessArea.value,
    witnessFile: witnessName.value || 'witness.yml',
    witnessMayBeMissing: true,
    ...(program ? { program, lint: { checkExpression: makeExpressionChecker(program) } } : {}),
    ...(error ? { programError: error } : {}),
    statuses,
    ...(validation ? { validation } : {}),
  });
  witnessState = { kind: data.witness.kind, ...(data.fatal ? { fatal: data.fatal } : {}) };
  reportArea.innerHTML = renderReportBody(data);
  attachReportInteractions(reportArea.querySelector('.tarsier-report'));
  return data.diagnostics.filter((d) => d.severity === 'error').length;
}

function safely(f: () => void): void {
  try {
    f();
  } catch (e) {
    say(`internal error: ${e instanceof Error ? e.message : String(e)}`, 'error');
  }
}

/** A new program or witness: the results of the old ones no longer apply. */
function clearResults(): void {
  statuses = [];
  validation = undefined;
}

let redraw: ReturnType<typeof setTimeout> | undefined;
for (const el of [programArea, witnessArea, programName, witnessName]) {
  el.addEventListener('input', () => {
    clearResults();
    clearTimeout(redraw);
    redraw = setTimeout(() => safely(showReport), 400);
  });
}

$('lint').addEventListener('click', () =>
  safely(() => {
    const errors = showReport();
    say(`lint: ${errors} error${errors === 1 ? '' : 's'} (details under the program lines and in the witness text below)`);
  }),
);

async function openInto(input: HTMLInputElement, area: HTMLTextAreaElement, name: HTMLInputElement): Promise<void> {
  const f = input.files?.[0];
  if (!f) return;
  area.value = await f.text();
  name.value = f.name;
  clearResults();
  safely(showReport);
}
$<HTMLInputElement>('program-file').addEventListener('change', (e) => void openInto(e.target as HTMLInputElement, programArea, programName));
$<HTMLInputElement>('witness-file').addEventListener('change', (e) => void openInto(e.target as HTMLInputElement, witnessArea, witnessName));

// ---- examples

const exampleSelect = $<HTMLSelectElement>('example');
let examples: Array<{ name: string; text: string }> = [];
fetch('examples.json')
  .then((r) => (r.ok ? r.json() : []))
  .then((list: typeof examples) => {
    examples = list;
    for (const e of list) exampleSelect.append(new Option(e.name, e.name));
  })
  .catch(() => say('no examples (examples.json not found)', 'note'));
exampleSelect.addEventListener('change', () => {
  const e = examples.find((x) => x.name === exampleSelect.value);
  if (!e) return;
  programArea.value = e.text;
  programName.value = e.name;
  clearResults();
  safely(showReport);
});

// ---- verify, select and validate in the browser

let worker: Worker | undefined;
let nextId = 1;
const isolated = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true;

/** Prints a validation's findings and pins them on the report. */
function showValidation(v: ValidationView): void {
  for (const e of v.errors) say(e, 'error');
  for (const n of v.notes) say(n, 'note');
  for (const e of v.entries) say(`witness line ${e.witnessLine}: ${e.text}: ${e.status}`);
  if (v.counterexample) say(`${v.kind === 'violation' ? 'the violating run' : 'counterexample'}: ${v.counterexample.join(', ') || '(no nondet values)'}`);
  say(v.reason);
  say(`Validation result: witness ${v.outcome} (${v.verdict}) [${v.where === 'browser' ? 'in the browser' : 'on the server, with gcc replay'}]`, 'verdict');
  statuses = v.entries.map((e) => ({ witnessLine: e.witnessLine, status: e.status }));
  validation = v;
  safely(showReport);
}

/** Why a validation that needs gcc cannot run here. */
function needsGcc(what: string): string {
  const where = server.ok ? 'this server has no gcc' : 'not available in the static page; open the playground through `tarsier serve` on a machine with gcc';
  return `validate: ${what} only by running the program (gcc replay), which the browser cannot do: ${where}`;
}

/** Validate: in the browser where it can be; a violation witness on the server (gcc), or a note why not. */
function validateWitness(onServer: boolean): void {
  safely(showReport);
  if (witnessState.fatal) return say(`validate: ${witnessState.fatal}`, 'error');
  if (witnessState.kind !== 'violation' && witnessState.kind !== 'correctness') {
    return say(`validate: the witness is ${witnessState.kind === 'mixed' ? 'a mix of violation sequences and invariants' : 'empty'}: nothing to validate`, 'error');
  }
  if (onServer || witnessState.kind === 'violation') {
    if (!server.gcc) return say(needsGcc(onServer ? 'replay confirms a counterexample' : 'a violation witness is confirmed'), 'error');
    return void validateOnServer();
  }
  runInWorker('validate');
}

function runInWorker(kind: 'verify' | 'select' | 'validate'): void {
  if (!isolated) {
    say(`${kind}: Z3 in WebAssembly needs a cross-origin isolated page (COOP/COEP headers); open the playground through \`tarsier serve\``, 'error');
    return;
  }
  worker ??= new Worker('verify-worker.js');
  const common = {
    id: nextId++,
    programName: programName.value || 'program.c',
    programText: programArea.value,
    property: $<HTMLSelectElement>('property').value as PlaygroundProperty,
    dataModel: $<HTMLSelectElement>('data-model').value as 'ILP32' | 'LP64',
  };
  const withWitness = { ...common, witnessName: witnessName.value || 'witness.yml', witnessText: witnessArea.value };
  const req: WorkerRequest =
    kind === 'verify' ? { ...common, kind, timeoutS: 120 } : kind === 'select' ? { ...withWitness, kind, timeoutS: 10 } : { ...withWitness, kind, timeoutS: 120 };
  const button = $<HTMLButtonElement>(kind);
  button.disabled = true;
  say(`${kind} (in the browser) ${req.programName} ...`, 'note');
  const w = worker;
  const onMessage = (ev: MessageEvent<WorkerReply>) => {
    const m = ev.data;
    if (m.id !== req.id) return;
    if ('log' in m) return say(m.log, 'note');
    w.removeEventListener('message', onMessage);
    button.disabled = false;
    if ('error' in m) return say(m.error, 'error');
    if ('validation' in m) return showValidation(m.validation);
    for (const c of m.result.selection ?? []) say(`line ${c.line}, column ${c.column}: ${c.text}: ${c.status}${c.reason ? ` (${c.reason})` : ''}`);
    say(m.result.reason);
    say(`${kind === 'select' ? 'Selection' : 'Verification'} result: ${m.result.verdict}`, 'verdict');
    if (m.result.selection) {
      statuses = m.result.selection.map((c) => ({ witnessLine: c.witnessLine, status: c.reason ? `${c.status}: ${c.reason}` : c.status }));
      safely(showReport);
    }
  };
  w.addEventListener('message', onMessage);
  w.addEventListener('error', (e) => {
    button.disabled = false;
    say(`${kind}: the worker failed: ${e.message}`, 'error');
  }, { once: true });
  w.postMessage(req);
}
$('verify').addEventListener('click', () => runInWorker('verify'));
$('select').addEventListener('click', () => runInWorker('select'));
$('validate').addEventListener('click', () => validateWitness(false));

// ---- server parts (tarsier serve), off for static files

async function verifyOnServer(): Promise<void> {
  const button = $<HTMLButtonElement>('verify-server');
  button.disabled = true;
  say(`verify (on the server, with gcc replay) ${programName.value} ...`, 'note');
  try {
    const r = await fetch('api/verify', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ programName: programName.value, programText: programArea.value, property: $<HTMLSelectElement>('property').value, dataModel: $<HTMLSelectElement>('data-model').value }),
    });
    const body = (await r.json()) as { verdict?: string; reason?: string; error?: string; witness?: string };
    if (body.error) return say(body.error, 'error');
    say(body.reason ?? '');
    say(`Verification result: ${body.verdict}`, 'verdict');
    if (body.witness) {
      witnessArea.value = body.witness;
      witnessName.value = 'witness.yml';
      clearResults();
      safely(showReport);
      say('the violation witness is shown below', 'note');
    }
  } catch (e) {
    say(`verify on the server failed: ${e instanceof Error ? e.message : String(e)}`, 'error');
  } finally {
    button.disabled = false;
  }
}
$('verify-server').addEventListener('click', () => void verifyOnServer());

async function validateOnServer(): Promise<void> {
  const button = $<HTMLButtonElement>('validate-server');
  button.disabled = true;
  say(`validate (on the server, with gcc replay) ${witnessName.value} on ${programName.value} ...`, 'note');
  try {
    const r = await fetch('api/validate', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        programName: programName.value,
        programText: programArea.value,
        witnessName: witnessName.value,
        witnessText: witnessArea.value,
        property: $<HTMLSelectElement>('property').value,
        dataModel: $<HTMLSelectElement>('data-model').value,
      }),
    });
    const body = (await r.json()) as ValidationView | { error: string };
    if ('error' in body) return say(body.error, 'error');
    showValidation(body);
  } catch (e) {
    say(`validate on the server failed: ${e instanceof Error ? e.message : String(e)}`, 'error');
  } finally {
    button.disabled = !server.gcc;
  }
}
$('validate-server').addEventListener('click', () => validateWitness(true));

// Bench tasks, when the server was given a task folder.
const taskSelect = $<HTMLSelectElement>('task');
async function loadTaskList(): Promise<void> {
  const r = await fetch('api/tasks');
  if (!r.ok) return;
  const { tasks } = (await r.json()) as { tasks: string[] };
  for (const t of tasks) taskSelect.append(new Option(t, t));
  $('task-label').hidden = false;
}
taskSelect.addEventListener('change', async () => {
  if (!taskSelect.value) return;
  const t = (await (await fetch(`api/task?path=${encodeURIComponent(taskSelect.value)}`)).json()) as { error?: string; programName?: string; programText?: string; property?: string; dataModel?: string; properties?: string[] };
  if (t.error || t.programText === undefined) return say(t.error ?? 'cannot load the task', 'error');
  programArea.value = t.programText;
  programName.value = t.programName ?? 'program.c';
  clearResults();
  if (t.property) $<HTMLSelectElement>('property').value = t.property;
  if (t.dataModel) $<HTMLSelectElement>('data-model').value = t.dataModel;
  say(`task ${taskSelect.value}: ${programName.value}, properties ${t.properties?.join(', ') || '(none)'}`, 'note');
  safely(showReport);
});

fetch('api/health')
  .then((r) => (r.ok ? r.json() : undefined))
  .then((h: { ok?: boolean; gcc?: boolean; tasks?: boolean } | undefined) => {
    server = { ok: h?.ok === true, gcc: h?.ok === true && h.gcc === true };
    if (h?.tasks) void loadTaskList();
    $<HTMLButtonElement>('verify-server').disabled = !server.gcc;
    $<HTMLButtonElement>('validate-server').disabled = !server.gcc;
    status.textContent = [
      isolated ? 'Z3 (WebAssembly) available' : 'not cross-origin isolated: verify in the browser is off',
      server.ok
        ? server.gcc
          ? 'server with gcc: replay available'
          : 'server without gcc: replay and violation-witness validation not available'
        : 'static page: server parts (replay, violation-witness validation) off',
    ].join(' · ');
  })
  .catch(() => (status.textContent = 'static page: server parts (replay, violation-witness validation) off'));

safely(showReport);
