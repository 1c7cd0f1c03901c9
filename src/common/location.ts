/**
 * One source position type for the whole code base. Lines and columns are
 * 1-based; offsets are 0-based UTF-16 indexes into the file's text. The
 * witness formats' own conventions (0.1 columns are 0-based) are converted
 * in witness/ only.
 */
export interface SourcePosition {
  readonly line: number;
  readonly column: number;
  readonly offset: number;
}

export interface SourceLocation extends SourcePosition {
  readonly file: string;
  /** Where the construct ends (exclusive), when known. */
  readonly end?: SourcePosition;
}

export function location(
  file: string,
  line: number,
  column: number,
  offset = -1,
  end?: SourcePosition,
): SourceLocation {
  return end ? { file, line, column, offset, end } : { file, line, column, offset };
}

export function formatLocation(loc: Pick<SourceLocation, 'file' | 'line' | 'column'>): string {
  return `${loc.file}:${loc.line}:${loc.column}`;
}

/** Maps offsets of a text to 1-based line and column numbers. */
export class LineIndex {
  private readonly starts: number[];

  constructor(readonly text: string) {
    const starts = [0];
    for (let i = 0; i < text.length; i++) {
      if (text.charCodeAt(i) === 10) starts.push(i + 1);
    }
    this.starts = starts;
  }

  get lineCount(): number {
    return this.starts.length;
  }

  position(offset: number): SourcePosition {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - this.starts[lo] + 1, offset };
  }

  /** Offset of a 1-based line and column, or undefined when out of range. */
  offsetOf(line: number, column: number): number | undefined {
    if (line < 1 || line > this.starts.length) return undefined;
    const start = this.starts[line - 1];
    const offset = start + column - 1;
    return column >= 1 && offset <= this.lineEnd(line) ? offset : undefined;
  }

  /** The text of a 1-based line without its line terminator. */
  lineText(line: number): string {
    const start = this.starts[line - 1];
    return this.text.slice(start, this.lineEnd(line));
  }

  private lineEnd(line: number): number {
    const next = line < this.starts.length ? this.starts[line] - 1 : this.text.length;
    return next > this.starts[line - 1] && this.text.charCodeAt(next - 1) === 13 ? next - 1 : next;
  }
}
