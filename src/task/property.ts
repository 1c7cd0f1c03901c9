import { resolve } from 'node:path';
import { TarsierError } from '../common/errors.js';
import { readTextFile } from '../common/files.js';

/**
 * The properties Tarsier checks: the SV-COMP properties of C verification
 * tasks, and Tarsier's own for programs of its users: `assert` (no
 * `assert()` of <assert.h> fails), `div-by-zero` (no integer division or
 * remainder by zero) and `default`, the checks of a program given without
 * a property (DEFAULT_CHECKS, all in one run).
 */
export type PropertyKind =
  | 'unreach-call'
  | 'no-overflow'
  | 'valid-memsafety'
  | 'valid-memcleanup'
  | 'termination'
  | 'no-data-race'
  | 'assert'
  | 'div-by-zero'
  | 'default';

export const PROPERTY_KINDS: readonly PropertyKind[] = [
  'unreach-call',
  'no-overflow',
  'valid-memsafety',
  'valid-memcleanup',
  'termination',
  'no-data-race',
  'assert',
  'div-by-zero',
  'default',
];

/** The checks of `default` (a program given without a property), in the order they are listed. */
export const DEFAULT_CHECKS: readonly PropertyKind[] = ['assert', 'unreach-call', 'valid-memsafety', 'no-overflow', 'div-by-zero'];

/** What each check of DEFAULT_CHECKS looks for, in words (the output of a run without a property says which checks ran). */
export const CHECK_DESCRIPTIONS: Readonly<Record<string, string>> = {
  assert: 'failing assert()',
  'unreach-call': 'calls of reach_error',
  'valid-memsafety': 'memory safety',
  'no-overflow': 'signed overflow',
  'div-by-zero': 'division by zero',
};

export const MEMSAFETY_SUBPROPERTIES = ['valid-free', 'valid-deref', 'valid-memtrack'] as const;

/** One `CHECK( init(f()), LTL(formula) )` line of a property file. */
export interface PropertyLine {
  /** The trimmed line text. */
  readonly text: string;
  /** The formula inside `LTL(...)`, trimmed, e.g. `G ! call(reach_error())`. */
  readonly formula: string;
  readonly line: number;
}

export interface Property {
  /** Absolute path of the `.prp` file. */
  readonly file: string;
  readonly kind: PropertyKind;
  /** The function whose call gives the initial states (`main` in SV-COMP). */
  readonly entryFunction: string;
  /** For unreach-call: the function that must not be called (`reach_error`). */
  readonly errorFunction?: string;
  /**
   * The names a violation of this property may carry in `FALSE(p)`:
   * `[kind]`, or the listed memory-safety sub-properties.
   */
  readonly subproperties: readonly string[];
  /**
   * The property text as witnesses' `task.specification` carries it: the
   * non-empty lines, trimmed, joined with `\n`.
   */
  readonly specification: string;
  readonly lines: readonly PropertyLine[];
}

// Tolerates white space as other tools do; the entry function is a C identifier.
const CHECK_RE = /^CHECK\(\s*init\(\s*([A-Za-z_]\w*)\(\)\s*\)\s*,\s*LTL\((.*)\)\s*\)$/;

type Atom =
  | { kind: 'unreach-call'; fn: string }
  | { kind: 'no-overflow' | 'no-data-race' | 'termination' | 'valid-memcleanup' | 'assert' | 'div-by-zero' }
  | { kind: 'memsafety'; sub: string };

