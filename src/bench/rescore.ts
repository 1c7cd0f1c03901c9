import { existsSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { readRecords, scoreRecord, type RunRecord } from './results.js';
import { summarize, type ToolSummary } from './summary.js';
import type { ReportInput } from './html.js';

export interface ScoreDirectoriesOptions {
  /** Names for the folders' tools, in order (default: the tool name recorded in the folder). */
  readonly names?: readonly string[];
}

/**
 * Re-scores saved result folders (each with a results.jsonl) from the
 * recorded status, expected verdict and witness validation, so that scoring
 * changes apply to old results; tools with the same name get the folder name
 * added.
 */
export function scoreDirectories(dirs: readonly string[], options: ScoreDirectoriesOptions = {}): { tools: ToolSummary[]; inputs: ReportInput[] } {
  const loaded = dirs.map((d, i) => {
    const dir = resolve(d);
    const records: RunRecord[] = readRecords(join(dir, 'results.jsonl')).map((r) => ({ ...r, ...scoreRecord(r) }));
    let name = options.names?.[i];
    if (!name && existsSync(join(dir, 'bench.json'))) {
      try {
        name = (JSON.parse(readFileSync(join(dir, 'bench.json'), 'utf8')) as { tool?: string }).tool;
      } catch {
        /* fall back below */
      }
    }
    name ??= records[0]?.tool ?? basename(dir);
    return { dir, name, records };
  });
  const counts = new Map<string, number>();
  for (const l of loaded) counts.set(l.name, (counts.get(l.name) ?? 0) + 1);
  const inputs = loaded.map((l) => {
    const name = (counts.get(l.name) ?? 0) > 1 ? `${l.name} (${basename(l.dir)})` : l.name;
    return { summary: summarize(name, l.records, l.dir), records: l.records };
  });
  return { tools: inputs.map((i) => i.summary), inputs };
}
