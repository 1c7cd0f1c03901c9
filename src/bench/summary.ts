import { categoryScore, metaCategoryScore, rankByScore, tally, type CategoryScore } from '../task/score.js';
import type { RunRecord } from './results.js';

export interface CategoryEntry extends CategoryScore {
  /** A meta category (score normalised over its sub-categories as the rules say). */
  readonly meta: boolean;
  /** For meta categories: the plain sum of points. */
  readonly rawScore?: number;
}

export interface ToolSummary {
  readonly name: string;
  /** The result folder the runs came from. */
  readonly source?: string;
  /** Sum of points over all scored runs. */
  readonly score: number;
  readonly correctTrue: number;
  readonly correctFalse: number;
  readonly incorrectTrue: number;
  readonly incorrectFalse: number;
  /**
   * Runs that answered nothing that scores: UNKNOWN, or an answer the task
   * does not match (a violation of another property). Time-outs, out of
   * memory, errors and unconfirmed answers have columns of their own: the
   * outcome counts add up to `runs`.
   */
  readonly unknown: number;
  /** Success run time: CPU seconds of the correct results. */
  readonly cpuTimeCorrect: number;
  /** Correct answers whose witness a validator confirmed / did not confirm. */
  readonly confirmed: number;
  readonly unconfirmed: number;
  readonly timeouts: number;
  /** Of the time-outs, those ended by the wall-time guard before the CPU-time limit. */
  readonly wallTimeouts: number;
  readonly outOfMemory: number;
  readonly errors: number;
  /** Runs that were scored (tasks with an expected verdict). */
  readonly runs: number;
  /** Runs of tasks without an expected verdict (not scored). */
  readonly unscored: number;
  readonly categories: readonly CategoryEntry[];
}

/** The base category of a run: `<property>.<directory>` (as SV-COMP's Property-Directory categories). */
export function baseCategory(r: Pick<RunRecord, 'property' | 'directory'>): string {
  return `${r.property}.${r.directory}`;
}

/**
 * Scores one tool's records: totals, the base categories, one meta category
 * per property (over its base categories) and `Overall` (over all base
 * categories), with the rules' normalisation.
 */
export function summarize(name: string, records: readonly RunRecord[], source?: string): ToolSummary {
  const scored = records.filter((r) => r.category !== 'missing');
  const outcomes = countOutcomes(scored);
  const t = tally(scored.map((r) => ({ answer: answerOf(r), category: r.category, points: r.points, cpuTime: r.cpuTime })));
  const groups = new Map<string, RunRecord[]>();
  for (const r of scored) {
    const k = baseCategory(r);
    groups.set(k, [...(groups.get(k) ?? []), r]);
  }
  const base: CategoryEntry[] = [...groups.keys()].sort().map((k) => {
    const rs = groups.get(k)!;
    return { ...categoryScore(k, rs.length, rs.reduce((s, r) => s + r.points, 0)), meta: false };
  });
  const meta = (metaName: string, subs: CategoryEntry[]): CategoryEntry => {
    const tasks = subs.reduce((s, c) => s + c.tasks, 0);
    const score = metaCategoryScore(subs);
    return { name: metaName, tasks, score, normalizedScore: tasks ? score / tasks : 0, meta: true, rawScore: subs.reduce((s, c) => s + c.score, 0) };
  };
  const props = [...new Set(base.map((c) => c.name.split('.')[0]))].sort();
  const metas = props.map((p) => meta(p, base.filter((c) => c.name.split('.')[0] === p)));
  const categories = [...metas, ...base];
  if (base.length > 0) categories.unshift(meta('Overall', base));
  return {
    name,
    ...(source ? { source } : {}),
    score: t.score,
    correctTrue: t.correctTrue,
    correctFalse: t.correctFalse,
    incorrectTrue: t.incorrectTrue,
    incorrectFalse: t.incorrectFalse,
    unknown: outcomes.unknown,
    cpuTimeCorrect: Math.round(t.cpuTimeCorrect * 1000) / 1000,
    confirmed: scored.filter((r) => r.category === 'correct' && r.validation?.status === 'confirmed').length,
    unconfirmed: t.unconfirmedTrue + t.unconfirmedFalse,
    timeouts: outcomes.timeout,
    wallTimeouts: scored.filter((r) => r.status === 'timeout' && r.limit === 'wall-time').length,
    outOfMemory: outcomes.outOfMemory,
    errors: outcomes.error,
    runs: scored.length,
    unscored: records.length - scored.length,
    categories,
  };
}