function classifyFormula(formula: string): Atom | string {
  const f = formula.replace(/\s+/g, ' ').trim();
  let m = /^G ?! ?call\( ?([A-Za-z_]\w*) ?\( ?\) ?\)$/.exec(f);
  // A call of glibc's failure function of assert() is Tarsier's own property `assert`.
  if (m) return m[1] === ASSERT_FAILURE ? { kind: 'assert' } : { kind: 'unreach-call', fn: m[1] };
  if (/^G ?! ?div-by-zero$/.test(f)) return { kind: 'div-by-zero' };
  if (/^G ?! ?overflow$/.test(f)) return { kind: 'no-overflow' };
  if (/^G ?! ?data-race$/.test(f)) return { kind: 'no-data-race' };
  if (/^F ?end$/.test(f)) return { kind: 'termination' };
  m = /^G (valid-free|valid-deref|valid-memtrack|valid-memcleanup)$/.exec(f);
  if (m) return m[1] === 'valid-memcleanup' ? { kind: 'valid-memcleanup' } : { kind: 'memsafety', sub: m[1] };
  if (/^G ?! ?label\(/.test(f)) return `unsupported property 'LTL(${f})' (legacy label reachability)`;
  if (/^G def-behavior$/.test(f)) return `unsupported property 'LTL(${f})' (def-behavior is not an SV-COMP property)`;
  return `unknown property formula 'LTL(${f})'`;
}

/**
 * Parses the text of a property file. `file` is used for the result and for
 * error positions only.
 */
export function parsePropertyText(text: string, file: string): Property {
  const lines: PropertyLine[] = [];
  const atoms: Atom[] = [];
  let entry: string | undefined;
  const rawLines = text.split('\n');
  for (let i = 0; i < rawLines.length; i++) {
    const raw = rawLines[i].replace(/\r$/, '');
    const trimmed = raw.trim();
    if (trimmed === '') continue;
    const column = raw.length - raw.trimStart().length + 1;
    const at = { file, line: i + 1, column };
    if (/^COVER\s*\(/.test(trimmed)) {
      throw new TarsierError('property', 'a Test-Comp coverage property (COVER) is not a verification property', at);
    }
    const m = CHECK_RE.exec(trimmed);
    if (!m) {
      throw new TarsierError('property', "expected 'CHECK( init(main()), LTL(<formula>) )'", at);
    }
    if (entry !== undefined && m[1] !== entry) {
      throw new TarsierError('property', `entry function '${m[1]}' differs from '${entry}' of an earlier line`, at);
    }
    entry = m[1];
    const atom = classifyFormula(m[2]);
    if (typeof atom === 'string') throw new TarsierError('property', atom, at);
    atoms.push(atom);
    lines.push({ text: trimmed, formula: m[2].trim(), line: i + 1 });
  }
  if (lines.length === 0 || entry === undefined) {
    throw new TarsierError('property', 'property file contains no CHECK line', { file, line: 1, column: 1 });
  }
  const specification = lines.map((l) => l.text).join('\n');
  const base = { file, entryFunction: entry, specification, lines };
  // Memory safety, possibly with a valid-memcleanup line (the upstream file has had that fourth line).
  const memory = (a: Atom) => a.kind === 'memsafety' || (a.kind === 'valid-memcleanup' && atoms.length > 1);
  if (atoms.every(memory)) {
    const subs = atoms.map((a) => (a.kind === 'memsafety' ? a.sub : 'valid-memcleanup'));
    const dup = subs.findIndex((s, i) => subs.indexOf(s) !== i);
    if (dup >= 0) {
      throw new TarsierError('property', `'${subs[dup]}' is listed twice`, { file, line: lines[dup].line, column: 1 });
    }
    // Report sub-properties in the rules' order, independent of line order.
    const ordered = [...MEMSAFETY_SUBPROPERTIES, 'valid-memcleanup'].filter((s) => subs.includes(s));
    return { ...base, kind: 'valid-memsafety', subproperties: ordered };
  }
  if (atoms.length > 1) {
    throw new TarsierError(
      'property',
      'a property file with several lines must list memory-safety sub-properties only (valid-free, valid-deref, valid-memtrack, valid-memcleanup)',
      { file, line: lines[1].line, column: 1 },
    );
  }
  const a = atoms[0];
  if (a.kind === 'unreach-call') {
    return { ...base, kind: 'unreach-call', errorFunction: a.fn, subproperties: ['unreach-call'] };
  }
  const kind = a.kind as Exclude<PropertyKind, 'unreach-call' | 'valid-memsafety'>;
  return { ...base, kind, subproperties: [kind] };
}

/**
 * The property a witness's specification names (2.x `task.specification`,
 * or GraphML's `specification` values, one per line): the lines of a
 * property file, where a line may also be its formula alone, with or
 * without `LTL(...)` around it (`G ! call(reach_error())`, as some tools
 * write it), and one line may hold several `CHECK(...)`. Undefined when the
 * text is not one property.
 */
export function propertyOfSpecification(text: string): Property | undefined {
  const clauses = text.split(/\n|(?=CHECK\s*\()/).map((c) => c.trim()).filter((c) => c !== '');
  const lines = clauses.map((c) => (CHECK_RE.test(c) ? c : `CHECK( init(main()), LTL(${/^LTL\s*\((.*)\)$/.exec(c)?.[1] ?? c}) )`));
  try {
    return parsePropertyText(lines.join('\n'), 'specification');
  } catch (e) {
    if (e instanceof TarsierError) return undefined;
    throw e;
  }
}

/** Reads and recognises an SV-COMP `.prp` file. */
export function readPropertyFile(path: string): Property {
  const file = resolve(path);
  return parsePropertyText(readTextFile(file), file);
}

/** The function a failing `assert()` calls (glibc, musl): its call violates the property `assert`. */
const ASSERT_FAILURE = '__assert_fail';

/** The property files of SV-COMP, as every task set ships them, and the texts of Tarsier's own properties. */
const BUILT_IN_PROPERTY_TEXT: Record<Exclude<PropertyKind, 'default'>, string> = {
  'unreach-call': 'CHECK( init(main()), LTL(G ! call(reach_error())) )',
  'no-overflow': 'CHECK( init(main()), LTL(G ! overflow) )',
  'valid-memsafety': 'CHECK( init(main()), LTL(G valid-free) )\nCHECK( init(main()), LTL(G valid-deref) )\nCHECK( init(main()), LTL(G valid-memtrack) )',
  'valid-memcleanup': 'CHECK( init(main()), LTL(G valid-memcleanup) )',
  termination: 'CHECK( init(main()), LTL(F end) )',
  'no-data-race': 'CHECK( init(main()), LTL(G ! data-race) )',
  assert: `CHECK( init(main()), LTL(G ! call(${ASSERT_FAILURE}())) )`,
  'div-by-zero': 'CHECK( init(main()), LTL(G ! div-by-zero) )',
};

/** The text of the standard `.prp` file of a property. */
export function propertyFileText(kind: PropertyKind): string {
  return (kind === 'default' ? defaultProperty().specification : BUILT_IN_PROPERTY_TEXT[kind]) + '\n';
}

/** The standard property of a kind (the text of its `.prp` file); undefined for an unknown name. */
export function builtInProperty(kind: string): Property | undefined {
  if (!(PROPERTY_KINDS as readonly string[]).includes(kind)) return undefined;
  if (kind === 'default') return defaultProperty();
  return parsePropertyText(BUILT_IN_PROPERTY_TEXT[kind as Exclude<PropertyKind, 'default'>] + '\n', `${kind}.prp`);
}

/** The property that `fn` is never called from `main` (`G ! call(fn())`): unreach-call with `fn` as its error function. */
export function errorCallProperty(fn: string): Property {
  return parsePropertyText(`CHECK( init(main()), LTL(G ! call(${fn}())) )\n`, `${fn}.prp`);
}

/** `default`: the lines of every check of DEFAULT_CHECKS (no property file says this; it is never read from one). */
function defaultProperty(): Property {
  const parts = DEFAULT_CHECKS.map((k) => builtInProperty(k)!);
  const lines = parts.flatMap((p) => p.lines).map((l, i) => ({ ...l, line: i + 1 }));
  return {
    file: 'default.prp',
    kind: 'default',
    entryFunction: 'main',
    errorFunction: 'reach_error',
    subproperties: parts.flatMap((p) => p.subproperties),
    specification: lines.map((l) => l.text).join('\n'),
    lines,
  };
}
