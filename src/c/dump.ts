/**
 * Text renderings of a parsed program for `tarsier parse --dump`: the typed
 * AST (one node per line, indented), the types with sizes and layouts, and
 * the loops. Deterministic: source order throughout.
 */
import { formatLocation, type SourceLocation } from '../common/location.js';
import type { BlockItem, CProgram, Expr, Initializer, Stmt } from './ast.js';
import { definedFunctions, listLoops } from './index.js';
import { alignOf, sizeOf, typeToString, type CType, type RecordInfo, type EnumInfo } from './types.js';

function at(loc: SourceLocation): string {
  return `${loc.line}:${loc.column}`;
}

function exprLabel(e: Expr): string {
  switch (e.kind) {
    case 'IntegerLiteral': return `IntegerLiteral ${e.value}`;
    case 'FloatLiteral': return `FloatLiteral ${e.text}`;
    case 'StringLiteral': return `StringLiteral ${JSON.stringify(String.fromCharCode(...e.units.slice(0, 40)))}`;
    case 'Identifier': return `Identifier ${e.name} #${e.decl.id}`;
    case 'Unary': return `Unary ${e.op}`;
    case 'IncDec': return `IncDec ${e.prefix ? 'prefix' : 'postfix'} ${e.op}`;
    case 'Binary': return `Binary ${e.op}`;
    case 'Assign': return `Assign ${e.op}${e.computationType ? ` in '${typeToString(e.computationType)}'` : ''}`;
    case 'ImplicitCast': return `ImplicitCast ${e.castKind}`;
    case 'Member': return `Member ${e.arrow ? '->' : '.'}${e.name}`;
    case 'SizeOf': return `SizeOf ${e.operator} = ${e.value ?? 'VLA'}`;
    case 'OffsetOf': return `OffsetOf = ${e.value}`;
    case 'BuiltinCall': return `BuiltinCall ${e.name}`;
    case 'Call': return `Call${e.function ? ` ${e.function.name}` : ''}${e.function?.builtin ? ` [builtin ${e.function.builtin.kind}]` : ''}`;
    default: return e.kind;
  }
}

