import { readdirSync, statSync } from 'node:fs';
import { basename, dirname, relative, resolve, sep } from 'node:path';
import { TarsierError, usageError } from '../common/errors.js';
import { readTextFile } from '../common/files.js';
import { expandPattern } from '../task/glob.js';
import type { ExpectedResult } from '../task/score.js';
import { readTaskFile, type DataModel } from '../task/taskfile.js';
import type { PropertyKind } from '../task/property.js';

/** One verification run to do: a task with one of its properties. */
export interface RunSpec {
  /** Stable identifier: task path (relative to the sets' common folder) `#` property file name. */
  readonly id: string;
  readonly taskFile: string;
  /** The task file relative to the common folder of all tasks. */
  readonly task: string;
  /** The folder the task file is in (an sv-benchmarks directory). */
  readonly directory: string;
  readonly property: PropertyKind;
  readonly propertyFile: string;
  readonly expected?: ExpectedResult;
  readonly inputFiles: readonly string[];
  readonly dataModel: DataModel;
}

export interface SetWarning {
  readonly file: string;
  readonly message: string;
}

/**
 * Collects the task files a SET names: a task file (`.yml`/`.yaml`), a
 * folder (every `.yml` below it, recursively, sorted), or a set file
 * (`.set`: one pattern per line, relative to the set file, `#` comments).
 */
export function collectTaskFiles(sets: readonly string[]): string[] {
  const files = new Set<string>();
  for (const s of sets) {
    const path = resolve(s);
    let st;
    try {
      st = statSync(path);
    } catch {
      throw new TarsierError('io', 'no such file or folder', { file: s }, 2);
    }
    if (st.isDirectory()) {
      for (const f of walkYml(path)) files.add(f);
    } else if (path.endsWith('.set')) {
      const text = readTextFile(path);
      text.split('\n').forEach((raw, i) => {
        const line = raw.replace(/#.*$/, '').trim();
        if (!line) return;
        const matches = expandPattern(line, dirname(path)).filter((m) => /\.ya?ml$/.test(m.absolute));
        if (matches.length === 0) {
          throw new TarsierError('set', `pattern '${line}' matches no task file`, { file: path, line: i + 1, column: 1 });
        }
        for (const m of matches) files.add(m.absolute);
      });
    } else if (/\.ya?ml$/.test(path)) files.add(path);
    else throw usageError(`${s}: expected a task file (.yml), a folder or a set file (.set)`);
  }
  return [...files].sort();
}

function walkYml(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (e.name.startsWith('.')) continue;
    const p = resolve(dir, e.name);
    if (e.isDirectory()) out.push(...walkYml(p));
    else if (e.isFile() && /\.ya?ml$/.test(e.name)) out.push(p);
  }
  return out;
}

/** The deepest folder that holds all the files. */
export function commonFolder(files: readonly string[]): string {
  if (files.length === 0) return process.cwd();
  let parts = dirname(files[0]).split(sep);
  for (const f of files) {
    const q = dirname(f).split(sep);
    let i = 0;
    while (i < parts.length && i < q.length && parts[i] === q[i]) i++;
    parts = parts.slice(0, i);
  }
  return parts.join(sep) || sep;
}

export interface ExpandOptions {
  /** Keep only runs whose property kind or property file name (without .prp) is in this list. */
  readonly properties?: readonly string[];
}

/**
 * Turns SETs into runs: one per (task, property) pair whose property file is a
 * verification property. Unusable property entries (coverage properties,
 * missing files; one warning per property file) and unreadable task files are
 * reported as warnings. `tasks` counts the task files read and `properties`
 * lists the property kinds they have (before `options.properties` filters).
 */
export function expandRuns(
  sets: readonly string[],
  options: ExpandOptions = {},
): { runs: RunSpec[]; warnings: SetWarning[]; tasks: number; properties: string[] } {
  const files = collectTaskFiles(sets);
  const base = commonFolder(files);
  const runs: RunSpec[] = [];
  const warnings: SetWarning[] = [];
  const properties = new Set<string>();
  // Skipped property entries, one warning per property file and reason (sets repeat them in every task).
  const skipped = new Map<string, { file: string; reason: string; tasks: number }>();
  for (const file of files) {
    let task;
    try {
      task = readTaskFile(file, { skipUnusableProperties: true });
    } catch (e) {
      if (!(e instanceof TarsierError)) throw e;
      warnings.push({ file, message: e.format() });
      continue;
    }
    const rel = relative(base, file).split(sep).join('/');
    for (const p of task.skippedProperties) {
      const reason = p.reason.replace(/^.*?: error: /, '');
      const key = `${p.propertyFile}\0${reason}`;
      const entry = skipped.get(key) ?? { file: p.propertyFile, reason, tasks: 0 };
      entry.tasks++;
      skipped.set(key, entry);
    }
    for (const p of task.properties) {
      const propName = basename(p.propertyFile).replace(/\.prp$/, '');
      properties.add(p.property);
      if (options.properties && !options.properties.includes(p.property) && !options.properties.includes(propName)) continue;
      runs.push({
        id: `${rel}#${propName}`,
        taskFile: file,
        task: rel,
        directory: basename(dirname(file)),
        property: p.property,
        propertyFile: p.propertyFile,
        ...(p.expectedVerdict !== undefined
          ? { expected: { verdict: p.expectedVerdict, ...(p.subproperty ? { subproperty: p.subproperty } : {}) } }
          : {}),
        inputFiles: task.inputFiles,
        dataModel: task.dataModel,
      });
    }
  }
  for (const { file, reason, tasks } of skipped.values()) {
    warnings.push({ file, message: `${file}: property entry skipped in ${tasks} task${tasks === 1 ? '' : 's'}: ${reason}` });
  }
  return { runs, warnings, tasks: files.length, properties: [...properties].sort() };
}

export function expectedString(e: ExpectedResult | undefined): string | null {
  if (!e) return null;
  if (e.verdict) return 'true';
  return e.subproperty ? `false(${e.subproperty})` : 'false';
}

export function parseExpectedString(s: string | null | undefined): ExpectedResult | undefined {
  if (!s) return undefined;
  if (s === 'true') return { verdict: true };
  const m = /^false(?:\(([\w-]+)\))?$/.exec(s);
  if (!m) return undefined;
  return m[1] ? { verdict: false, subproperty: m[1] } : { verdict: false };
}
