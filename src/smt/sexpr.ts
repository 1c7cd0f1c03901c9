// A small S-expression reader for solver responses.

export type SExpr = string | SExpr[];

export function parseSExprs(text: string): SExpr[] {
  const out: SExpr[] = [];
  const stack: SExpr[][] = [];
  let i = 0;
  const n = text.length;
  const push = (x: SExpr) => {
    if (stack.length > 0) stack[stack.length - 1].push(x);
    else out.push(x);
  };
  while (i < n) {
    const c = text[i];
    if (c === ' ' || c === '\n' || c === '\t' || c === '\r') {
      i++;
    } else if (c === ';') {
      while (i < n && text[i] !== '\n') i++;
    } else if (c === '(') {
      stack.push([]);
      i++;
    } else if (c === ')') {
      const top = stack.pop();
      i++;
      if (top) push(top);
    } else if (c === '"') {
      let j = i + 1;
      while (j < n) {
        if (text[j] === '"') {
          if (text[j + 1] === '"') j += 2;
          else break;
        } else j++;
      }
      push(text.slice(i, j + 1));
      i = j + 1;
    } else if (c === '|') {
      const j = text.indexOf('|', i + 1);
      const end = j < 0 ? n : j + 1;
      push(text.slice(i, end));
      i = end;
    } else {
      let j = i;
      while (j < n && !/[\s()";|]/.test(text[j])) j++;
      push(text.slice(i, j));
      i = j;
    }
  }
  while (stack.length > 0) {
    const top = stack.pop()!;
    push(top);
  }
  return out;
}

export function sexprToString(e: SExpr): string {
  return typeof e === 'string' ? e : `(${e.map(sexprToString).join(' ')})`;
}

export function unquoteString(s: string): string {
  return s.startsWith('"') && s.endsWith('"') ? s.slice(1, -1).replace(/""/g, '"') : s;
}
