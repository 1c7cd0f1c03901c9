// Calls: inlining of defined functions (recursion cut at the depth bound), the
// __VERIFIER_ and C library functions the model knows, calls through function pointers.
// Methods of the Lowerer (lower.ts).
import type { Call, CompoundStmt, Expr as CExpr, FunctionDecl } from '../c/ast.js';
import { eliminateGotos } from '../c/goto-elimination.js';
import type { CType } from '../c/types.js';
import { isSignedKind, sameType, typeToString as cTypeToString, unqualified, integerKindName } from '../c/types.js';
import type { Expr, Stmt } from '../ivl/ast.js';
import { bvType, boolType } from '../ivl/ast.js';
import { app, assign, boolLit, bv, eq, havoc, ifs, ite, type L, orAll, un, v } from './imp-build.js';
import { type LValue, type Root, UnsupportedError, type Val, intKindOf, intWidth } from './memory.js';
import { LIBRARY_FUNCTIONS } from './library.js';
import { INPUT_FUNCTIONS } from './input.js';
import { isThreadFunction } from './threads.js';
import { VOID, type Frame, LIBRARY_OBJECT_ID, ALLOCATORS, stripCasts, stripPointer } from './common.js';
import type { Lowerer } from './lower.js';

/** Budget of inlined function bodies: deeper recursion is cut (as at the depth bound) once it is spent. */
const MAX_INSTANCES = 2000;

/** Base ids of function pointers (above every object region's id). */
const FUNCTION_IDS = 0x40000000;

const ABORTING = new Set(['abort', 'exit', '_exit', '_Exit', '__assert_fail', '__assert_perror_fail', '__assert', 'assert']);

/** The failure functions of <assert.h>: they abort; they are not the error function of unreach-call. */
const ASSERT_FAILURES = new Set(['__assert_fail', '__assert_perror_fail', '__assert', 'assert']);

/**
 * C library output functions: they only write to a stream, so they change no
 * program state the properties look at. Value: the index of the format
 * argument (printf family), or -1.
 */
const OUTPUT_FUNCTIONS = new Map<string, number>([
  ['printf', 0],
  ['fprintf', 1],
  ['dprintf', 1],
  ['puts', -1],
  ['fputs', -1],
  ['putchar', -1],
  ['putc', -1],
  ['fputc', -1],
  ['fflush', -1],
  ['perror', -1],
]);

/**
 * Functions that only let time pass (`sleep`, `usleep`): no effect on the
 * program's state; their result is any value of its type (sleep returns the
 * seconds not slept when a signal interrupts it, usleep 0 or -1).
 */
const WAITING_FUNCTIONS = new Set(['sleep', 'usleep']);

/** A string literal or `__func__`-like char array argument (possibly converted to a pointer). */
function isStringArg(e: CExpr): boolean {
  const x = stripCasts(e)!;
  if (x.kind === 'StringLiteral') return true;
  if (x.kind === 'Identifier' && x.decl.kind === 'Var') {
    const t = unqualified(x.decl.type);
    return t.kind === 'array' && intKindOf(t.element) !== undefined && /^__(func|FUNCTION|PRETTY_FUNCTION)__$/.test(x.name);
  }
  return false;
}

/** The asserted expression's text of a call of `__assert_fail("x > 0", ...)`, quoted, with a space after; empty when the call has none. */
function assertedText(e: Call): string {
  const a = e.args[0] && stripCasts(e.args[0]);
  return a?.kind === 'StringLiteral' ? `'${String.fromCharCode(...a.units.map(Number))}' ` : '';
}

