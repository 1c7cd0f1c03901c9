// Prints IMP in its concrete syntax; parseImp(printImp(p)) equals p up to locations.
import type { BinaryOp, Expr, ImpProgram, Procedure, Stmt, VarDecl } from './ast.js';
import { typeToString } from './ast.js';
import { floatLiteralText } from './float-builtins.js';

const LEVEL: Record<BinaryOp, number> = {
  '<==>': 1,
  '==>': 2,
  '<==': 2,
  '||': 3,
  '&&': 4,
  '==': 5,
  '!=': 5,
  '<': 5,
  '<=': 5,
  '>': 5,
  '>=': 5,
  '|': 6,
  '^': 7,
  '&': 8,
  '<<': 9,
  '+': 10,
  '-': 10,
  '*': 11,
  '/': 11,
  '%': 11,
};
const UNARY_LEVEL = 12;
const POSTFIX_LEVEL = 13;
const ATOM_LEVEL = 14;

function level(e: Expr): number {
  switch (e.kind) {
    case 'binary':
      return LEVEL[e.op];
    case 'unary':
      return UNARY_LEVEL;
    case 'select':
    case 'store':
      return POSTFIX_LEVEL;
    default:
      return ATOM_LEVEL;
  }
}

function paren(s: string, yes: boolean): string {
  return yes ? `(${s})` : s;
}

export function printExpr(e: Expr): string {
  switch (e.kind) {
    case 'bool_lit':
      return e.value ? 'true' : 'false';
    case 'int_lit':
      return e.value.toString();
    case 'real_lit':
      return e.value;
    case 'bv_lit':
      return `${e.value}bv${e.width}`;
    case 'float_lit':
      return floatLiteralText(e, e.bits);
    case 'rm_lit':
      return e.mode;
    case 'var':
      return e.name;
    case 'unary': {
      const inner = printExpr(e.arg);
      return e.op + paren(inner, level(e.arg) < UNARY_LEVEL || e.arg.kind === 'unary');
    }
    case 'binary': {
      const L = LEVEL[e.op];
      const ll = level(e.left);
      const rl = level(e.right);
      let leftParen: boolean;
      let rightParen: boolean;
      if (e.op === '==>') {
        leftParen = ll <= L;
        rightParen = rl < L || (rl === L && (e.right as { op?: string }).op !== '==>');
      } else if (L === 5) {
        leftParen = ll <= L;
        rightParen = rl <= L;
      } else {
        leftParen = ll < L || (ll === L && e.op === '<==' && (e.left as { op?: string }).op !== '<==');
        rightParen = rl <= L;
      }
      return `${paren(printExpr(e.left), leftParen)} ${e.op} ${paren(printExpr(e.right), rightParen)}`;
    }
    case 'app':
      return `${e.fn}(${e.args.map(printExpr).join(', ')})`;
    case 'ite':
      return `(if ${printExpr(e.cond)} then ${printExpr(e.then)} else ${printExpr(e.else)})`;
    case 'select':
      return `${paren(printExpr(e.map), level(e.map) < POSTFIX_LEVEL)}[${printExpr(e.index)}]`;
    case 'store':
      return `${paren(printExpr(e.map), level(e.map) < POSTFIX_LEVEL)}[${printExpr(e.index)} := ${printExpr(e.value)}]`;
  }
}

function decl(d: VarDecl): string {
  return `${d.name}: ${typeToString(d.type)}`;
}

export function printStmts(stmts: readonly Stmt[], indent: string, out: string[]): void {
  for (const s of stmts) printStmt(s, indent, out);
}

export function printStmt(s: Stmt, indent: string, out: string[]): void {
  const inner = indent + '  ';
  switch (s.kind) {
    case 'skip':
      out.push(`${indent}skip;`);
      return;
    case 'assign':
      out.push(`${indent}${s.target} := ${printExpr(s.value)};`);
      return;
    case 'havoc':
      out.push(`${indent}${s.target} := havoc;`);
      return;
    case 'assume':
      out.push(`${indent}assume ${printExpr(s.cond)};`);
      return;
    case 'assert':
      out.push(`${indent}assert ${s.goal ? `{:goal ${s.goal.kind} ${s.goal.id}} ` : ''}${printExpr(s.cond)};`);
      return;
    case 'call':
      out.push(`${indent}(${s.targets.join(', ')}) := call ${s.proc}(${s.args.map(printExpr).join(', ')});`);
      return;
    case 'block':
      out.push(`${indent}{`);
      printStmts(s.body, inner, out);
      out.push(`${indent}}`);
      return;
    case 'if':
      out.push(`${indent}if (${printExpr(s.cond)}) {`);
      printStmts(s.then, inner, out);
      if (s.else.length > 0) {
        out.push(`${indent}} else {`);
        printStmts(s.else, inner, out);
      }
      out.push(`${indent}}`);
      return;
    case 'while':
      out.push(`${indent}while (${printExpr(s.cond)})`);
      for (const i of s.invariants) out.push(`${inner}invariant ${printExpr(i)};`);
      for (const c of s.candidates) out.push(`${inner}candidate ${printExpr(c)};`);
      out.push(`${indent}{`);
      printStmts(s.body, inner, out);
      out.push(`${indent}}`);
      return;
  }
}

export function printProcedure(p: Procedure): string {
  const out: string[] = [];
  const ret = p.returns.length > 0 ? ` returns (${p.returns.map(decl).join(', ')})` : '';
  out.push(`procedure ${p.name}(${p.params.map(decl).join(', ')})${ret}`);
  for (const r of p.requires) out.push(`  requires ${printExpr(r)};`);
  for (const e of p.ensures) out.push(`  ensures ${printExpr(e)};`);
  if (p.body === undefined) {
    out[out.length - 1] += ';';
    return out.join('\n');
  }
  out.push('{');
  for (const l of p.locals) out.push(`  var ${decl(l)};`);
  printStmts(p.body, '  ', out);
  out.push('}');
  return out.join('\n');
}

export function printImp(p: ImpProgram): string {
  const parts: string[] = [];
  if (p.globals.length > 0) parts.push(p.globals.map((g) => `var ${decl(g)};`).join('\n'));
  for (const q of p.procedures) parts.push(printProcedure(q));
  return parts.join('\n\n') + '\n';
}