/**
 * Splits the runs without a scored answer (category `unknown`) by what ended
 * them, so that each run is counted in exactly one column.
 */
function countOutcomes(scored: readonly RunRecord[]): { unknown: number; timeout: number; outOfMemory: number; error: number } {
  const c = { unknown: 0, timeout: 0, outOfMemory: 0, error: 0 };
  for (const r of scored) {
    if (r.category !== 'unknown') continue;
    if (r.status === 'timeout') c.timeout++;
    else if (r.status === 'out of memory') c.outOfMemory++;
    else if (r.status === 'error') c.error++;
    else c.unknown++;
  }
  return c;
}

function answerOf(r: RunRecord): 'true' | 'false' | 'unknown' {
  return r.status === 'true' ? 'true' : r.status.startsWith('false') ? 'false' : 'unknown';
}

/** The JSON of `tarsier score --format json`. */
export function scoreJson(tools: readonly ToolSummary[]): { tools: ToolSummary[] } {
  return { tools: rankByScore(tools) };
}

function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(2);
}

function table(rows: string[][]): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ').trimEnd());
}

/** Plain-text summary: one block of totals per tool (ranked), then the categories side by side. */
export function formatSummary(tools: readonly ToolSummary[]): string {
  const ranked = rankByScore(tools);
  const lines: string[] = [];
  // The outcome columns add up to `runs`; `unconfirmed` only when witnesses were validated.
  const validated = ranked.some((t) => t.confirmed + t.unconfirmed > 0);
  const head = ['tool', 'score', 'runs', 'correct true', 'correct false', 'wrong true', 'wrong false'];
  if (validated) head.push('unconfirmed');
  head.push('unknown', 'timeout', 'out of mem', 'error', 'CPU s (correct)');
  lines.push(
    ...table([
      head,
      ...ranked.map((t) => [
        t.name,
        fmt(t.score),
        String(t.runs),
        String(t.correctTrue),
        String(t.correctFalse),
        String(t.incorrectTrue),
        String(t.incorrectFalse),
        ...(validated ? [String(t.unconfirmed)] : []),
        String(t.unknown),
        String(t.timeouts),
        String(t.outOfMemory),
        String(t.errors),
        t.cpuTimeCorrect.toFixed(1),
      ]),
    ]),
  );
  for (const t of ranked) {
    const who = ranked.length > 1 ? `${t.name}: ` : '';
    if (validated) {
      lines.push(`${who}witnesses: ${t.confirmed} confirmed, ${t.unconfirmed} not confirmed (a correct answer without a confirmed witness scores 0)`);
    }
    if (t.wallTimeouts > 0) {
      lines.push(
        `${who}${t.wallTimeouts} of the ${t.timeouts} time-outs were ended by the wall-time limit before their CPU time was used up (a loaded machine?); raise the guard with --wall-timeout`,
      );
    }
  }
  const names = [...new Set(ranked.flatMap((t) => t.categories.map((c) => c.name)))];
  const order = (n: string) => (n === 'Overall' ? 0 : n.includes('.') ? 2 : 1);
  names.sort((a, b) => order(a) - order(b) || (a < b ? -1 : a > b ? 1 : 0));
  if (names.length > 0) {
    lines.push('');
    const rows = [['category', 'tasks', ...ranked.map((t) => t.name)]];
    for (const n of names) {
      const cs = ranked.map((t) => t.categories.find((c) => c.name === n));
      const tasks = cs.find((c) => c)?.tasks ?? 0;
      const label = order(n) < 2 ? `${n} (meta)` : `  ${n}`;
      rows.push([label, String(tasks), ...cs.map((c) => (c ? fmt(Math.round(c.score * 100) / 100) : '-'))]);
    }
    lines.push(...table(rows));
  }
  return lines.join('\n');
}
