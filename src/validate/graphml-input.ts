// GraphML 1.0 witnesses for validation, read into the 2.x model: a
// violation witness becomes a violation sequence (the reading of `tarsier
// convert`), a correctness witness an invariant set (its node invariants
// placed before the steps that leave the nodes, witness/graphml-invariants.ts). What Tarsier cannot place in the program (a violation the last
// step does not lead to, a non-termination witness, which has no violation
// node) is no defect of the witness: validation ends UNKNOWN with the reason.

import { convertTo20, graphmlInvariants, type Entry, type WitnessDocument } from '../witness/index.js';
import { scanProgram } from '../witness/program-tokens.js';

export interface GraphmlReading {
  readonly entries: readonly Entry[];
  readonly notes: readonly string[];
  /** Why the witness cannot be checked (UNKNOWN), when it cannot. */
  readonly unsupported?: string;
}

export function readGraphmlForValidation(doc: Extract<WitnessDocument, { format: 'graphml' }>, kind: 'violation' | 'correctness', programText: string): GraphmlReading {
  if (kind === 'correctness') {
    const g = graphmlInvariants(doc, scanProgram(programText), programText);
    return { entries: [g.entry], notes: g.notes.map((n) => n.message) };
  }
  const c = convertTo20(doc, { programText });
  const notes = c.notes.map((n) => n.message);
  if (c.document.entries.length > 0) return { entries: c.document.entries, notes };
  const cycle = doc.graphml.nodes.some((n) => n.data.cyclehead === 'true');
  // The last note is what stopped the reading (the others are printed as notes).
  const why = cycle ? 'a non-termination witness (cyclehead) has no violation node to follow' : notes.at(-1) ?? 'nothing to follow';
  return { entries: [], notes, unsupported: `the GraphML witness's path to the violation cannot be placed in the program: ${why}` };
}
