import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LineIndex } from '../../src/common/location.js';
import { TarsierError } from '../../src/common/errors.js';

test('LineIndex maps offsets to 1-based lines and columns', () => {
  const idx = new LineIndex('ab\r\ncd\nef');
  assert.deepEqual(idx.position(0), { line: 1, column: 1, offset: 0 });
  assert.deepEqual(idx.position(4), { line: 2, column: 1, offset: 4 });
  assert.deepEqual(idx.position(8), { line: 3, column: 2, offset: 8 });
  assert.equal(idx.lineText(1), 'ab');
  assert.equal(idx.offsetOf(2, 2), 5);
  assert.equal(idx.offsetOf(2, 4), undefined);
  assert.equal(idx.offsetOf(4, 1), undefined);
});

test('TarsierError formats as file:line:column: error: message', () => {
  const e = new TarsierError('x', 'bad thing', { file: 'w.yml', line: 3, column: 7 });
  assert.equal(e.format(), 'w.yml:3:7: error: bad thing');
});
