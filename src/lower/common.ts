// What the modules of the lowering share: the frame of an inlined call, constants, and small helpers on C types and expressions.
import type { Expr as CExpr, FunctionDecl } from '../c/ast.js';
import type { CType } from '../c/types.js';
import { unqualified } from '../c/types.js';
import { type Root, type Val } from './memory.js';

export const VOID: Val = { k: 'void' };

/** Root name of the place a pointer with no known target designates (while pointer targets are being collected). */
export const NOWHERE = '$nowhere';

export interface Frame {
  readonly fn: FunctionDecl;
  readonly label: string;
  readonly env: Map<number, Root>;
  retFlag?: string;
  readonly retRoot?: Root;
  /** Tracked objects that end when the call returns (parameters, alloca blocks). */
  readonly dying: Root[];
}

export interface LoopCtx {
  /** Flag set by `break` (undefined until a break needs it). */
  brk?: string;
  /** Flag set by `continue`; undefined for a switch (continue goes to the enclosing loop). */
  cont?: string;
  readonly isSwitch: boolean;
}

/** Arrays up to this many elements are zero-filled element by element; bigger ones start havocked. */
export const ZERO_FILL_LIMIT = 256;

/** Base id of the C library's objects (the streams `fopen` returns, the strings of `strerror`): opaque, the model does not look into them. */
export const LIBRARY_OBJECT_ID = 0x3fffffff;

/** The library functions that return pointers to such objects. */
export const LIBRARY_OBJECT_FUNCTIONS = new Set(['fopen', 'strerror']);

/** Base id of the pointers made from a nonzero integer (`(void *)0x1000`): the offset holds the integer; no object is there. */
export const INTEGER_ADDRESS_ID = 0x3ffffffe;

export const ALLOCATORS = new Set(['malloc', 'calloc', 'realloc', 'alloca', '__builtin_alloca']);

export function stripCasts(e: CExpr | undefined): CExpr | undefined {
  let x = e;
  while (x && (x.kind === 'ImplicitCast' || x.kind === 'Cast')) x = x.operand;
  return x;
}

export function stripPointer(t: CType): CType {
  const u = unqualified(t);
  return u.kind === 'pointer' ? u.pointee : u;
}