export class CallLowering {
  /** Inlines a call of a defined function; returns its result. */
  inline(this: Lowerer, fn: FunctionDecl, args: Val[], loc: L, cutLoc: L): Val {
    const active = this.frames.filter((f) => f.fn === fn).length;
    const retType = unqualified(fn.type.returnType);
    // Inside the entry of a measure check, calls of measured functions are summarised.
    const measured = this.entryArgs !== undefined && this.frames.length > 0 && this.options.summaries?.measures?.has(fn.name) === true;
    if (measured || active >= this.depth || (active > 0 && this.instances >= MAX_INSTANCES)) {
      if (!measured && active < this.depth) this.inliningBudgetSpent = true;
      return this.notInlined(fn, args, loc, cutLoc, measured, `depth ${this.depth}, ${MAX_INSTANCES} inlined bodies at most`);
    }
    this.instances++;
    const n = (this.instanceCount.get(fn.name) ?? 0) + 1;
    this.instanceCount.set(fn.name, n);
    const label = n === 1 ? fn.name : `${fn.name}#${n}`;
    const env = new Map<number, Root>();
    const retRoot = retType.kind === 'void' ? undefined : this.makeRoot(`$ret@${label}`, retType, loc);
    const frame: Frame = { fn, label, env, retRoot, dying: [] };
    fn.params.forEach((p, i) => {
      const root = this.makeRoot(`${p.name}@${label}`, p.type, p.loc);
      env.set(p.id, root);
      if (this.born(root, p.loc)) frame.dying.push(root);
      this.recordVariable(p.name, fn.name, p.loc, root);
      if (i < args.length) this.store({ type: p.type, alts: [{ root, path: [] }] }, args[i], loc);
      else this.havocObject(root, loc);
    });
    this.frames.push(frame);
    const savedLoops = this.loops.splice(0);
    const savedStmtLoc = this.stmtLoc;
    let body: Stmt[];
    try {
      [body] = this.buffer(() => this.lowerBlock(this.bodyOf(fn).items));
    } finally {
      this.frames.pop();
      this.loops.push(...savedLoops);
      this.stmtLoc = savedStmtLoc;
    }
    if (frame.retFlag) this.emit(assign(frame.retFlag, boolLit(false, loc), loc));
    this.emit(...body);
    this.endLifetimes(frame.dying, loc);
    if (!retRoot) return VOID;
    return this.readLv({ type: retType, alts: [{ root: retRoot, path: [] }] }, loc);
  }

  /** The body of a defined function without goto (once per function). */
  bodyOf(this: Lowerer, fn: FunctionDecl): CompoundStmt {
    let body = this.bodies.get(fn);
    if (!body) {
      body = eliminateGotos(fn.body!, this.dm, this.gotoIds);
      this.bodies.set(fn, body);
    }
    return body;
  }

  havocVal(this: Lowerer, t: CType, loc: L): Val {
    const root = this.makeRoot('$h', t, loc);
    this.havocObject(root, loc);
    return this.readLv({ type: t, alts: [{ root, path: [] }] }, loc);
  }

