// Text-level instrumentation of a C program: insertions at offsets of the
// original text, and a prelude of declarations placed on the line of the
// first function definition, so that every line keeps its number (locations
// of the instrumented program are those of the original, except for columns
// on that one line).

/** One insertion: `open` parts of wider spans come first at an offset, `close` parts of narrower spans first. */
interface Insertion {
  readonly offset: number;
  readonly text: string;
  readonly kind: 'open' | 'close';
  /** Length of the wrapped span (0 for a plain insertion). */
  readonly span: number;
  readonly order: number;
}

export class ProgramEdits {
  private readonly insertions: Insertion[] = [];
  private readonly preludeParts: string[] = [];

  constructor(
    readonly text: string,
    /** Offset where the prelude goes (start of the first function definition). */
    private readonly preludeOffset: number,
  ) {}

  /** Text placed before the statement or expression `[start, end)`. */
  before(start: number, text: string): void {
    this.insertions.push({ offset: start, text, kind: 'open', span: 0, order: this.insertions.length });
  }

  /** Text placed after `[start, end)` (so after anything inserted inside it). */
  after(end: number, text: string): void {
    this.insertions.push({ offset: end, text, kind: 'close', span: 0, order: this.insertions.length });
  }

  /** Surrounds `[start, end)` with `open` and `close`, nesting properly with other wraps. */
  wrap(start: number, end: number, open: string, close: string): void {
    const span = end - start;
    this.insertions.push({ offset: start, text: open, kind: 'open', span, order: this.insertions.length });
    this.insertions.push({ offset: end, text: close, kind: 'close', span, order: this.insertions.length });
  }

  /** A declaration for the prelude (kept on one line). */
  declare(text: string): void {
    this.preludeParts.push(text.replace(/\s*\n\s*/g, ' '));
  }

  get count(): number {
    return this.insertions.length + this.preludeParts.length;
  }

  /** The instrumented program. */
  render(): string {
    const all = [...this.insertions];
    if (this.preludeParts.length) {
      all.push({ offset: this.preludeOffset, text: this.preludeParts.join(' ') + ' ', kind: 'open', span: Number.MAX_SAFE_INTEGER, order: -1 });
    }
    all.sort((a, b) => {
      if (a.offset !== b.offset) return a.offset - b.offset;
      if (a.kind !== b.kind) return a.kind === 'close' ? -1 : 1;
      if (a.span !== b.span) return a.kind === 'open' ? b.span - a.span : a.span - b.span;
      // Plain insertions keep their order; equal wraps nest (the later one inside).
      return a.kind === 'open' || a.span === 0 ? a.order - b.order : b.order - a.order;
    });
    let out = '';
    let pos = 0;
    for (const ins of all) {
      out += this.text.slice(pos, ins.offset) + ins.text;
      pos = ins.offset;
    }
    return out + this.text.slice(pos);
  }
}

/** Code run just before a statement: a declaration gets it in front (it is a block item), any other statement is wrapped in a block with it. */
export function beforeStatement(edits: ProgramEdits, st: { stmt: { kind: string }; start: number; end: number }, code: string): void {
  if (st.stmt.kind === 'DeclStmt') edits.before(st.start, `${code} `);
  else edits.wrap(st.start, st.end, `{ ${code} `, ' }');
}
