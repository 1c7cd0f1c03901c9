// Columns after macro expansion: cpp's line markers map lines back to the
// original file, but on a line with a macro the columns of the expanded
// text are not the original's (`LIMIT + 5` became `100 + 5`, and every
// token after it moved). A line of the expanded text is aligned with its
// original line token by token (longest common subsequence): a token that
// appears in both keeps its original column; a token that came out of a
// macro gets the column of the macro's name.

/** A token's text and its 1-based column. */
interface Tok {
  readonly text: string;
  readonly column: number;
}

const TOKEN = /[A-Za-z_$][\w$]*|\d[\w.]*|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|\S/g;

function tokens(line: string): Tok[] {
  const out: Tok[] = [];
  for (const m of line.matchAll(TOKEN)) out.push({ text: m[0], column: m.index! + 1 });
  return out;
}

/** Lines longer than this (in tokens) are not aligned: the quadratic table would be too large. */
const MAX_TOKENS = 2000;

/**
 * A function from columns of `expanded` to columns of `original`, or
 * undefined when the two lines are the same text (no mapping needed).
 */
export function columnMapping(expanded: string, original: string): ((column: number) => number) | undefined {
  if (expanded === original) return undefined;
  const a = tokens(expanded);
  const b = tokens(original);
  if (a.length === 0 || b.length === 0 || a.length * b.length > MAX_TOKENS * MAX_TOKENS) return undefined;
  // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
  const lcs: Uint16Array[] = Array.from({ length: a.length + 1 }, () => new Uint16Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i]![j] = a[i]!.text === b[j]!.text ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  // For each expanded token: its original token (matched), or the macro's
  // name it came from (the original token not yet matched: expanded tokens
  // are consumed before the invocation's own are skipped).
  const target: { column: number; matched: boolean }[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length) {
    if (j < b.length && a[i]!.text === b[j]!.text && lcs[i]![j] === lcs[i + 1]![j + 1]! + 1) {
      target.push({ column: b[j]!.column, matched: true });
      i++;
      j++;
    } else if (j >= b.length || lcs[i + 1]![j]! >= lcs[i]![j + 1]!) {
      target.push({ column: b[Math.min(j, b.length - 1)]!.column, matched: false });
      i++;
    } else {
      j++;
    }
  }
  return (column: number) => {
    // The token at (or the first after) the column; a column inside a matched token keeps its place in it.
    let k = a.findIndex((t) => t.column + t.text.length > column);
    if (k < 0) k = a.length - 1;
    const inside = Math.max(0, column - a[k]!.column);
    return target[k]!.column + (target[k]!.matched ? inside : 0);
  };
}