  call(this: Lowerer, e: Call, discard: boolean): Val {
    const fn = e.function;
    if (!fn) return this.callThroughPointer(e);
    const b = fn.builtin;
    if (b) {
      switch (b.kind) {
        case 'reach_error':
        case 'error': {
          // For other properties than unreach-call the error function is an
          // ordinary function: a body of the program's own (which may return)
          // is inlined below; only one it does not define ends the path.
          if (!this.passes.has('error-calls') && fn.body) break;
          for (const a of e.args) this.rv(a, true);
          if (this.passes.has('error-calls')) {
            this.goal('reach_error', boolLit(false, e.loc), e.loc, `call of ${fn.name}`, e.loc);
          }
          this.endOfRun(e.loc);
          this.assumeThat(boolLit(false, e.loc), e.loc, 'path-ends');
          return VOID;
        }
        case 'assume': {
          if (e.args.length !== 1) throw new UnsupportedError(`${fn.name} with ${e.args.length} arguments`, e.loc);
          this.assumeThat(this.cond(e.args[0]), e.loc, 'program');
          return VOID;
        }
        case 'nondet': {
          for (const a of e.args) this.rv(a, true);
          // With threads, the order of nondet calls is part of the schedule (replay).
          this.syncPoint(e.loc);
          const t = unqualified(b.type);
          if (t.kind === 'float') {
            const { name, val } = this.floatNondet(t.name, e.loc);
            this.map.addNondet({ loc: e.loc, closeParenLoc: e.rparenLoc, statementLoc: this.stmtLoc, callee: fn.name, function: this.fnName, cType: cTypeToString(t), width: t.name === 'float' ? 32 : 64, signed: false, isBool: false, isFloat: true, variable: name });
            return val;
          }
          const k = intKindOf(t);
          if (k === undefined) throw new UnsupportedError(`${fn.name} returning ${cTypeToString(t)}`, e.loc);
          const w = intWidth(k, this.dm, e.loc);
          const name = this.temp(bvType(w), '$nd');
          this.emit(havoc(name, e.loc));
          if (k === 'bool') this.assumeThat(app('ule', [v(name, e.loc), bv(1n, 8, e.loc)], e.loc), e.loc, 'c-value');
          this.map.addNondet({
            loc: e.loc,
            closeParenLoc: e.rparenLoc,
            statementLoc: this.stmtLoc,
            callee: fn.name,
            function: this.fnName,
            cType: integerKindName(k),
            width: w,
            signed: isSignedKind(k),
            isBool: k === 'bool',
            variable: name,
          });
          return { k: 'int', e: v(name, e.loc), ik: k };
        }
        case 'atomic_begin':
        case 'atomic_end':
          return this.atomicMarker(b.kind === 'atomic_begin', e.loc);
        case 'nondet_memory':
          throw new UnsupportedError(fn.name, e.loc);
        case 'assert':
          // `__VERIFIER_assert(c)` without a body of the program's: an assert() of c.
          if (!fn.body) return this.verifierAssert(e);
          break; // defined by the program: inlined below
        case 'atomic_function':
          break; // defined by the program: inlined below
      }
    }
    if (!fn.body) {
      if (isThreadFunction(fn.name)) return this.pthreadCall(e, fn.name);
      if (ABORTING.has(fn.name)) {
        if (ASSERT_FAILURES.has(fn.name) && this.passes.has('assertions')) {
          // At the assert() statement: the call is inside the macro's expansion, whose columns are cpp's.
          const at = this.statementExprOuter ?? this.stmtLoc;
          this.goal('assertion', boolLit(false, at), at, `assertion ${assertedText(e)}fails`, at);
        } else if (ASSERT_FAILURES.has(fn.name) && this.passes.has('error-calls')) {
          this.notes.add(`a failing assert() aborts the program (${fn.name} ends the path; it is not reach_error: the property assert checks assertions)`);
        }
        // Message strings (`__assert_fail("x > 0", __FILE__, ...)`) have no effect.
        for (const a of e.args) if (!isStringArg(a)) this.rv(a, true);
        this.endOfRun(e.loc);
        this.assumeThat(boolLit(false, e.loc), e.loc, 'path-ends');
        return unqualified(fn.type.returnType).kind === 'void' ? VOID : this.havocVal(fn.type.returnType, e.loc);
      }
      if (fn.name === 'free') {
        if (this.mem) return this.free(e);
        // Memory safety is not the property checked: free only ends the object's lifetime.
        for (const a of e.args) this.rv(a, true);
        return VOID;
      }
      if (OUTPUT_FUNCTIONS.has(fn.name)) return this.output(e, fn.name, OUTPUT_FUNCTIONS.get(fn.name)!);
      if (INPUT_FUNCTIONS.has(fn.name)) return this.input(e, fn.name);
      if ((fn.name === 'fopen' || fn.name === 'fclose') && !this.mem) return this.stream(e, fn.name);
      if (fn.name === 'strerror') return this.libraryString(e);
      if (WAITING_FUNCTIONS.has(fn.name)) {
        for (const a of e.args) this.rv(a, true);
        return unqualified(fn.type.returnType).kind === 'void' ? VOID : this.havocVal(fn.type.returnType, e.loc);
      }
      if (LIBRARY_FUNCTIONS.has(fn.name)) return this.library.call(fn.name, e.args, fn.type.returnType, e.loc);
      if (ALLOCATORS.has(fn.name)) {
        // Not converted to a typed pointer here: an untyped block (allocation's type void *).
        const allocated = this.allocation(e, this.allocTypes[this.allocTypes.length - 1] ?? fn.type.returnType);
        if (allocated) return allocated;
      }
      const fenv = fn.name === 'fesetround' || fn.name === 'fegetround' ? this.roundingCall(fn.name, e.args, e.loc) : undefined;
      const math = fenv ?? this.mathCall(fn.name, e.args, fn.type.returnType, e.loc);
      if (math) return math;
      throw new UnsupportedError(`call of undefined function '${fn.name}'`, e.loc);
    }
    if (fn.type.variadic) throw new UnsupportedError(`variadic function '${fn.name}'`, e.loc);
    const args = e.args.map((a) => this.snapshot(this.rv(a), a.loc));
    void discard;
    // A __VERIFIER_atomic_ function runs without interruption (the rules).
    if (b?.kind === 'atomic_function' && this.threads) return this.atomically(e.loc, () => this.inline(fn, args, e.loc, e.rparenLoc));
    return this.inline(fn, args, e.loc, e.rparenLoc);
  }

