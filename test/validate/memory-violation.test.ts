// `validate` on memory-safety violation witnesses: every FALSE of the
// memory fixtures (test/fixtures/memory) goes verify → witness → validate
// and must be confirmed with the same sub-property; witnesses altered to
// point elsewhere, to take another path, or to stand for another
// sub-property (or property) must not be.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCFile } from '../../src/c/index.js';
import { probeGcc, sanitizerViolation } from '../../src/replay/index.js';
import { programPoints } from '../../src/validate/program-points.js';
import { validate } from '../../src/validate/index.js';
import { verify } from '../../src/verify/index.js';
import { convertTo20, readWitness, violationSequenceToGraphml, writeGraphml, writeWitness } from '../../src/witness/index.js';
import type { ViolationSequenceEntry } from '../../src/witness/model.js';

const DIR = join(import.meta.dirname, '../../../test/fixtures/memory');
const PRP = {
  'valid-memsafety':
    'CHECK( init(main()), LTL(G valid-free) )\nCHECK( init(main()), LTL(G valid-deref) )\nCHECK( init(main()), LTL(G valid-memtrack) )\n',
  'valid-memcleanup': 'CHECK( init(main()), LTL(G valid-memcleanup) )\n',
} as const;
type Property = keyof typeof PRP;
const noGcc = probeGcc().gcc ? false : 'skipped: gcc is not available (confirmations need replay)';

interface Violation {
  readonly file: string;
  readonly property: Property;
  readonly sub: string;
}

function violations(): Violation[] {
  const out: Violation[] = [];
  for (const f of readdirSync(DIR).filter((x) => x.endsWith('.c')).sort()) {
    for (const m of readFileSync(join(DIR, f), 'utf8').matchAll(/^\/\/ expect (valid-memsafety|valid-memcleanup): false\(([\w-]+)\)$/gm)) {
      out.push({ file: f, property: m[1] as Property, sub: m[2]! });
    }
  }
  return out;
}

/** The location of main's first statement that is not on `avoid`'s line. */
function otherStatement(file: string, avoidLine: number): { line: number; column: number } {
  const text = readFileSync(file, 'utf8');
  const pts = programPoints(parseCFile(file, { dataModel: 'ILP32' }), text);
  const st = pts.statements.find((s) => s.function === 'main' && s.loc.line !== avoidLine)!;
  return { line: st.loc.line, column: st.loc.column };
}

/** The witness with its target moved (2.x: the target waypoint; GraphML: the edge into the violation node). */
function moveTarget(witness: string, to: { line: number; column: number }): string {
  if (witness.startsWith('<?xml')) {
    const i = witness.lastIndexOf('<data key="startline">');
    return witness.slice(0, i) + witness.slice(i).replace(/<data key="startline">\d+<\/data>/, `<data key="startline">${to.line}</data>`);
  }
  const i = witness.lastIndexOf('type: "target"');
  return witness.slice(0, i) + witness.slice(i).replace(/line: \d+/, `line: ${to.line}`).replace(/column: \d+/, `column: ${to.column}`);
}

function targetLine(witness: string): number {
  const m = witness.startsWith('<?xml') ? [...witness.matchAll(/<data key="startline">(\d+)<\/data>/g)].at(-1) : /type: "target"[\s\S]*?line: (\d+)/.exec(witness);
  return Number(m![1]);
}

function waypointCount(witness: string): number {
  return (witness.match(/\\result ==/g) ?? []).length;
}

