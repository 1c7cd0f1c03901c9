// The IMP type checker: scopes, immutability of parameters, and the typing
// of every expression (no implicit conversions; bit-vector widths must match).
import { TarsierError } from '../common/errors.js';
import type { SourceLocation } from '../common/location.js';
import { floatArity, floatBuiltinType } from './float-builtins.js';
import {
  type BvWidth,
  type Expr,
  type Goal,
  type ImpProgram,
  type ImpType,
  type Procedure,
  type Stmt,
  type VarDecl,
  boolType,
  intType,
  realType,
  typeEquals,
  typeToString,
} from './ast.js';

export interface ImpDiagnostic {
  readonly message: string;
  readonly loc: SourceLocation;
}

export type VarRole = 'global' | 'param' | 'return' | 'local';

export interface VarInfo {
  readonly decl: VarDecl;
  readonly role: VarRole;
}

/** The variables visible in one procedure (globals and its own). */
export type Scope = ReadonlyMap<string, VarInfo>;

export function procedureScope(program: ImpProgram, proc: Procedure): Map<string, VarInfo> {
  const scope = new Map<string, VarInfo>();
  for (const g of program.globals) scope.set(g.name, { decl: g, role: 'global' });
  for (const d of proc.params) scope.set(d.name, { decl: d, role: 'param' });
  for (const d of proc.returns) scope.set(d.name, { decl: d, role: 'return' });
  for (const d of proc.locals) scope.set(d.name, { decl: d, role: 'local' });
  return scope;
}

class TypeFailure extends Error {
  constructor(
    message: string,
    readonly loc: SourceLocation,
  ) {
    super(message);
  }
}

