import { test } from 'node:test';
import assert from 'node:assert/strict';
import { columnMapping } from '../../src/c/macro-columns.js';

test('columns of a macro-expanded line map back to the original line', () => {
  const original = '  if (x > LIMIT) { if (x == LIMIT + 5) reach_error(); }';
  const expanded = '  if (x > 100) { if (x == 100 + 5) reach_error(); }';
  const map = columnMapping(expanded, original)!;
  const col = (text: string, what: string, nth = 0) => {
    let at = -1;
    for (let k = 0; k <= nth; k++) at = text.indexOf(what, at + 1);
    return at + 1;
  };
  // Tokens outside the expansions keep their original columns.
  assert.equal(map(col(expanded, 'reach_error')), col(original, 'reach_error'));
  assert.equal(map(col(expanded, 'if', 1)), col(original, 'if', 1));
  assert.equal(map(col(expanded, '5')), col(original, '5'));
  // A token that came out of a macro maps to the macro's name.
  assert.equal(map(col(expanded, '100')), col(original, 'LIMIT'));
  assert.equal(map(col(expanded, '100', 1)), col(original, 'LIMIT', 1));
  // Inside a kept token, the place in it is kept.
  assert.equal(map(col(expanded, 'reach_error') + 3), col(original, 'reach_error') + 3);
  // The same text needs no mapping.
  assert.equal(columnMapping(original, original), undefined);
  // A comment cpp replaced by a space moves what follows.
  const m2 = columnMapping('int a; int b;', 'int a; /* note */ int b;')!;
  assert.equal(m2(8), 19);
});
