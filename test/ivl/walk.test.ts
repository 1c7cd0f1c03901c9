import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseImp, parseImpExpr } from '../../src/ivl/parser.js';
import { printExpr, printStmts } from '../../src/ivl/printer.js';
import type { Expr, Stmt } from '../../src/ivl/ast.js';
import {
  assignedVars,
  exprChildren,
  freeVars,
  loopsOf,
  mapExprChildren,
  mapStmt,
  renameExpr,
  renameStmt,
  rewriteExpr,
  rewriteStmts,
  someStmt,
  stmtBodies,
  stmtExprs,
  stmtTargets,
  visitExpr,
  visitStmtExprs,
  visitStmts,
} from '../../src/ivl/walk.js';

const e = (text: string): Expr => parseImpExpr(text, 'e.imp');

const PROGRAM = `
var g: int;
var m: [int]int;
procedure f(a: int) returns (r: int, q: int) { r := a; q := g; g := g + 1; }
procedure main() {
  var x: int; var y: int; var z: int; var b: bool;
  x := 1;
  y := havoc;
  if (x < y) { z := x + y; } else { assert z == 0; }
  while (x < 10)
    invariant x >= 0;
    candidate y >= old(g);
  {
    x := x + 1;
    { m := m[x := y]; }
    while (b) { b := false; }
  }
  (y, z) := call f(x);
  assume m[z] == 0;
  skip;
}`;

const print = (ss: readonly Stmt[]): string => {
  const out: string[] = [];
  printStmts(ss, '', out);
  return out.join('\n');
};

const body = (): readonly Stmt[] => parseImp(PROGRAM, 'w.imp').procedures.find((q) => q.name === 'main')!.body!;

test('the children of every kind of expression, in source order', () => {
  const kids = (t: string) => exprChildren(e(t)).map(printExpr);
  assert.deepEqual(kids('-x'), ['x']);
  assert.deepEqual(kids('x + y'), ['x', 'y']);
  assert.deepEqual(kids('sdiv(a, b)'), ['a', 'b']);
  assert.deepEqual(kids('(if c then a else b)'), ['c', 'a', 'b']);
  assert.deepEqual(kids('m[i]'), ['m', 'i']);
  assert.deepEqual(kids('m[i := v]'), ['m', 'i', 'v']);
  for (const leaf of ['x', 'true', '3', '1.5', '7bv8']) assert.deepEqual(kids(leaf), [], leaf);
});

test('mapping keeps a node whose children did not change, and copies one whose children did', () => {
  const x = e('(a + b) * c');
  assert.equal(mapExprChildren(x, (c) => c), x);
  assert.equal(rewriteExpr(x, () => undefined), x);
  const y = mapExprChildren(x, (c) => (c.kind === 'var' ? { ...c, name: 'd' } : c));
  assert.notEqual(y, x);
  assert.equal(printExpr(y), '(a + b) * d');
  // The unchanged left operand is the same object.
  assert.equal((y as { left: Expr }).left, (x as { left: Expr }).left);
});

test('visitExpr goes outermost first and skips below a node when told', () => {
  const seen: string[] = [];
  visitExpr(e('(x + m[i]) == sdiv(y, 2)'), (n) => {
    seen.push(n.kind === 'var' ? n.name : n.kind);
    return n.kind !== 'select';
  });
  assert.deepEqual(seen, ['binary', 'binary', 'x', 'select', 'app', 'y', 'int_lit']);
});

test('free variables include those under old(...) and map indexes', () => {
  assert.deepEqual([...freeVars(e('x + old(g) == m[i := v][j]'))].sort(), ['g', 'i', 'j', 'm', 'v', 'x']);
  assert.deepEqual([...freeVars(e('3 < 4'))], []);
});

test('renaming: every occurrence, and old(...) renamed, kept or read in the pre-state', () => {
  const r = new Map([['x', 'x1'], ['g', 'g1']]);
  assert.equal(printExpr(renameExpr(e('x + old(g) + y'), r)), 'x1 + old(g1) + y');
  assert.equal(printExpr(renameExpr(e('x + old(g) + y'), r, 'keep')), 'x1 + old(g) + y');
  assert.equal(printExpr(renameExpr(e('x + old(g) + y'), r, new Map([['g', 'g0']]))), 'x1 + g0 + y');
  assert.equal(printExpr(renameExpr(e('(if b then m[x] else m[x := x][g])'), r)), '(if b then m[x1] else m[x1 := x1][g1])');
  // Nothing to rename: the expression itself comes back.
  const same = e('a + b');
  assert.equal(renameExpr(same, r), same);
  assert.equal(renameExpr(same, new Map()), same);
  // A name mapped to itself is no change either.
  assert.equal(renameExpr(same, new Map([['a', 'a']])), same);
});

test('rewriteExpr replaces top-down and does not walk into a replacement', () => {
  const defs = new Map([['t', e('u + 1')], ['u', e('v * 2')]]);
  const once = rewriteExpr(e('t + u'), (x) => (x.kind === 'var' ? defs.get(x.name) : undefined));
  assert.equal(printExpr(once), 'u + 1 + v * 2');
});