/** The typed AST, one node per line: `KIND details 'type' @line:column`. */
export function dumpAst(program: CProgram): string[] {
  const out: string[] = [];
  const line = (depth: number, text: string) => out.push('  '.repeat(depth) + text);
  const expr = (e: Expr, d: number): void => {
    line(d, `${exprLabel(e)} '${typeToString(e.type)}' @${at(e.loc)}`);
    switch (e.kind) {
      case 'Unary': case 'IncDec': case 'Cast': case 'ImplicitCast': case 'VaArg': expr(e.operand, d + 1); break;
      case 'Binary': expr(e.left, d + 1); expr(e.right, d + 1); break;
      case 'Assign': expr(e.target, d + 1); expr(e.value, d + 1); break;
      case 'Conditional': expr(e.condition, d + 1); if (e.then) expr(e.then, d + 1); expr(e.else, d + 1); break;
      case 'Comma': expr(e.left, d + 1); expr(e.right, d + 1); break;
      case 'Call': expr(e.callee, d + 1); e.args.forEach((a) => expr(a, d + 1)); break;
      case 'BuiltinCall': e.args.forEach((a) => expr(a, d + 1)); break;
      case 'Member': expr(e.object, d + 1); break;
      case 'Index': expr(e.base, d + 1); expr(e.index, d + 1); break;
      case 'SizeOf': if (e.argument.kind !== 'TypeName') expr(e.argument, d + 1); break;
      case 'CompoundLiteral': init(e.init, d + 1); break;
      case 'StatementExpr': stmt(e.body, d + 1); break;
      default: break;
    }
  };
  const init = (i: Initializer, d: number): void => {
    if (i.kind !== 'InitList') return expr(i, d);
    line(d, `InitList '${typeToString(i.type)}' @${at(i.loc)}`);
    for (const it of i.items) {
      line(d + 1, `[${it.target}]`);
      init(it.value, d + 2);
    }
  };
  const stmt = (s: Stmt | BlockItem, d: number): void => {
    const head = `${s.kind} @${at(s.loc)}`;
    switch (s.kind) {
      case 'Compound': line(d, head); s.items.forEach((i) => stmt(i, d + 1)); break;
      case 'DeclStmt':
        line(d, head);
        for (const dc of s.declaration.declarators) {
          line(d + 1, `${dc.decl.kind} ${dc.decl.name} #${dc.decl.id} '${typeToString(dc.decl.type)}' @${at(dc.decl.loc)}`);
          if (dc.init) init(dc.init, d + 2);
        }
        break;
      case 'ExprStmt': line(d, head); expr(s.expr, d + 1); break;
      case 'If': line(d, head); expr(s.condition, d + 1); stmt(s.then, d + 1); if (s.else) stmt(s.else, d + 1); break;
      case 'While': line(d, head); expr(s.condition, d + 1); stmt(s.body, d + 1); break;
      case 'DoWhile': line(d, head); stmt(s.body, d + 1); expr(s.condition, d + 1); break;
      case 'For':
        line(d, head);
        if (s.init) {
          if (s.init.kind === 'Declaration') stmt({ kind: 'DeclStmt', loc: s.init.loc, declaration: s.init }, d + 1);
          else expr(s.init, d + 1);
        }
        if (s.condition) expr(s.condition, d + 1);
        if (s.step) expr(s.step, d + 1);
        stmt(s.body, d + 1);
        break;
      case 'Switch': line(d, head); expr(s.condition, d + 1); stmt(s.body, d + 1); break;
      case 'Case': line(d, `Case ${s.value}${s.last !== undefined ? ` ... ${s.last}` : ''} @${at(s.loc)}`); stmt(s.body, d + 1); break;
      case 'Default': line(d, head); stmt(s.body, d + 1); break;
      case 'Label': line(d, `Label ${s.name} @${at(s.loc)}`); stmt(s.body, d + 1); break;
      case 'Goto': line(d, `Goto ${s.label} @${at(s.loc)}`); break;
      case 'Return': line(d, head); if (s.value) expr(s.value, d + 1); break;
      default: line(d, head);
    }
  };
  for (const d of program.declarations) {
    if (d.kind === 'FunctionDefinition') {
      const f = d.decl;
      line(0, `FunctionDefinition ${f.name} #${f.id} '${typeToString(f.type)}' @${at(d.loc)}`);
      for (const p of f.params) line(1, `Param ${p.name} #${p.id} '${typeToString(p.type)}'`);
      stmt(d.body, 1);
    } else if (d.kind === 'Declaration') {
      for (const dc of d.declarators) {
        line(0, `${dc.decl.kind === 'Var' ? 'VarDecl' : dc.decl.kind === 'Function' ? 'FunctionDecl' : 'TypedefDecl'} ${dc.decl.name} #${dc.decl.id} '${typeToString(dc.decl.type)}' @${at(dc.loc)}`);
        if (dc.init) init(dc.init, 1);
      }
    } else line(0, `AsmDeclaration @${at(d.loc)}`);
  }
  return out;
}