  /**
   * `__VERIFIER_assert(c)` that the program does not define: under
   * `assertions`, as `assert(c)` (a goal; the run aborts where c is 0).
   * Otherwise no rule says what it does where c is 0 (it may report an
   * error, abort or return): a place where the model is not exact, never a
   * path that silently ends.
   */
  verifierAssert(this: Lowerer, e: Call): Val {
    if (e.args.length !== 1) throw new UnsupportedError(`${e.function!.name} with ${e.args.length} arguments`, e.loc);
    const c = this.cond(e.args[0]!);
    if (!this.passes.has('assertions')) {
      this.uncertain(c, e.loc, `${e.function!.name} of a false condition, a function the program does not define`);
      return VOID;
    }
    this.goal('assertion', c, e.loc, `assertion of ${e.function!.name} fails`, this.statementExprOuter ?? this.stmtLoc);
    const [aborts] = this.buffer(() => {
      this.endOfRun(e.loc);
      this.assumeThat(boolLit(false, e.loc), e.loc, 'path-ends');
    });
    this.emit(ifs(un('!', c, e.loc), aborts, [], e.loc));
    return VOID;
  }

  /**
   * `fopen` (NULL or an opaque stream; the file may or may not open) and
   * `fclose` (no effect on memory, any result). Only where memory safety is
   * not the property: an access into a stream is then UNKNOWN (see deref).
   */
  stream(this: Lowerer, e: Call, name: 'fopen' | 'fclose'): Val {
    const loc = e.loc;
    for (const a of e.args) if (!isStringArg(a)) this.rv(a, true);
    const ret = unqualified(e.function!.type.returnType);
    if (name === 'fclose') return this.havocVal(ret, loc);
    if (ret.kind !== 'pointer') throw new UnsupportedError('fopen returning a non-pointer', loc);
    const opened = this.temp(boolType, '$fopen');
    this.emit(havoc(opened, loc));
    return { k: 'ptr', base: ite(v(opened, loc), bv(BigInt(LIBRARY_OBJECT_ID), 32, loc), bv(0n, 32, loc), loc), off: bv(0n, this.pw, loc), pointee: ret.pointee };
  }

  /**
   * `strerror(e)`: a string of the library (never NULL), an object the
   * model does not look into: reading it is UNKNOWN (see deref).
   */
  libraryString(this: Lowerer, e: Call): Val {
    if (e.args.length !== 1) throw new UnsupportedError(`strerror with ${e.args.length} arguments`, e.loc);
    this.rv(e.args[0]!, true);
    const ret = unqualified(e.function!.type.returnType);
    if (ret.kind !== 'pointer') throw new UnsupportedError('strerror returning a non-pointer', e.loc);
    return { k: 'ptr', base: bv(BigInt(LIBRARY_OBJECT_ID), 32, e.loc), off: bv(0n, this.pw, e.loc), pointee: ret.pointee };
  }

  /** The pointer value of a function (its own base id, offset 0). */
  functionPointer(this: Lowerer, fn: FunctionDecl, loc: L): Val {
    const id = FUNCTION_IDS + this.program.functions.indexOf(fn);
    return { k: 'ptr', base: bv(BigInt(id), 32, loc), off: bv(0n, this.pw, loc), pointee: fn.type };
  }

