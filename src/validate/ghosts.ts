// Ghost variables and updates (format 2.1 `ghost_instrumentation`) written
// into the C text, so that a correctness witness's invariants over ghosts
// can be checked on the instrumented program: each ghost is a global with
// its initial value (declared before the first function definition, on that
// line, so that line numbers stay); the updates of a location run just
// before the statement there, every value read before any ghost is
// assigned, and placed at the end of the line before it where that line
// allows, so that the statement keeps its column. The format leaves open
// when an update happens relative to its statement (witness-formats.md §10,
// question 10): here it happens before the statement, so an invariant at the
// same location sees the updated ghosts. Ghosts of another scope than
// `global` are not supported.

import type { CProgram } from '../c/index.js';
import { toOneBasedColumn, type Entry, type GhostInstrumentationEntry } from '../witness/model.js';
import { beforeStatement, ProgramEdits } from './instrument.js';
import { isLabel, leftmostColumn, offsetOf, programPoints, statementAt } from './program-points.js';

export type GhostInstrumentation = { readonly text: string; readonly ghosts: number; readonly updates: number } | { readonly unsupported: string };

/** The program with the witness's ghosts, or undefined when the witness has none. */
export function withGhosts(c: CProgram, text: string, entries: readonly Entry[]): GhostInstrumentation | undefined {
  const ghostEntries = entries.filter((e): e is GhostInstrumentationEntry => !('unknown' in e) && e.entry_type === 'ghost_instrumentation');
  if (ghostEntries.length === 0) return undefined;
  const points = programPoints(c, text);
  const edits = new ProgramEdits(text, points.firstDefinition);
  const types = new Map<string, string>();
  let updates = 0;
  for (const e of ghostEntries) {
    for (const g of e.content.ghost_variables) {
      if (g.scope !== 'global') return { unsupported: `ghost variable '${g.name}' has scope '${g.scope}'; only global ghosts are supported` };
      types.set(g.name, g.type);
      edits.declare(`${g.type} ${g.name} = ${g.initial.text};`);
    }
  }
  for (const e of ghostEntries) {
    for (const group of e.content.ghost_updates) {
      const line = group.location.line;
      const column = toOneBasedColumn(group.location) ?? leftmostColumn(points, line, 'assumption');
      const offset = offsetOf(points, line, column);
      const st = offset === undefined ? undefined : statementAt(points, offset);
      if (!st || isLabel(st)) return { unsupported: `the ghost update at line ${line}, column ${column} is not at a statement` };
      const unknown = group.updates.find((u) => !types.has(u.variable));
      if (unknown) return { unsupported: `ghost update of undeclared '${unknown.variable}' at line ${line}` };
      // All values first, then the assignments: the updates of one place happen together.
      const temps = group.updates.map((u, i) => `${types.get(u.variable)} __tarsier_ghost${i} = (${u.value.text});`);
      const sets = group.updates.map((u, i) => `${u.variable} = __tarsier_ghost${i};`);
      const code = `{ ${temps.join(' ')} ${sets.join(' ')} }`;
      const at = previousLineEnd(text, st.start);
      if (at === undefined) beforeStatement(edits, st, code);
      else if (st.stmt.kind === 'DeclStmt') edits.before(at, ` ${code}`);
      else edits.wrap(at, st.end, ` { ${code}`, ' }');
      updates += group.updates.length;
    }
  }
  return { text: edits.render(), ghosts: types.size, updates };
}

/**
 * The end of the line before a statement, when only blanks lie between and
 * that line plainly ends a C construct (no comment, no directive): code put
 * there runs just before the statement and leaves its line and column alone.
 */
function previousLineEnd(text: string, start: number): number | undefined {
  const lineStart = text.lastIndexOf('\n', start - 1);
  if (lineStart < 0 || !/^[ \t]*$/.test(text.slice(lineStart + 1, start))) return undefined;
  const before = text.slice(text.lastIndexOf('\n', lineStart - 1) + 1, lineStart).replace(/\r$/, '');
  if (/\/\/|\/\*|\*\/|^\s*#|\\$/.test(before) || !/[;{})]\s*$/.test(before)) return undefined;
  return lineStart;
}
