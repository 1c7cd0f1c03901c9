/**
 * The Web Worker that runs the library's `verify`, `select` and `validate`
 * in the browser, with Z3 as WebAssembly in this worker. The program, its
 * property file and the witness go into the in-memory file system. gcc is
 * not available, so a counterexample cannot be replayed: verify reports it
 * as UNKNOWN, never as an unconfirmed FALSE (select never answers FALSE on
 * C), and validate leaves unconfirmed what only a replay would refute or
 * confirm (the page sends violation witnesses to the server).
 */
import { needsPreprocessing } from '../../c/index.js';
import { select } from '../../invariants/index.js';
import { verify } from '../../verify/verify.js';
import { validate } from '../../validate/validate.js';
import { validationView, type ValidationView } from '../validation.js';
import { TarsierError } from '../../common/errors.js';
import { putFile } from './shims/fs.js';
import { PLAYGROUND_PROPERTIES as PROPERTIES, type PlaygroundProperty } from '../properties.js';

interface Common {
  readonly id: number;
  readonly programName: string;
  readonly programText: string;
  readonly dataModel: 'ILP32' | 'LP64';
}

export type WorkerRequest =
  | (Common & { readonly kind: 'verify'; readonly property: PlaygroundProperty; readonly timeoutS: number })
  | (WithWitness & { readonly kind: 'select' })
  | (WithWitness & { readonly kind: 'validate' });

type WithWitness = Common & { readonly property: PlaygroundProperty; readonly witnessName: string; readonly witnessText: string; readonly timeoutS: number };

/** One candidate's selection verdict, with its position in the witness file. */
export interface SelectionLine {
  readonly witnessLine: number;
  readonly line: number;
  readonly column: number;
  readonly text: string;
  readonly status: 'selected' | 'rejected';
  readonly reason?: string;
}

export type WorkerReply =
  | { readonly id: number; readonly log: string }
  | { readonly id: number; readonly result: { verdict: string; reason: string; selection?: readonly SelectionLine[] } }
  | { readonly id: number; readonly validation: ValidationView }
  | { readonly id: number; readonly error: string };

const scope = globalThis as unknown as { onmessage: (ev: { data: WorkerRequest }) => void; postMessage: (m: WorkerReply) => void };

async function runVerify(req: Extract<WorkerRequest, { kind: 'verify' }>): Promise<WorkerReply> {
  const dir = `/playground/${req.id}`;
  const program = `${dir}/${req.programName.replace(/^.*\//, '') || 'program.c'}`;
  const prp = PROPERTIES[req.property];
  if (prp === undefined) return { id: req.id, error: `the playground does not check ${req.property}` };
  putFile(program, req.programText);
  putFile(`${dir}/property.prp`, prp);
  const r = await verify(program, {
    prp: `${dir}/property.prp`,
    dataModel: req.dataModel,
    timeoutS: req.timeoutS,
    witnessPath: null,
    log: (line) => scope.postMessage({ id: req.id, log: line }),
  });
  const verdict = r.verdict.kind === 'false' ? `FALSE(${r.verdict.property})` : r.verdict.kind.toUpperCase();
  return { id: req.id, result: { verdict, reason: r.reason } };
}

/** The file name without folders (the in-memory file system has one folder per request). */
const leaf = (name: string, fallback: string) => name.replace(/^.*\//, '') || fallback;

/** The program, witness and property file of a request put in the in-memory file system (a folder per request), or why not. */
function putWitnessRequest(req: Extract<WorkerRequest, { kind: 'select' | 'validate' }>): { program: string; witness: string; prp: string } | WorkerReply {
  if (needsPreprocessing(req.programText)) {
    return { id: req.id, error: `${req.kind}: the program has preprocessor directives, and there is no preprocessor in the browser` };
  }
  const dir = `/playground/${req.id}`;
  const prp = PROPERTIES[req.property];
  if (prp === undefined) return { id: req.id, error: `the playground does not check ${req.property}` };
  const files = { program: `${dir}/${leaf(req.programName, 'program.c')}`, witness: `${dir}/${leaf(req.witnessName, 'witness.yml')}`, prp: `${dir}/property.prp` };
  putFile(files.program, req.programText);
  putFile(files.witness, req.witnessText);
  putFile(files.prp, prp);
  return files;
}

async function runValidate(req: Extract<WorkerRequest, { kind: 'validate' }>): Promise<WorkerReply> {
  const files = putWitnessRequest(req);
  if ('id' in files) return files;
  const r = await validate(files.program, files.witness, { prp: files.prp, dataModel: req.dataModel, timeoutS: req.timeoutS });
  return { id: req.id, validation: validationView(r, leaf(req.witnessName, 'witness.yml'), 'browser') };
}

async function runSelect(req: Extract<WorkerRequest, { kind: 'select' }>): Promise<WorkerReply> {
  const files = putWitnessRequest(req);
  if ('id' in files) return files;
  const r = await select(files.program, { candidates: files.witness, prp: files.prp, dataModel: req.dataModel, method: 'houdini', timeoutMs: req.timeoutS * 1000 });
  const { candidates } = r;
  const selection = r.verdicts.map((v) => {
    const c = candidates[v.candidate];
    return { witnessLine: c.loc.line, line: c.loopLoc.line, column: c.loopLoc.column, text: c.text, status: v.status, ...(v.reason ? { reason: v.reason } : {}) };
  });
  const proved = `${r.verdicts.filter((v) => v.status === 'selected').length} of ${candidates.length} candidates selected`;
  return { id: req.id, result: { verdict: r.verdict, reason: r.reason ? `${proved}; ${r.reason}` : proved, selection } };
}

scope.onmessage = async ({ data: req }) => {
  try {
    scope.postMessage(req.kind === 'select' ? await runSelect(req) : req.kind === 'validate' ? await runValidate(req) : await runVerify(req));
  } catch (e) {
    scope.postMessage({ id: req.id, error: e instanceof TarsierError ? e.format().split(`/playground/${req.id}/`).join('') : `internal error: ${e instanceof Error ? e.message : String(e)}` });
  }
};