test('the parts of every kind of statement', () => {
  const ss = body();
  const at = (kind: Stmt['kind']) => {
    const out: Stmt[] = [];
    visitStmts(ss, (s) => {
      if (s.kind === kind) out.push(s);
    });
    return out[0]!;
  };
  const exprs = (s: Stmt, ann?: boolean) => stmtExprs(s, ann).map(printExpr);
  assert.deepEqual(exprs(at('assign')), ['1']);
  assert.deepEqual(stmtTargets(at('assign')), ['x']);
  assert.deepEqual(exprs(at('havoc')), []);
  assert.deepEqual(stmtTargets(at('havoc')), ['y']);
  assert.deepEqual(exprs(at('if')), ['x < y']);
  assert.deepEqual(stmtBodies(at('if')).map((b) => b.length), [1, 1]);
  assert.deepEqual(exprs(at('assert')), ['z == 0']);
  assert.deepEqual(exprs(at('while')), ['x < 10', 'x >= 0', 'y >= old(g)']);
  assert.deepEqual(exprs(at('while'), false), ['x < 10']);
  assert.deepEqual(stmtBodies(at('while')).map((b) => b.length), [3]);
  assert.deepEqual(exprs(at('block')), []);
  assert.deepEqual(stmtBodies(at('block')).map((b) => b.length), [1]);
  assert.deepEqual(exprs(at('call')), ['x']);
  assert.deepEqual(stmtTargets(at('call')), ['y', 'z']);
  assert.deepEqual(exprs(at('assume')), ['m[z] == 0']);
  assert.deepEqual([exprs(at('skip')), stmtTargets(at('skip')), stmtBodies(at('skip'))], [[], [], []]);
});

test('mapStmt keeps an unchanged statement and tells annotations apart', () => {
  for (const s of body()) assert.equal(mapStmt(s, { expr: (x) => x, target: (t) => t, body: (b) => b }), s);
  const loop = loopsOf(body())[0]!;
  const marked = mapStmt(loop, { expr: (x, ann) => (ann ? { kind: 'bool_lit', value: true, loc: x.loc } : x) });
  assert.equal(print([marked]).split('\n').slice(0, 3).join(' ').replace(/\s+/g, ' '), 'while (x < 10) invariant true; candidate true;');
});

test('visitStmts: program order, skipping, and leaving after the inside', () => {
  const order: string[] = [];
  visitStmts(
    body(),
    (s) => {
      order.push(`>${s.kind}`);
      return s.kind !== 'if';
    },
    (s) => order.push(`<${s.kind}`),
  );
  assert.deepEqual(order.join(' '), [
    '>assign <assign >havoc <havoc >if <if',
    '>while >assign <assign >block >assign <assign <block >while >assign <assign <while <while',
    '>call <call >assume <assume >skip <skip',
  ].join(' '));
  assert.equal(someStmt(body(), (s) => s.kind === 'assert'), true);
  assert.equal(someStmt(body(), (s) => s.kind === 'havoc' && s.target === 'x'), false);
  assert.deepEqual(loopsOf(body()).map((l) => printExpr(l.cond)), ['x < 10', 'b']);
});

test('visitStmtExprs sees every expression, annotations when asked', () => {
  const vars = (ann: boolean) => {
    const out = new Set<string>();
    visitStmtExprs(body(), (x) => void (x.kind === 'var' && out.add(x.name)), ann);
    return [...out].sort();
  };
  assert.deepEqual(vars(true), ['b', 'g', 'm', 'x', 'y', 'z']);
  assert.deepEqual(vars(false), ['b', 'm', 'x', 'y', 'z']);
});

test('assigned variables: targets at any depth, and what calls write besides', () => {
  assert.deepEqual([...assignedVars(body())], ['x', 'y', 'z', 'm', 'b']);
  assert.deepEqual([...assignedVars(body(), (c) => (c.proc === 'f' ? ['g'] : []))], ['x', 'y', 'z', 'm', 'b', 'g']);
  const loop = loopsOf(body())[0]!;
  assert.deepEqual([...assignedVars(loop.body)], ['x', 'm', 'b']);
});

test('renameStmt renames targets and expressions at every depth; rewriteStmts replaces statements', () => {
  const r = new Map([['x', 'x1'], ['g', 'g1'], ['z', 'z1']]);
  const ss = body();
  const renamed = ss.map((s) => renameStmt(s, r));
  const text = print(renamed);
  assert.match(text, /x1 := x1 \+ 1;/);
  assert.match(text, /\(y, z1\) := call f\(x1\);/);
  assert.match(text, /candidate y >= old\(g1\);/);
  assert.doesNotMatch(text, /\bx\b|\bz\b/);
  // Untouched statements are shared.
  assert.equal(renamed.at(-1), ss.at(-1));
  const noLoops = rewriteStmts(body(), (s) => (s.kind === 'while' ? [] : s.kind === 'havoc' ? [s, s] : undefined));
  assert.equal(loopsOf(noLoops).length, 0);
  assert.equal(noLoops.filter((s) => s.kind === 'havoc').length, 2);
  assert.equal(noLoops.length, body().length);
});
