// `validate` on memory-safety violation witnesses altered to take another
// path, or to stand for another sub-property (or property): they must not
// be confirmed. (Every FALSE of the memory fixtures goes verify → witness →
// validate, and with its target moved, in test/lower/memory-fixtures.test.ts:
// one verification per fixture serves both.)

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { probeGcc, sanitizerViolation } from '../../src/replay/index.js';
import { validate } from '../../src/validate/index.js';
import { verify } from '../../src/verify/index.js';
import { convertTo20, readWitness, violationSequenceToGraphml, writeGraphml, writeWitness } from '../../src/witness/index.js';
import type { ViolationSequenceEntry } from '../../src/witness/model.js';
import { needTools } from '../helpers/tools.js';

const DIR = join(import.meta.dirname, '../../../test/fixtures/memory');
const PRP = {
  'valid-memsafety':
    'CHECK( init(main()), LTL(G valid-free) )\nCHECK( init(main()), LTL(G valid-deref) )\nCHECK( init(main()), LTL(G valid-memtrack) )\n',
  'valid-memcleanup': 'CHECK( init(main()), LTL(G valid-memcleanup) )\n',
} as const;
type Property = keyof typeof PRP;
const noGcc = probeGcc().gcc ? false : 'skipped: gcc is not available (confirmations need replay)';

test('memory witnesses for another sub-property, property or path are not confirmed', { skip: needTools('gcc', 'gcc -m32 -fsanitize=address') }, async () => {
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