function collectTypes(program: CProgram): { records: RecordInfo[]; enums: EnumInfo[] } {
  const records = new Map<number, RecordInfo>();
  const enums = new Map<number, EnumInfo>();
  const seen = new Set<CType>();
  const visit = (t: CType): void => {
    if (seen.has(t)) return;
    seen.add(t);
    switch (t.kind) {
      case 'pointer': visit(t.pointee); break;
      case 'array': visit(t.element); break;
      case 'function': visit(t.returnType); t.params.forEach((p) => visit(p.type)); break;
      case 'record':
        if (!records.has(t.record.id)) {
          records.set(t.record.id, t.record);
          t.record.fields?.forEach((f) => visit(f.type));
        }
        break;
      case 'enum': enums.set(t.info.id, t.info); break;
      default: break;
    }
  };
  for (const td of program.typedefs.values()) visit(td.type);
  for (const g of program.globals) visit(g.type);
  for (const f of program.functions) visit(f.type);
  for (const d of program.declarations) {
    if (d.kind === 'FunctionDefinition') {
      // Locals' types.
      const walk = (items: readonly BlockItem[]): void => {
        for (const i of items) {
          if (i.kind === 'DeclStmt') i.declaration.declarators.forEach((dc) => visit(dc.decl.type));
          if (i.kind === 'Compound') walk(i.items);
        }
      };
      walk(d.body.items);
    }
  }
  for (const r of program.records) records.set(r.id, r);
  for (const e of program.enums) enums.set(e.id, e);
  return {
    records: [...records.values()].sort((a, b) => a.id - b.id),
    enums: [...enums.values()].sort((a, b) => a.id - b.id),
  };
}

/** Types and sizes: records with layouts, enums, typedefs, globals. */
export function dumpTypes(program: CProgram): string[] {
  const dm = program.dataModel;
  const out: string[] = [`data model ${dm}`];
  const { records, enums } = collectTypes(program);
  for (const r of records) {
    const name = `${r.union ? 'union' : 'struct'} ${r.tag ?? `<anonymous#${r.id}>`}`;
    if (!r.fields) {
      out.push(`${name}: incomplete`);
      continue;
    }
    out.push(`${name}: size ${r.size} align ${r.align}${r.packed ? ' packed' : ''}`);
    for (const f of r.fields) {
      const bits = f.bitWidth !== undefined ? ` bits ${f.bitOffset}+${f.bitWidth}` : '';
      out.push(`  ${f.name ?? '<anonymous>'}: '${typeToString(f.type)}' offset ${f.offset}${bits}`);
    }
  }
  for (const e of enums) {
    out.push(`enum ${e.tag ?? `<anonymous#${e.id}>`}: underlying '${typeToString({ kind: 'integer', name: e.underlying })}'`);
    for (const c of e.constants ?? []) out.push(`  ${c.name} = ${c.value}`);
  }
  for (const td of [...program.typedefs.values()]) {
    const t = { ...td.type, typedefName: undefined } as CType;
    out.push(`typedef ${td.name}: '${typeToString(t)}' size ${sizeOf(t, dm) ?? '?'} align ${alignOf(t, dm)}`);
  }
  for (const g of program.globals) out.push(`global ${g.name}: '${typeToString(g.type)}' size ${sizeOf(g.type, dm) ?? '?'}`);
  return out;
}

/** `FILE:LINE:COLUMN: KEYWORD in FUNCTION` per loop. */
export function dumpLoops(program: CProgram): string[] {
  return listLoops(program).map((l) => `${formatLocation(l.loc)}: ${l.keyword} in ${l.function}`);
}

/** The default summary of `tarsier parse`. */
export function summary(program: CProgram): string[] {
  const fns = definedFunctions(program);
  const loops = listLoops(program);
  const out = [
    `${program.file}: parsed (${program.dataModel}): ${fns.length} function${fns.length === 1 ? '' : 's'} defined, ${program.globals.length} global variable${program.globals.length === 1 ? '' : 's'}, ${loops.length} loop${loops.length === 1 ? '' : 's'}`,
  ];
  for (const f of fns) {
    const n = loops.filter((l) => l.function === f.name).length;
    out.push(`  function ${f.name} at ${formatLocation(f.definitionLoc ?? f.loc)}${n ? `: ${n} loop${n === 1 ? '' : 's'}` : ''}`);
  }
  for (const l of loops) out.push(`  loop ${l.keyword} at ${formatLocation(l.loc)} in ${l.function}`);
  const builtins = program.functions.filter((f) => f.builtin).map((f) => `${f.name} (${f.builtin!.kind})`).sort();
  if (builtins.length) out.push(`  verifier built-ins: ${builtins.join(', ')}`);
  return out;
}