test('memory fixtures: verify → witness → validate confirms every FALSE with its sub-property; moved targets are not confirmed', { skip: noGcc }, async () => {
  const all = violations();
  assert.ok(all.length >= 15, `${all.length} violations`);
  const work = mkdtempSync(join(tmpdir(), 'tarsier-memval-'));
  try {
    let moved = 0;
    for (const x of all) {
      const file = join(DIR, x.file);
      const prp = join(work, `${x.property}.prp`);
      writeFileSync(prp, PRP[x.property]);
      const leak = x.sub === 'valid-memtrack' || x.sub === 'valid-memcleanup';
      const witness = join(work, leak ? 'w.graphml' : 'w.yml');
      const v = await verify(file, { prp, timeoutS: 20, witnessPath: witness });
      const what = `${x.file} (${x.property})`;
      assert.deepEqual(v.verdict, { kind: 'false', property: x.sub }, `${what}: ${v.reason}`);
      const r = await validate(file, witness, { prp, timeoutS: 20 });
      assert.equal(r.outcome, 'confirmed', `${what}: ${r.reason}`);
      assert.deepEqual(r.verdict, { kind: 'false', property: x.sub }, what);

      // The target moved to another statement the run passes: an access or
      // free happens elsewhere; a leak's target is passed only before the
      // waypoints (without waypoints a leak is judged at the end whatever
      // statement the target names, so those are left out).
      const text = readFileSync(witness, 'utf8');
      if (leak && waypointCount(text) === 0) continue;
      const other = moveTarget(text, otherStatement(file, targetLine(text)));
      assert.notEqual(other, text);
      const otherPath = join(work, leak ? 'moved.graphml' : 'moved.yml');
      writeFileSync(otherPath, other);
      const m = await validate(file, otherPath, { prp, timeoutS: 10 });
      assert.notEqual(m.outcome, 'confirmed', `${what}, target moved: ${m.reason}`);
      assert.equal(m.verdict.kind, 'unknown', `${what}, target moved: ${m.reason}`);
      moved++;
    }
    assert.ok(moved >= 12, `${moved} moved targets`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test('memory witnesses for another sub-property, property or path are not confirmed', { skip: noGcc }, async () => {
  const work = mkdtempSync(join(tmpdir(), 'tarsier-memval-'));
  const prp = (p: Property) => {
    const f = join(work, `${p}.prp`);
    writeFileSync(f, PRP[p]);
    return f;
  };
  try {
    // A leak as a 2.0 witness: the rules accept 2.x only for valid-deref and valid-free.
    const leak = join(DIR, 'list-leak.c');
    const g = join(work, 'leak.graphml');
    assert.equal((await verify(leak, { prp: prp('valid-memsafety'), timeoutS: 20, witnessPath: g })).verdict.kind, 'false');
    const converted = convertTo20(readWitness(readFileSync(g, 'utf8'), g), { programText: readFileSync(leak, 'utf8') });
    const y = join(work, 'leak.yml');
    writeFileSync(y, writeWitness({ format: 'yaml', entries: converted.document.entries }));
    const asYaml = await validate(leak, y, { prp: prp('valid-memsafety'), timeoutS: 10 });
    assert.equal(asYaml.outcome, 'unconfirmed', asYaml.reason);
    assert.match(asYaml.reason, /2\.x witness stands only for valid-deref or valid-free/);

    // A memcleanup witness of a program whose blocks stay tracked by a global:
    // under valid-memsafety there is no memtrack violation, so it is refuted.
    const tracks = join(DIR, 'global-tracks.c');
    const c = join(work, 'cleanup.graphml');
    assert.deepEqual((await verify(tracks, { prp: prp('valid-memcleanup'), timeoutS: 20, witnessPath: c })).verdict, { kind: 'false', property: 'valid-memcleanup' });
    assert.equal((await validate(tracks, c, { prp: prp('valid-memcleanup'), timeoutS: 10 })).outcome, 'confirmed');
    const asMemtrack = await validate(tracks, c, { prp: prp('valid-memsafety'), timeoutS: 10 });
    assert.equal(asMemtrack.outcome, 'refuted', asMemtrack.reason);
    assert.deepEqual(asMemtrack.verdict, { kind: 'true' });

    // A valid-deref witness under valid-memcleanup: GraphML only.
    const uaf = join(DIR, 'list-use-after-free.c');
    const d = join(work, 'deref.yml');
    assert.deepEqual((await verify(uaf, { prp: prp('valid-memsafety'), timeoutS: 20, witnessPath: d })).verdict, { kind: 'false', property: 'valid-deref' });
    const asCleanup = await validate(uaf, d, { prp: prp('valid-memcleanup'), timeoutS: 10 });
    assert.equal(asCleanup.outcome, 'unconfirmed', asCleanup.reason);

    // The same violation as a GraphML witness (allowed for every sub-property): confirmed as valid-deref.
    const doc = readWitness(readFileSync(d, 'utf8'), d);
    assert.equal(doc.format, 'yaml');
    const entry = (doc as { entries: unknown[] }).entries[0] as ViolationSequenceEntry;
    const dg = join(work, 'deref.graphml');
    writeFileSync(dg, writeGraphml(violationSequenceToGraphml(entry, 'list-use-after-free.c').graphml));
    const asGraphml = await validate(uaf, dg, { prp: prp('valid-memsafety'), timeoutS: 10 });
    assert.equal(asGraphml.outcome, 'confirmed', asGraphml.reason);
    assert.deepEqual(asGraphml.verdict, { kind: 'false', property: 'valid-deref' });

    // Another path: with the nondet value 1 the next pointer is allocated and
    // the read is valid; the runs that fail pass no waypoint.
    const nn = join(DIR, 'null-next.c');
    const n = join(work, 'null-next.yml');
    assert.deepEqual((await verify(nn, { prp: prp('valid-memsafety'), timeoutS: 20, witnessPath: n })).verdict, { kind: 'false', property: 'valid-deref' });
    const text = readFileSync(n, 'utf8');
    assert.match(text, /\\\\result == 0"/);
    const p = join(work, 'path.yml');
    writeFileSync(p, text.replace(/\\\\result == 0"/, '\\\\result == 1"'));
    const otherPath = await validate(nn, p, { prp: prp('valid-memsafety'), timeoutS: 10 });
    assert.equal(otherPath.outcome, 'unconfirmed', otherPath.reason);
    assert.match(otherPath.reason, /never passed the target|0 of the 1 waypoints were passed/);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test('the line of an AddressSanitizer report is the first frame in the program (library interceptors skipped)', () => {
  const report = [
    '==1==ERROR: AddressSanitizer: stack-buffer-overflow on address 0xfff51c14 at pc 0xf79262b5 bp 0xfff51bb8 sp 0xfff51790',
    'WRITE of size 5 at 0xfff51c14 thread T0',
    '    #0 0xf79262b4 in __interceptor_memset ../../../../../src/libsanitizer/sanitizer_common/sanitizer_common_interceptors.inc:799',
    '    #1 0x565ae297 in helper /tmp/x/prog.c:7',
    '    #2 0x565ae2a0 in main /tmp/x/prog.c:12',
    '',
    'Address 0xfff51c14 is located in stack of thread T0 at offset 36 in frame',
    '    #0 0x565ae1fc in main /tmp/x/prog.c:3',
  ].join('\n');
  assert.deepEqual(sanitizerViolation(report, '/elsewhere/prog.c'), { property: 'valid-deref', what: 'AddressSanitizer: stack-buffer-overflow', line: 7 });
  // A frame of another file only: no line.
  assert.equal(sanitizerViolation(report, 'other.c')?.line, undefined);
  const free = '==2==ERROR: AddressSanitizer: attempting free on address which was not malloc()-ed: 0x1\n    #0 0x1 in free x.inc:52\n    #1 0x2 in main /a/b/prog.c:6\n';
  assert.deepEqual(sanitizerViolation(free, 'prog.c'), { property: 'valid-free', what: 'AddressSanitizer: attempting free', line: 6 });
});
