import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/shared.js';
import { parseImp } from '../../src/ivl/parser.js';
import { bvValue, executeImp, intValue, valueKey, type ImpValue } from '../../src/ivl/interp.js';

const fixture = (f: string) => parseImp(readFileSync(join(repoRoot, 'test', 'fixtures', 'imp', f), 'utf8'), f);

test('the interpreter agrees with the verifier on the arithmetic fixtures', () => {
  const ints = fixture('int_arith.imp');
  const c = executeImp(ints, 'constants', {});
  // Every assertion before line 20 holds concretely; line 20 is C's answer, which is wrong here.
  assert.equal(c.status, 'assertion-failed');
  assert.equal(c.loc?.line, 20);
  for (const [a, b] of [[-7n, 2n], [7n, -2n], [-7n, -2n], [7n, 2n], [0n, -3n]]) {
    const r = executeImp(ints, 'div_mod', { a: intValue(a), b: intValue(b) });
    assert.equal(r.status, 'returned', `${a} div ${b}`);
  }
  const bvs = fixture('bv_arith.imp');
  assert.equal(executeImp(bvs, 'c_division', {}).status, 'returned');
  assert.equal(executeImp(bvs, 'signed_unsigned', {}).status, 'returned');
  const w = executeImp(bvs, 'wrap', { x: bvValue(255, 8) });
  assert.equal(w.status, 'assertion-failed');
  assert.equal(w.loc?.line, 7);
  assert.equal(valueKey(w.state.get('y')!), '0bv8');
  assert.equal(executeImp(bvs, 'wrap', { x: bvValue(3, 8) }).status, 'returned');
  const ov = executeImp(bvs, 'signed_overflow', { x: bvValue(0x7fffffff, 32), y: bvValue(1, 32) });
  assert.equal(ov.status, 'assertion-failed');
});

test('loop heads are reported at every visit', () => {
  const p = parseImp(
    'procedure f(n: int) returns (s: int) { var i: int; i := 0; s := 0; while (i < n) { i := i + 1; s := s + i; } }',
    'f.imp',
  );
  const seen: string[] = [];
  const r = executeImp(p, 'f', { n: intValue(3) }, { onLoopHead: (loc, st) => seen.push(`${loc.column}:${valueKey(st.get('i')!)}:${valueKey(st.get('s')!)}`) });
  assert.equal(r.status, 'returned');
  assert.deepEqual(seen, ['68:0:0', '68:1:1', '68:2:3', '68:3:6']);
  assert.equal(valueKey(r.returns![0]), '6');
});

test('contracts, calls, invariants, havoc, assume and step limits', () => {
  const p = parseImp(
    `var g: int;
procedure inc(x: int) returns (r: int) requires x >= 0; ensures r == x + 1; ensures g == old(g) + 1; { r := x + 1; g := g + 1; }
procedure main(a: int) returns (b: int) { (b) := call inc(a); assert g == 1; }
procedure loop(n: int) { var i: int; i := 0; while (i < n) invariant i <= 2; { i := i + 1; } }
procedure forever() { while (true) { skip; } }
procedure chooser() returns (y: int) { y := havoc; assume y > 3; }`,
    'p.imp',
  );
  const ok = executeImp(p, 'main', { a: intValue(4), g: intValue(0) });
  assert.equal(ok.status, 'returned');
  assert.equal(valueKey(ok.state.get('b')!), '5');
  const pre = executeImp(p, 'main', { a: intValue(-1), g: intValue(0) });
  assert.deepEqual([pre.status, pre.loc?.line], ['assertion-failed', 3]);
  const inv = executeImp(p, 'loop', { n: intValue(5) });
  assert.deepEqual([inv.status, inv.loc?.line, inv.loc?.column], ['assertion-failed', 4, 70]);
  assert.equal(executeImp(p, 'loop', { n: intValue(5) }, { checkInvariants: false }).status, 'returned');
  assert.equal(executeImp(p, 'forever', {}, { maxSteps: 1000 }).status, 'out-of-steps');
  const havoc = (_n: string): ImpValue => intValue(7);
  assert.equal(executeImp(p, 'chooser', {}, { havoc }).status, 'returned');
  assert.equal(executeImp(p, 'chooser', {}).status, 'assume-failed');
});