const GOAL_KIND = /^[A-Za-z_$][A-Za-z0-9_$.'#@]*(-[A-Za-z_$][A-Za-z0-9_$.'#@]*)*$/;

/** A goal annotation the printer writes and the parser reads back as it is. */
function wellFormedGoal(g: Goal): boolean {
  return GOAL_KIND.test(g.kind) && Number.isSafeInteger(g.id) && g.id >= 0;
}

function bvWidth(t: ImpType): BvWidth | undefined {
  return t.kind === 'bv' ? t.width : undefined;
}

/**
 * The type of a well-formed expression in a scope; throws a TypeFailure (via
 * typecheckImp) for an ill-typed one. Used by the VC generator too.
 */
export function typeOfExpr(e: Expr, scope: Scope, ctx: { allowOld: boolean } = { allowOld: true }): ImpType {
  const fail = (msg: string, at: SourceLocation = e.loc): never => {
    throw new TypeFailure(msg, at);
  };
  const sub = (x: Expr) => typeOfExpr(x, scope, ctx);
  switch (e.kind) {
    case 'bool_lit':
      return boolType;
    case 'int_lit':
      return intType;
    case 'real_lit':
      return realType;
    case 'bv_lit':
      return { kind: 'bv', width: e.width };
    case 'float_lit':
      return { kind: 'float', eb: e.eb, sb: e.sb };
    case 'rm_lit':
      return { kind: 'rmode' };
    case 'var': {
      const v = scope.get(e.name);
      if (!v) return fail(`unknown variable '${e.name}'`);
      return v.decl.type;
    }
    case 'unary': {
      const t = sub(e.arg);
      if (e.op === '!') {
        if (t.kind !== 'bool') fail(`'!' needs a bool operand, not ${typeToString(t)}`);
      } else if (e.op === '~') {
        if (t.kind !== 'bv') fail(`'~' needs a bit-vector operand, not ${typeToString(t)}`);
      } else if (t.kind !== 'int' && t.kind !== 'real' && t.kind !== 'bv' && t.kind !== 'float') {
        fail(`'-' needs an int, real, bit-vector or float operand, not ${typeToString(t)}`);
      }
      return t;
    }
    case 'binary': {
      const l = sub(e.left);
      const r = sub(e.right);
      const same = () => {
        if (!typeEquals(l, r)) fail(`operands of '${e.op}' have different types: ${typeToString(l)} and ${typeToString(r)}`);
      };
      switch (e.op) {
        case '<==>':
        case '==>':
        case '<==':
        case '||':
        case '&&':
          if (l.kind !== 'bool') fail(`'${e.op}' needs bool operands, not ${typeToString(l)}`, e.left.loc);
          if (r.kind !== 'bool') fail(`'${e.op}' needs bool operands, not ${typeToString(r)}`, e.right.loc);
          return boolType;
        case '==':
        case '!=':
          same();
          return boolType;
        case '<':
        case '<=':
        case '>':
        case '>=':
          same();
          if (l.kind === 'bv') fail(`'${e.op}' is not defined on bit-vectors: use the signed (slt, sle, sgt, sge) or unsigned (ult, ule, ugt, uge) comparison`);
          if (l.kind !== 'int' && l.kind !== 'real' && l.kind !== 'float') fail(`'${e.op}' needs int, real or float operands, not ${typeToString(l)}`);
          return boolType;
        case '+':
        case '-':
        case '*':
          same();
          if (l.kind !== 'int' && l.kind !== 'real' && l.kind !== 'bv') fail(`'${e.op}' needs int, real or bit-vector operands, not ${typeToString(l)}`);
          return l;
        case '/':
          same();
          if (l.kind === 'bv') fail(`'/' is not defined on bit-vectors: use sdiv (signed) or udiv (unsigned)`);
          if (l.kind !== 'int' && l.kind !== 'real') fail(`'/' needs int or real operands, not ${typeToString(l)}`);
          return l;
        case '%':
          same();
          if (l.kind === 'bv') fail(`'%' is not defined on bit-vectors: use srem (signed) or urem (unsigned)`);
          if (l.kind !== 'int') fail(`'%' needs int operands, not ${typeToString(l)}`);
          return l;
        case '|':
        case '^':
        case '&':
        case '<<':
          same();
          if (l.kind !== 'bv') fail(`'${e.op}' needs bit-vector operands, not ${typeToString(l)}`);
          return l;
      }
      return fail('unknown operator');
    }
    case 'app': {
      const floatArgs = floatArity(e.fn);
      if (floatArgs !== undefined) {
        if (e.args.length !== floatArgs) fail(`'${e.fn}' takes ${floatArgs} argument${floatArgs === 1 ? '' : 's'}, not ${e.args.length}`);
        return floatBuiltinType(e.fn, e.args.map(sub), fail);
      }
      const arity = e.fn === 'old' || /^(zext|sext|trunc|int2bv)|2int$|^to_/.test(e.fn) ? 1 : 2;
      if (e.args.length !== arity) fail(`'${e.fn}' takes ${arity} argument${arity === 1 ? '' : 's'}, not ${e.args.length}`);
      if (e.fn === 'old') {
        if (!ctx.allowOld) fail(`'old' is not allowed here`);
        return typeOfExpr(e.args[0], scope, { allowOld: false });
      }
      const ts = e.args.map(sub);
      const m = /^(zext|sext|trunc|int2bv)(\d+)$/.exec(e.fn);
      if (m) {
        const n = Number(m[2]) as BvWidth;
        if (m[1] === 'int2bv') {
          if (ts[0].kind !== 'int') fail(`'${e.fn}' needs an int argument, not ${typeToString(ts[0])}`);
        } else {
          const w = bvWidth(ts[0]);
          if (w === undefined) fail(`'${e.fn}' needs a bit-vector argument, not ${typeToString(ts[0])}`);
          else if (m[1] === 'trunc' ? w < n : w > n) {
            fail(`'${e.fn}' cannot ${m[1] === 'trunc' ? 'truncate' : 'extend'} a bv${w} to bv${n}`);
          }
        }
        return { kind: 'bv', width: n };
      }
      switch (e.fn) {
        case 'ubv2int':
        case 'sbv2int':
          if (ts[0].kind !== 'bv') fail(`'${e.fn}' needs a bit-vector argument, not ${typeToString(ts[0])}`);
          return intType;
        case 'to_real':
          if (ts[0].kind !== 'int') fail(`'to_real' needs an int argument, not ${typeToString(ts[0])}`);
          return realType;
        case 'to_int':
          if (ts[0].kind !== 'real') fail(`'to_int' needs a real argument, not ${typeToString(ts[0])}`);
          return intType;
        default: {
          // Two bit-vectors of one width.
          if (ts[0].kind !== 'bv') fail(`'${e.fn}' needs bit-vector arguments, not ${typeToString(ts[0])}`);
          if (!typeEquals(ts[0], ts[1])) fail(`arguments of '${e.fn}' have different types: ${typeToString(ts[0])} and ${typeToString(ts[1])}`);
          return /^[su](lt|le|gt|ge)$/.test(e.fn) ? boolType : ts[0];
        }
      }
    }
    case 'ite': {
      const c = sub(e.cond);
      if (c.kind !== 'bool') fail(`the condition of 'if' must be bool, not ${typeToString(c)}`, e.cond.loc);
      const a = sub(e.then);
      const b = sub(e.else);
      if (!typeEquals(a, b)) fail(`the branches of 'if' have different types: ${typeToString(a)} and ${typeToString(b)}`);
      return a;
    }
    case 'select': {
      const m = sub(e.map);
      if (m.kind !== 'map') return fail(`only maps can be indexed, not ${typeToString(m)}`);
      const i = sub(e.index);
      if (!typeEquals(i, m.key)) fail(`index of type ${typeToString(i)} for a map with keys of type ${typeToString(m.key)}`, e.index.loc);
      return m.value;
    }
    case 'store': {
      const m = sub(e.map);
      if (m.kind !== 'map') return fail(`only maps can be updated, not ${typeToString(m)}`);
      const i = sub(e.index);
      if (!typeEquals(i, m.key)) fail(`index of type ${typeToString(i)} for a map with keys of type ${typeToString(m.key)}`, e.index.loc);
      const v = sub(e.value);
      if (!typeEquals(v, m.value)) fail(`value of type ${typeToString(v)} stored in a map with values of type ${typeToString(m.value)}`, e.value.loc);
      return m;
    }
  }
}

/** Every type error of a program, in source order (empty when well-typed). */
export function typecheckImp(program: ImpProgram): ImpDiagnostic[] {
  const diags: ImpDiagnostic[] = [];
  const report = (message: string, loc: SourceLocation) => diags.push({ message, loc });
  const globals = new Set<string>();
  for (const g of program.globals) {
    if (globals.has(g.name)) report(`'${g.name}' is declared twice`, g.loc);
    globals.add(g.name);
  }
  const procs = new Map<string, Procedure>();
  for (const p of program.procedures) {
    if (procs.has(p.name)) report(`procedure '${p.name}' is declared twice`, p.loc);
    else procs.set(p.name, p);
  }
  for (const proc of program.procedures) {
    const seen = new Set<string>();
    for (const d of [...proc.params, ...proc.returns, ...proc.locals]) {
      if (seen.has(d.name)) report(`'${d.name}' is declared twice in procedure '${proc.name}'`, d.loc);
      else if (globals.has(d.name)) report(`'${d.name}' hides the global variable of that name`, d.loc);
      seen.add(d.name);
    }
    const full = procedureScope(program, proc);
    const pre = new Map([...full].filter(([, v]) => v.role === 'global' || v.role === 'param'));
    const contract = new Map([...full].filter(([, v]) => v.role !== 'local'));
    const expectBool = (e: Expr, scope: Scope, what: string, allowOld: boolean) => {
      try {
        const t = typeOfExpr(e, scope, { allowOld });
        if (t.kind !== 'bool') report(`${what} must be bool, not ${typeToString(t)}`, e.loc);
      } catch (err) {
        if (err instanceof TypeFailure) report(err.message, err.loc);
        else throw err;
      }
    };
    const typeOf = (e: Expr): ImpType | undefined => {
      try {
        return typeOfExpr(e, full);
      } catch (err) {
        if (err instanceof TypeFailure) report(err.message, err.loc);
        else throw err;
        return undefined;
      }
    };
    for (const r of proc.requires) expectBool(r, pre, 'a precondition', false);
    for (const r of proc.ensures) expectBool(r, contract, 'a postcondition', true);
    const writable = (name: string, loc: SourceLocation): ImpType | undefined => {
      const v = full.get(name);
      if (!v) {
        report(`unknown variable '${name}'`, loc);
        return undefined;
      }
      if (v.role === 'param') {
        report(`parameter '${name}' cannot be assigned (parameters are immutable; copy it into a local)`, loc);
        return undefined;
      }
      return v.decl.type;
    };
    const stmts = (ss: readonly Stmt[]) => ss.forEach(stmt);
    const stmt = (s: Stmt): void => {
      switch (s.kind) {
        case 'skip':
          return;
        case 'assign': {
          const t = writable(s.target, s.loc);
          const v = typeOf(s.value);
          if (t && v && !typeEquals(t, v)) report(`cannot assign a ${typeToString(v)} to '${s.target}' of type ${typeToString(t)}`, s.value.loc);
          return;
        }
        case 'havoc':
          writable(s.target, s.loc);
          return;
        case 'assume':
        case 'assert':
          expectBool(s.cond, full, `the condition of '${s.kind}'`, true);
          if (s.kind === 'assert' && s.goal && !wellFormedGoal(s.goal)) report(`goal '${s.goal.kind} ${s.goal.id}' cannot be written in IMP (a kind of names joined by '-', a number from 0)`, s.loc);
          return;
        case 'if':
          expectBool(s.cond, full, `the condition of 'if'`, true);
          stmts(s.then);
          stmts(s.else);
          return;
        case 'while':
          expectBool(s.cond, full, `the condition of 'while'`, true);
          for (const i of s.invariants) expectBool(i, full, 'an invariant', true);
          for (const c of s.candidates) expectBool(c, full, 'a candidate invariant', true);
          stmts(s.body);
          return;
        case 'block':
          stmts(s.body);
          return;
        case 'call': {
          const callee = procs.get(s.proc);
          const argTypes = s.args.map(typeOf);
          if (!callee) {
            report(`unknown procedure '${s.proc}'`, s.loc);
            return;
          }
          if (s.args.length !== callee.params.length) {
            report(`'${s.proc}' takes ${callee.params.length} argument(s), not ${s.args.length}`, s.loc);
          } else {
            s.args.forEach((a, k) => {
              const t = argTypes[k];
              const want = callee.params[k].type;
              if (t && !typeEquals(t, want)) report(`argument ${k + 1} of '${s.proc}' must be ${typeToString(want)}, not ${typeToString(t)}`, a.loc);
            });
          }
          if (s.targets.length !== callee.returns.length) {
            report(`'${s.proc}' returns ${callee.returns.length} value(s), but ${s.targets.length} target(s) are given`, s.loc);
          } else {
            const dup = new Set<string>();
            s.targets.forEach((x, k) => {
              if (dup.has(x)) report(`'${x}' is assigned twice by one call`, s.loc);
              dup.add(x);
              const t = writable(x, s.loc);
              const want = callee.returns[k].type;
              if (t && !typeEquals(t, want)) report(`result ${k + 1} of '${s.proc}' is ${typeToString(want)}, but '${x}' is ${typeToString(t)}`, s.loc);
            });
          }
          return;
        }
      }
    };
    if (proc.body) stmts(proc.body);
  }
  return diags.sort((a, b) => a.loc.line - b.loc.line || a.loc.column - b.loc.column);
}

/** Throws the first type error as a TarsierError (`file:line:column: error: ...`). */
export function checkImp(program: ImpProgram): void {
  const diags = typecheckImp(program);
  if (diags.length > 0) {
    const d = diags[0];
    throw new TarsierError('imp-type', d.message, { file: d.loc.file, line: d.loc.line, column: d.loc.column });
  }
}
