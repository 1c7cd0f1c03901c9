import type { RunRecord } from './results.js';

export interface ProgressSink {
  started(id: string): void;
  finished(record: RunRecord): void;
  close(): void;
}

function clock(seconds: number): string {
  const s = Math.floor(seconds);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(Math.floor(s / 3600))}:${p(Math.floor((s % 3600) / 60))}:${p(s % 60)}`;
}

/**
 * Progress of a benchmark: on a terminal one status line rewritten in place
 * (runs done, running, correct/incorrect so far, elapsed); otherwise one plain
 * line per finished run.
 */
export class Progress implements ProgressSink {
  private done = 0;
  private running = 0;
  private correct = 0;
  private wrong = 0;
  private other = 0;
  private readonly start = Date.now();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly total: number,
    private readonly stream: NodeJS.WritableStream & { isTTY?: boolean; columns?: number },
    private readonly tty = Boolean(stream.isTTY),
    alreadyDone = 0,
  ) {
    this.done = alreadyDone;
    if (this.tty) {
      this.timer = setInterval(() => this.draw(), 1000);
      this.timer.unref();
    }
  }

  started(_id?: string): void {
    this.running++;
    if (this.tty) this.draw();
  }

  finished(r: RunRecord): void {
    this.running--;
    this.done++;
    if (r.category === 'correct') this.correct++;
    else if (r.category === 'wrong') this.wrong++;
    else this.other++;
    const mark = r.category === 'wrong' ? ' WRONG' : '';
    // A run the wall-time guard stopped did not use its CPU time: say so, with the way out.
    const guard = r.limit === 'wall-time' ? ` CPU, ended by the wall-time limit after ${r.wallTime.toFixed(2)} s wall (raise it with --wall-timeout)` : '';
    const line = `[${this.done}/${this.total}] ${r.id}: ${r.status} (${r.category}, ${r.points >= 0 ? '+' : ''}${r.points}) ${r.cpuTime.toFixed(2)} s${guard}${mark}`;
    if (this.tty) {
      // Keep wrong answers and runs cut by the wall-time guard visible above the status line.
      if (r.category === 'wrong' || guard) this.stream.write(`\r\x1b[K${line}\n`);
      this.draw();
    } else this.stream.write(line + '\n');
  }

  statusLine(): string {
    const elapsed = (Date.now() - this.start) / 1000;
    return `${this.done}/${this.total} done, ${this.running} running | correct ${this.correct}, incorrect ${this.wrong}, other ${this.other} | ${clock(elapsed)}`;
  }

  private draw(): void {
    const width = this.stream.columns ?? 100;
    this.stream.write(`\r\x1b[K${this.statusLine().slice(0, width - 1)}`);
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.tty) this.stream.write(`\r\x1b[K${this.statusLine()}\n`);
  }
}
