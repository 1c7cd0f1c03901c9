// C text of function bodies as the front end (and the goto elimination) gives
// them, for differential tests that compile a transformed body with gcc.
// Covers what the tests' programs use: scalar locals, the operators, calls,
// the statements. Locals get their declaration's id in their name (so that
// hoisting never meets shadowing); the declarations inside a block the goto
// elimination made (which opens no scope) are hoisted to the enclosing C
// block, their initialisers becoming assignments in place.
import type { BlockItem, CompoundStmt, Declaration, Expr, FunctionDecl, Stmt, ValueDecl } from '../../src/c/ast.js';
import { typeToString } from '../../src/c/types.js';

function name(d: ValueDecl): string {
  const base = d.name.replace(/[^A-Za-z0-9_]/g, '_');
  return d.kind === 'Var' && d.scope !== 'file' ? `${base}_${d.id}` : base;
}

export function printExpr(e: Expr): string {
  switch (e.kind) {
    case 'IntegerLiteral':
      return e.type.kind === 'integer' && e.type.name === 'int' && e.value >= 0n ? String(e.value) : `((${typeToString(e.type)})(${e.value}))`;
    case 'Identifier':
      return name(e.decl);
    case 'Unary':
      return `(${e.op}${printExpr(e.operand)})`;
    case 'IncDec':
      return e.prefix ? `(${e.op}${printExpr(e.operand)})` : `(${printExpr(e.operand)}${e.op})`;
    case 'Binary':
      return `(${printExpr(e.left)} ${e.op} ${printExpr(e.right)})`;
    case 'Assign':
      return `(${printExpr(e.target)} ${e.op} ${printExpr(e.value)})`;
    case 'Conditional':
      return `(${printExpr(e.condition)} ?${e.then ? ` ${printExpr(e.then)} ` : ''}: ${printExpr(e.else)})`;
    case 'Comma':
      return `(${printExpr(e.left)}, ${printExpr(e.right)})`;
    case 'Call':
      return `${printExpr(e.callee)}(${e.args.map(printExpr).join(', ')})`;
    case 'ImplicitCast':
      return printExpr(e.operand);
    case 'Index':
      return `${printExpr(e.base)}[${printExpr(e.index)}]`;
    case 'Cast':
      return `((${typeToString(e.type)})${printExpr(e.operand)})`;
    default:
      throw new Error(`c-print: expression ${e.kind}`);
  }
}

function declarator(decl: Extract<ValueDecl, { kind: 'Var' }>): string {
  return typeToString(decl.type, name(decl));
}

function printDeclaration(d: Declaration, hoisted: boolean): string[] {
  return d.declarators.flatMap((dc) => {
    if (dc.decl.kind !== 'Var') throw new Error('c-print: declaration of a non-variable');
    const init = dc.init;
    if (init && init.kind === 'InitList') throw new Error('c-print: initialiser list');
    if (hoisted) return init ? [`${name(dc.decl)} = ${printExpr(init)};`] : [];
    return [`${declarator(dc.decl)}${init ? ` = ${printExpr(init)}` : ''};`];
  });
}

/** The declarations in the blocks of the pass below a C block (they belong to it). */
function hoistedDeclarations(items: readonly BlockItem[]): string[] {
  const out: string[] = [];
  const visit = (s: BlockItem, inGroup: boolean): void => {
    switch (s.kind) {
      case 'DeclStmt':
        if (inGroup) for (const dc of s.declaration.declarators) if (dc.decl.kind === 'Var') out.push(`${declarator(dc.decl)};`);
        return;
      case 'Compound':
        if (s.synthetic) for (const x of s.items) visit(x, true);
        return;
      case 'If':
        visit(s.then, false);
        if (s.else) visit(s.else, false);
        return;
      case 'While': case 'DoWhile': case 'For': case 'Switch': case 'Case': case 'Default': case 'Label':
        visit(s.body, false);
        return;
      default:
        return;
    }
  };
  for (const s of items) visit(s, false);
  return out;
}

function block(c: CompoundStmt, out: string[], indent: string): void {
  if (c.synthetic) {
    out.push(`${indent}{`);
    for (const s of c.items) item(s, true, out, indent + '  ');
    out.push(`${indent}}`);
    return;
  }
  out.push(`${indent}{`);
  for (const h of hoistedDeclarations(c.items)) out.push(`${indent}  ${h}`);
  for (const s of c.items) item(s, false, out, indent + '  ');
  out.push(`${indent}}`);
}

function item(s: BlockItem, inGroup: boolean, out: string[], indent: string): void {
  if (s.kind === 'DeclStmt') {
    for (const line of printDeclaration(s.declaration, inGroup)) out.push(indent + line);
    return;
  }
  stmt(s, out, indent);
}

function stmt(s: Stmt, out: string[], indent: string): void {
  const sub = (b: Stmt) => (b.kind === 'Compound' ? block(b, out, indent) : stmt(b, out, indent + '  '));
  switch (s.kind) {
    case 'Compound':
      return block(s, out, indent);
    case 'ExprStmt':
      out.push(`${indent}${printExpr(s.expr)};`);
      return;
    case 'Null':
      out.push(`${indent};`);
      return;
    case 'If':
      out.push(`${indent}if (${printExpr(s.condition)})`);
      sub(s.then);
      if (s.else) {
        out.push(`${indent}else`);
        sub(s.else);
      }
      return;
    case 'While':
      out.push(`${indent}while (${printExpr(s.condition)})`);
      sub(s.body);
      return;
    case 'DoWhile':
      out.push(`${indent}do`);
      sub(s.body);
      out.push(`${indent}while (${printExpr(s.condition)});`);
      return;
    case 'For': {
      // A declaration in the header: the loop in a block of its own.
      const init = s.init === undefined ? '' : s.init.kind === 'Declaration' ? undefined : printExpr(s.init);
      if (init === undefined) {
        out.push(`${indent}{`);
        for (const line of printDeclaration(s.init as Declaration, false)) out.push(`${indent}  ${line}`);
      }
      out.push(`${indent}for (${init ?? ''}; ${s.condition ? printExpr(s.condition) : ''}; ${s.step ? printExpr(s.step) : ''})`);
      sub(s.body);
      if (init === undefined) out.push(`${indent}}`);
      return;
    }
    case 'Switch':
      out.push(`${indent}switch (${printExpr(s.condition)})`);
      sub(s.body);
      return;
    case 'Case':
      out.push(`${indent}case ${s.value}${s.last !== undefined ? ` ... ${s.last}` : ''}:`);
      return stmt(s.body, out, indent);
    case 'Default':
      out.push(`${indent}default:`);
      return stmt(s.body, out, indent);
    case 'Label':
      out.push(`${indent}${s.name}:`);
      return stmt(s.body, out, indent);
    case 'Goto':
      out.push(`${indent}goto ${s.label};`);
      return;
    case 'Break':
      out.push(`${indent}break;`);
      return;
    case 'Continue':
      out.push(`${indent}continue;`);
      return;
    case 'Return':
      out.push(`${indent}return${s.value ? ` ${printExpr(s.value)}` : ''};`);
      return;
    case 'Asm':
      throw new Error('c-print: asm');
  }
}

/** `type name(params) { body }` with the given body. */
export function printFunction(f: FunctionDecl, body: CompoundStmt): string {
  const params = f.params.map((p) => declarator(p)).join(', ') || 'void';
  const out = [typeToString(f.type.returnType, `${f.name}(${params})`)];
  block(body, out, '');
  return out.join('\n');
}
