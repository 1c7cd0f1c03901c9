// The invariants of a GraphML 1.0 correctness witness as 2.0 located
// invariants. A node's invariant must hold whenever the witness automaton is
// in that node, so in particular just before each step that leaves it; with
// the program such a step is placed: a `control` step at a `while` or `for`
// is the evaluation of that loop's condition (a loop invariant), at an `if`
// the `if` statement; any other step is the one statement starting on its
// line (or at its startoffset). Every visit of the place is claimed, which
// is more than the automaton says (it may be in another node there): the
// validator therefore reads a violated claim as unconfirmed, never as a
// refutation of the witness (GRAPHML_CLAIM_NOTE).

import { branchKeywordOnLine, positionOf, statementsOnLine } from './program-steps.js';
import { isLoopKeyword, type ProgramView } from './program-tokens.js';
import { graphValue, invisibleNames, nodeValue } from './graphml.js';
import { graphmlMetadata, nameUuid, type ConvertNote } from './convert.js';
import type { InvariantSetEntry, LocatedInvariant, WitnessDocument } from './model.js';

/** Why a violated GraphML claim refutes nothing. */
export const GRAPHML_CLAIM_NOTE = 'a GraphML invariant belongs to automaton states, not to every visit of its place';

/** A node invariant that says nothing. */
const TRIVIAL = /^\s*(\(\s*)*(1|true|TRUE)(\s*\))*\s*$/;

export function graphmlInvariants(
  doc: Extract<WitnessDocument, { format: 'graphml' }>,
  program: ProgramView,
  programText: string,
): { entry: InvariantSetEntry; notes: ConvertNote[] } {
  const w = doc.graphml;
  const notes: ConvertNote[] = [];
  const { metadata, hash } = graphmlMetadata(doc, { programText }, notes);
  const content: LocatedInvariant[] = [];
  const seen = new Set<string>();
  const out = new Map<string, typeof w.edges>();
  for (const e of w.edges) out.set(e.source, [...(out.get(e.source) ?? []), e]);
  for (const n of w.nodes) {
    const value = nodeValue(w, n, 'invariant');
    if (value === undefined || TRIVIAL.test(value)) continue;
    if (value.includes('\\')) {
      notes.push({ at: n.at, message: `invariant '${value}' of node ${n.id} is not a C expression; not checked` });
      continue;
    }
    const scope = nodeValue(w, n, 'invariant.scope');
    const leaving = out.get(n.id) ?? [];
    if (leaving.length === 0) notes.push({ at: n.at, message: `node ${n.id} has no leaving step to place its invariant '${value}' at; not checked` });
    for (const e of leaving) {
      const line = Number(e.data.startline);
      if (!Number.isInteger(line) || line < 1) {
        notes.push({ at: e.at, message: `a step leaving node ${n.id} has no startline; its invariant is not placed there` });
        continue;
      }
      const placed = placeStep(program, line, e.data.control !== undefined, Number(e.data.startoffset));
      if (typeof placed === 'string') {
        notes.push({ at: e.at, message: `invariant '${value}' of node ${n.id} before the step on line ${line}: ${placed}; not checked there` });
        continue;
      }
      const p = positionOf(program, placed.token);
      const fn = p.function ?? scope;
      // Ultimate writes a caller's names into a callee's nodes: such an invariant says nothing C can check there.
      const hidden = invisibleNames(program, value, p.line, p.column);
      if (hidden.length > 0) {
        notes.push({ at: n.at, message: `invariant '${value}' of node ${n.id} names ${hidden.join(', ')}, not visible at line ${p.line}; not checked there` });
        continue;
      }
      const key = `${placed.kind}:${p.line}:${p.column}:${value}`;
      if (seen.has(key)) continue;
      seen.add(key);
      content.push({ kind: placed.kind, location: { file_name: metadata.task!.input_files[0]!, line: p.line, column: p.column, columnBase: 1, ...(fn ? { function: fn } : {}) }, value: { text: value, format: 'c_expression' }, ...(n.at ? { at: n.at } : {}) });
    }
  }
  metadata.uuid = nameUuid(`${hash}:${graphValue(w, 'producer') ?? ''}:${content.map((c) => `${c.location.line}:${c.value.text}`).join(';')}`);
  return { entry: { entry_type: 'invariant_set', metadata, content }, notes };
}

/** Where the state before a step on a line is: a loop head, or the start of a statement. */
function placeStep(program: ProgramView, line: number, control: boolean, offset: number): { kind: 'loop_invariant' | 'location_invariant'; token: number } | string {
  if (control) {
    const b = branchKeywordOnLine(program, line);
    if (typeof b === 'string') return b;
    return { kind: isLoopKeyword(program, b) ? 'loop_invariant' : 'location_invariant', token: b };
  }
  const starts = statementsOnLine(program, line);
  const atOffset = Number.isInteger(offset) ? starts.filter((k) => program.tokens[k].offset === offset) : [];
  if (atOffset.length === 1) return { kind: loopHead(program, atOffset[0]!) ? 'loop_invariant' : 'location_invariant', token: atOffset[0]! };
  if (starts.length === 1) return { kind: loopHead(program, starts[0]!) ? 'loop_invariant' : 'location_invariant', token: starts[0]! };
  return starts.length === 0 ? `no statement starts on line ${line}` : `${starts.length} statements start on line ${line}`;
}

/** A step that is no branch and starts at a `while` or `do` enters its loop head; at a `for` it is the initialisation, before the loop head. */
function loopHead(program: ProgramView, k: number): boolean {
  return isLoopKeyword(program, k) && program.tokens[k]!.text !== 'for';
}