  /**
   * `fp(args)`: a case split over the functions whose address is taken and
   * whose type fits; a pointer to none of them is an invalid call (the run
   * crashes), one to a function without a body is not modelled.
   */
  callThroughPointer(this: Lowerer, e: Call): Val {
    const loc = e.loc;
    let callee = e.callee;
    for (;;) {
      if (callee.kind === 'ImplicitCast' && (callee.castKind === 'FunctionToPointer' || callee.castKind === 'NoOp')) callee = callee.operand;
      else if (callee.kind === 'Unary' && callee.op === '*' && stripPointer(callee.operand.type).kind === 'function') callee = callee.operand;
      else break;
    }
    const p = this.snapshot(this.rv(callee), loc);
    const ft = p.k === 'ptr' ? unqualified(p.pointee) : undefined;
    if (p.k !== 'ptr' || ft?.kind !== 'function') throw new UnsupportedError('call through a value that is not a function pointer', loc);
    const args = e.args.map((a) => this.snapshot(this.rv(a), a.loc));
    const retType = unqualified(ft.returnType);
    const res = retType.kind === 'void' ? undefined : this.makeRoot('$fpret', retType, loc);
    const resLv = res && { type: retType, alts: [{ root: res, path: [] }] };
    const fits = (f: FunctionDecl) =>
      f.type.params.length === ft.params.length && sameType(unqualified(f.type.returnType), retType) && !f.type.variadic;
    const isTarget = (f: FunctionDecl) => {
      const q = this.functionPointer(f, loc) as Extract<Val, { k: 'ptr' }>;
      return eq(p.base, q.base, loc);
    };
    const [invalid] = this.buffer(() => {
      const unmodelled = this.addressTaken.filter((f) => !f.body || !fits(f));
      this.uncertain(un('!', orAll(unmodelled.map(isTarget), loc), loc), loc, 'a call through a pointer to a function without a body or of another type');
      if (this.mem) {
        this.memGoal('valid-deref', boolLit(false, loc), loc, 'call through an invalid function pointer');
        this.assumeThat(boolLit(false, loc), loc, 'checked');
      } else this.undefinedUnless(boolLit(false, loc), loc, 'a call through an invalid function pointer');
    });
    let tail = invalid;
    for (const f of [...this.addressTaken].reverse().filter((x) => x.body && fits(x))) {
      const [body] = this.buffer(() => {
        const r = this.inline(f, args, loc, e.rparenLoc);
        if (resLv) this.store(resLv, r, loc);
      });
      tail = [ifs(isTarget(f), body, tail, loc)];
    }
    this.emit(...tail);
    return resLv ? this.readLv(resLv, loc) : VOID;
  }

  /**
   * A call of an output function: its arguments are evaluated for their side
   * effects, its result is arbitrary. `%n` (a write through a pointer) and a
   * format that is not a literal are not modelled.
   */
  output(this: Lowerer, e: Call, name: string, formatIndex: number): Val {
    if (formatIndex >= 0) {
      const f = stripCasts(e.args[formatIndex]);
      if (!f || f.kind !== 'StringLiteral') throw new UnsupportedError(`${name} with a format that is not a string literal`, e.loc);
      if (/%[-+ #0-9.*lhjztL]*n/.test(String.fromCharCode(...f.units.map(Number)))) throw new UnsupportedError(`${name} with %n`, e.loc);
    }
    for (const a of e.args) {
      if (isStringArg(a)) continue;
      // `%s` and the like read memory: not modelled where memory safety is checked.
      const t = unqualified(a.type);
      if (this.mem && t.kind === 'pointer' && intKindOf(t.pointee) !== undefined) {
        throw new UnsupportedError(`${name} reading memory through a pointer argument`, a.loc);
      }
      this.rv(a, true);
    }
    const ret = unqualified(e.function!.type.returnType);
    return ret.kind === 'void' ? VOID : this.havocVal(ret, e.loc);
  }

  /** Copies a value into temporaries so later side effects cannot change it. */
  snapshot(this: Lowerer, val: Val, loc: L): Val {
    const simple = (x: Expr) => x.kind === 'bv_lit' || x.kind === 'bool_lit';
    switch (val.k) {
      case 'int': {
        if (simple(val.e)) return val;
        const t = this.temp(bvType(intWidth(val.ik, this.dm, loc)));
        this.emit(assign(t, val.e, loc));
        return { ...val, e: v(t, loc) };
      }
      case 'float':
        return val.e.kind === 'float_lit' ? val : { ...val, e: this.tempOf(this.floatType(val.fk), val.e, loc) };
      case 'ptr': {
        const b = simple(val.base) ? val.base : this.tempOf(bvType(32), val.base, loc);
        const o = simple(val.off) ? val.off : this.tempOf(bvType(this.pw), val.off, loc);
        return { ...val, base: b, off: o };
      }
      case 'agg': {
        const root = this.makeRoot('$agg', val.lv.type, loc);
        const lv: LValue = { type: val.lv.type, alts: [{ root, path: [] }] };
        this.store(lv, val, loc);
        return { k: 'agg', lv };
      }
      default:
        return val;
    }
  }
}
