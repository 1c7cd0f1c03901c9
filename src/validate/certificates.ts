// 0.1 `loop_invariant_certificate`s for the decided invariants of a
// correctness witness: `confirmed` or `rejected` (refuted); an unconfirmed
// invariant gets none (as Goblint does). A 0.1 entry is its own target. A
// 2.0/2.1 invariant has no UUID of its own: its target UUID is the
// name-based UUID of `<invariant_set uuid>/<position in content>` (so a
// reader holding the witness can recompute it), type `loop_invariant`.

import { derivedUuid, writeCertificates } from '../invariants/candidates.js';
import { makeMetadata, sha256OfFile } from '../witness/index.js';
import type { CertificateEntry01 } from '../witness/model.js';
import type { InvariantResult } from './correctness.js';

export const PRODUCER_VERSION = '0.1.0';

/** The target a 0.1 certificate of this invariant points at. */
export function certificateTarget(inv: InvariantResult, programHash: string): CertificateEntry01['target'] {
  const o = inv.origin;
  if (o.entryType === 'invariant_set') return { uuid: derivedUuid(`${o.uuid}/${o.position}`), type: 'loop_invariant', file_hash: programHash };
  return { uuid: o.uuid, type: o.entryType, file_hash: o.fileHash ?? programHash };
}

export function certificatesFor(invariants: readonly InvariantResult[], programPath: string, creationTime?: string): { entries: CertificateEntry01[]; text: string } {
  const hash = sha256OfFile(programPath);
  const entries: CertificateEntry01[] = [];
  for (const inv of invariants) {
    if (inv.status === 'unconfirmed') continue;
    const verdict = inv.status === 'confirmed' ? 'confirmed' : 'rejected';
    const target = certificateTarget(inv, hash);
    entries.push({
      entry_type: 'loop_invariant_certificate',
      metadata: makeMetadata({
        formatVersion: '0.1',
        producer: { name: 'Tarsier', version: PRODUCER_VERSION, configuration: 'validate' },
        uuid: derivedUuid(`${target.uuid}/validate/${verdict}`),
        ...(creationTime ? { creationTime } : {}),
      }),
      target,
      certification: { string: verdict, type: 'verdict', format: 'confirmed | rejected' },
    });
  }
  return { entries, text: entries.length ? writeCertificates(entries) : '' };
}
