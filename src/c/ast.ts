/**
 * The typed AST of a C translation unit.
 *
 * - Every node has `loc`: file, line, column (1-based), offset and end in the
 *   ORIGINAL file (through line markers; offset is -1 where the original text
 *   is not at hand).
 * - Every expression has `type`, its C type after conversions; implicit
 *   conversions are explicit `ImplicitCast` nodes (array/function decay,
 *   integer promotions, usual arithmetic conversions, assignment conversions).
 *   Lvalue-to-rvalue conversion is not a node: `isLvalue(expr)` tells.
 * - Identifiers point at their declaration objects (`VarDecl`,
 *   `FunctionDecl`, `EnumConstantDecl`), shared by every use; each has a
 *   unique numeric `id`. Redeclarations of one file-scope entity resolve to
 *   one canonical object.
 * - Loops record the location of their keyword (`for`, `while`, `do`).
 */
import type { SourceLocation } from '../common/location.js';
import type { CType, DataModel, EnumInfo, FunctionType, RecordField, RecordInfo } from './types.js';

export type { SourceLocation };

// ---- declarations ---------------------------------------------------------

export type StorageClass = 'none' | 'static' | 'extern' | 'auto' | 'register' | 'typedef';

/** A variable or parameter (the entity: shared by every use and redeclaration). */
export interface VarDecl {
  readonly kind: 'Var';
  readonly id: number;
  readonly name: string;
  /** Completed as redeclarations are seen (`int a[]; int a[3];`). */
  type: CType;
  readonly storage: StorageClass;
  /** `file`: file scope; `block`: local (static locals too); `param`: a function parameter. */
  readonly scope: 'file' | 'block' | 'param';
  /** The initializer of the defining declaration, if any. */
  init?: Initializer;
  /** For a VLA, the evaluated size expressions of each variable dimension, outermost first. */
  vlaSizes?: Expr[];
  /** Location of the declared name in its first declaration. */
  readonly loc: SourceLocation;
  /** The name of the enclosing function for locals and parameters. */
  readonly functionName?: string;
  /** True when there is a definition (not just `extern`) for a file-scope variable. */
  defined?: boolean;
  /** A flag or temporary of the goto elimination (goto-elimination.ts): no C variable. */
  readonly synthetic?: true;
}

/** The `__VERIFIER_*` and `reach_error` built-ins (see the rules). */
export type VerifierBuiltin =
  | { readonly kind: 'reach_error' }
  | { readonly kind: 'error' } // __VERIFIER_error
  | { readonly kind: 'assume' }
  | { readonly kind: 'assert' } // __VERIFIER_assert when the program defines it the usual way; informational only
  | { readonly kind: 'nondet'; readonly suffix: string; readonly type: CType }
  | { readonly kind: 'nondet_memory' }
  | { readonly kind: 'atomic_begin' }
  | { readonly kind: 'atomic_end' }
  | { readonly kind: 'atomic_function' }; // a function named __VERIFIER_atomic_*

export interface FunctionDecl {
  readonly kind: 'Function';
  readonly id: number;
  readonly name: string;
  type: FunctionType;
  readonly storage: StorageClass;
  inline?: boolean;
  /** Parameters of the definition (or of the last prototype with names). */
  params: VarDecl[];
  body?: CompoundStmt;
  /** Location of the name in the first declaration. */
  readonly loc: SourceLocation;
  /** Start of the definition (its first token), when defined. */
  definitionLoc?: SourceLocation;
  /** Set for `__VERIFIER_*` / `reach_error`, whether the program declares or defines them. */
  readonly builtin?: VerifierBuiltin;
  /** Compiler built-ins (`__builtin_*`) used without declaration. */
  readonly implicit?: boolean;
}

export interface EnumConstantDecl {
  readonly kind: 'EnumConstant';
  readonly id: number;
  readonly name: string;
  readonly value: bigint;
  readonly type: CType;
  readonly loc: SourceLocation;
}

export interface TypedefDecl {
  readonly kind: 'Typedef';
  readonly id: number;
  readonly name: string;
  readonly type: CType;
  readonly loc: SourceLocation;
}

export type ValueDecl = VarDecl | FunctionDecl | EnumConstantDecl;

/** One declarator of a declaration as written (a redeclaration points at the canonical entity). */
export interface Declarator {
  readonly kind: 'Declarator';
  readonly loc: SourceLocation;
  readonly decl: VarDecl | FunctionDecl | TypedefDecl;
  /** The initializer written here, if any. */
  readonly init?: Initializer;
}

/** A declaration: `int x = 1, *p;`, `typedef ...;`, `struct s {...};`, a prototype. */
export interface Declaration {
  readonly kind: 'Declaration';
  /** From the first token (specifiers) to the `;`. */
  readonly loc: SourceLocation;
  readonly declarators: readonly Declarator[];
}

export interface FunctionDefinition {
  readonly kind: 'FunctionDefinition';
  readonly loc: SourceLocation;
  readonly decl: FunctionDecl;
  readonly body: CompoundStmt;
}

export interface AsmDeclaration {
  readonly kind: 'AsmDeclaration';
  readonly loc: SourceLocation;
  readonly text: string;
}

export type ExternalDeclaration = Declaration | FunctionDefinition | AsmDeclaration;

// ---- initializers ----------------------------------------------------------

export type Designator =
  | { readonly kind: 'field'; readonly name: string; readonly index: number; readonly loc: SourceLocation }
  | { readonly kind: 'index'; readonly index: bigint; readonly last?: bigint; readonly loc: SourceLocation };

/**
 * A brace-enclosed initializer in semantic form: for an aggregate type every
 * item names its direct subobject (`target`: field index or array index);
 * brace elision is resolved into nested InitLists and designators are
 * applied. Later items override earlier ones for the same target.
 */
export interface InitList {
  readonly kind: 'InitList';
  readonly loc: SourceLocation;
  readonly type: CType;
  readonly items: ReadonlyArray<{ readonly target: number; readonly value: Initializer }>;
}

/** An expression (converted to the target type) or a brace list. */
export type Initializer = Expr | InitList;

// ---- expressions -----------------------------------------------------------

interface ExprBase {
  readonly loc: SourceLocation;
  readonly type: CType;
}

export interface IntegerLiteral extends ExprBase {
  readonly kind: 'IntegerLiteral';
  readonly value: bigint;
  /** The literal as written (`42U`, `'a'`, `0x1fUL`). */
  readonly text: string;
}

export interface FloatLiteral extends ExprBase {
  readonly kind: 'FloatLiteral';
  readonly value: number;
  readonly text: string;
}

export interface StringLiteral extends ExprBase {
  readonly kind: 'StringLiteral';
  /** Code units of the string without the terminating 0 (bytes for narrow strings). */
  readonly units: readonly number[];
  readonly wide: boolean;
}

export interface Identifier extends ExprBase {
  readonly kind: 'Identifier';
  readonly name: string;
  readonly decl: ValueDecl;
}

export type UnaryOp = '+' | '-' | '!' | '~' | '&' | '*';

export interface Unary extends ExprBase {
  readonly kind: 'Unary';
  readonly op: UnaryOp;
  readonly operand: Expr;
}

/** `++x`, `x--`, ... (`type` is the operand's type). */
export interface IncDec extends ExprBase {
  readonly kind: 'IncDec';
  readonly op: '++' | '--';
  readonly prefix: boolean;
  readonly operand: Expr;
}

export type BinaryOp =
  | '*' | '/' | '%' | '+' | '-' | '<<' | '>>'
  | '<' | '>' | '<=' | '>=' | '==' | '!='
  | '&' | '^' | '|' | '&&' | '||';

/**
 * A binary operation. Arithmetic operands are already converted (usual
 * arithmetic conversions; shifts: each operand promoted on its own). Pointer
 * arithmetic keeps the pointer operand; the integer operand is not scaled.
 */
export interface Binary extends ExprBase {
  readonly kind: 'Binary';
  readonly op: BinaryOp;
  readonly left: Expr;
  readonly right: Expr;
}

export type AssignOp = '=' | '*=' | '/=' | '%=' | '+=' | '-=' | '<<=' | '>>=' | '&=' | '^=' | '|=';

/**
 * An assignment. For `=` the value is converted to the target's type. For
 * compound assignments `computationType` is the type the operation is done in
 * (C11 6.5.16.2): the target's value is converted to it, the value already is
 * (shifts: the value is promoted on its own; pointer += int: the value is the
 * promoted integer and `computationType` the pointer type); the result is
 * converted back to the target's type.
 */
export interface Assign extends ExprBase {
  readonly kind: 'Assign';
  readonly op: AssignOp;
  readonly target: Expr;
  readonly value: Expr;
  readonly computationType?: CType;
}

export interface Conditional extends ExprBase {
  readonly kind: 'Conditional';
  readonly condition: Expr;
  /** Undefined for GNU `a ?: b`. */
  readonly then?: Expr;
  readonly else: Expr;
  /** Location of the `?` (witness branching waypoints point at it). */
  readonly questionLoc: SourceLocation;
}

export interface Comma extends ExprBase {
  readonly kind: 'Comma';
  readonly left: Expr;
  readonly right: Expr;
}

export interface Call extends ExprBase {
  readonly kind: 'Call';
  /** Usually an ImplicitCast (FunctionToPointer) of an Identifier. */
  readonly callee: Expr;
  /** Converted to the parameter types (default argument promotions for `...`). */
  readonly args: readonly Expr[];
  /** The called function when the callee names one directly. */
  readonly function?: FunctionDecl;
  /** Location of the `)` that closes the argument list. */
  readonly rparenLoc: SourceLocation;
}

export interface Member extends ExprBase {
  readonly kind: 'Member';
  readonly object: Expr;
  readonly arrow: boolean;
  readonly name: string;
  /** The field; for a member of an anonymous struct/union, `path` lists the fields from the outer record inwards. */
  readonly field: RecordField;
  readonly path: readonly RecordField[];
}

/** `a[i]`: `base` is the pointer operand (decayed), `index` the integer operand, whichever way round they were written. */
export interface Index extends ExprBase {
  readonly kind: 'Index';
  readonly base: Expr;
  readonly index: Expr;
}

export interface Cast extends ExprBase {
  readonly kind: 'Cast';
  readonly operand: Expr;
}

export type CastKind =
  | 'ArrayToPointer'
  | 'FunctionToPointer'
  | 'IntegralCast'
  | 'IntegralToBoolean'
  | 'IntegralToFloating'
  | 'FloatingToIntegral'
  | 'FloatingToBoolean'
  | 'FloatingCast'
  | 'PointerToBoolean'
  | 'PointerToIntegral'
  | 'IntegralToPointer'
  | 'NullToPointer'
  | 'PointerCast'
  | 'ToVoid'
  | 'NoOp';

export interface ImplicitCast extends ExprBase {
  readonly kind: 'ImplicitCast';
  readonly castKind: CastKind;
  readonly operand: Expr;
}

/** `sizeof`/`_Alignof` of a type or expression; `value` undefined for VLAs. */
export interface SizeOf extends ExprBase {
  readonly kind: 'SizeOf';
  readonly operator: 'sizeof' | 'alignof';
  readonly argument: Expr | { readonly kind: 'TypeName'; readonly type: CType };
  readonly value?: bigint;
}

export interface OffsetOf extends ExprBase {
  readonly kind: 'OffsetOf';
  readonly value: bigint;
}

export interface CompoundLiteral extends ExprBase {
  readonly kind: 'CompoundLiteral';
  readonly init: InitList | Expr;
}

/** GNU `({ ...; e; })`: `type` is the type of the last expression statement (void otherwise). */
export interface StatementExpr extends ExprBase {
  readonly kind: 'StatementExpr';
  readonly body: CompoundStmt;
}

/** `__builtin_va_arg(ap, T)` */
export interface VaArg extends ExprBase {
  readonly kind: 'VaArg';
  readonly operand: Expr;
}

/** A call of a `__builtin_*` gcc knows without a declaration (`__builtin_expect`, `__builtin_abort`, ...). */
export interface BuiltinCall extends ExprBase {
  readonly kind: 'BuiltinCall';
  readonly name: string;
  readonly args: readonly Expr[];
  readonly rparenLoc: SourceLocation;
}

export type Expr =
  | IntegerLiteral
  | FloatLiteral
  | StringLiteral
  | Identifier
  | Unary
  | IncDec
  | Binary
  | Assign
  | Conditional
  | Comma
  | Call
  | Member
  | Index
  | Cast
  | ImplicitCast
  | SizeOf
  | OffsetOf
  | CompoundLiteral
  | StatementExpr
  | VaArg
  | BuiltinCall;

// ---- statements -------------------------------------------------------------

export interface CompoundStmt {
  readonly kind: 'Compound';
  /** From `{` to after `}`. */
  readonly loc: SourceLocation;
  readonly items: readonly BlockItem[];
  /** Made by the goto elimination: a group of statements that opens no scope. */
  readonly synthetic?: true;
}

export interface DeclStmt {
  readonly kind: 'DeclStmt';
  readonly loc: SourceLocation;
  readonly declaration: Declaration;
}

export interface ExprStmt {
  readonly kind: 'ExprStmt';
  readonly loc: SourceLocation;
  readonly expr: Expr;
}

export interface NullStmt {
  readonly kind: 'Null';
  readonly loc: SourceLocation;
}

export interface IfStmt {
  readonly kind: 'If';
  readonly loc: SourceLocation;
  readonly condition: Expr;
  readonly then: Stmt;
  readonly else?: Stmt;
  /** Made by the goto elimination (a test of its flags): no branch of the C program. */
  readonly synthetic?: true;
}

export interface WhileStmt {
  readonly kind: 'While';
  readonly loc: SourceLocation;
  /** The `while` keyword (same start as `loc`). */
  readonly keywordLoc: SourceLocation;
  readonly condition: Expr;
  readonly body: Stmt;
}

export interface DoWhileStmt {
  readonly kind: 'DoWhile';
  readonly loc: SourceLocation;
  /** The `do` keyword. */
  readonly keywordLoc: SourceLocation;
  /** The `while` keyword after the body. */
  readonly whileLoc: SourceLocation;
  readonly body: Stmt;
  readonly condition: Expr;
  /** Made by the goto elimination for a backward jump: no loop of the C program. */
  readonly synthetic?: true;
}

export interface ForStmt {
  readonly kind: 'For';
  readonly loc: SourceLocation;
  /** The `for` keyword. */
  readonly keywordLoc: SourceLocation;
  readonly init?: Declaration | Expr;
  readonly condition?: Expr;
  readonly step?: Expr;
  readonly body: Stmt;
}

export interface SwitchStmt {
  readonly kind: 'Switch';
  readonly loc: SourceLocation;
  /** Promoted controlling expression. */
  readonly condition: Expr;
  readonly body: Stmt;
  /** Every case and default label belonging to this switch, in source order. */
  readonly cases: Array<CaseStmt | DefaultStmt>;
}

export interface CaseStmt {
  readonly kind: 'Case';
  readonly loc: SourceLocation;
  /** The value converted to the promoted controlling type. */
  readonly value: bigint;
  /** GNU `case a ... b`. */
  readonly last?: bigint;
  readonly body: Stmt;
}

export interface DefaultStmt {
  readonly kind: 'Default';
  readonly loc: SourceLocation;
  readonly body: Stmt;
}

export interface LabelStmt {
  readonly kind: 'Label';
  readonly loc: SourceLocation;
  readonly name: string;
  readonly body: Stmt;
}

export interface GotoStmt {
  readonly kind: 'Goto';
  readonly loc: SourceLocation;
  readonly label: string;
}

export interface BreakStmt {
  readonly kind: 'Break';
  readonly loc: SourceLocation;
}

export interface ContinueStmt {
  readonly kind: 'Continue';
  readonly loc: SourceLocation;
}

export interface ReturnStmt {
  readonly kind: 'Return';
  readonly loc: SourceLocation;
  /** Converted to the function's return type (in a void function, gcc accepts a value: it is left as written). */
  readonly value?: Expr;
}

/** `__asm__ [volatile] (...)`: kept as text; engines treat it as unsupported. */
export interface AsmStmt {
  readonly kind: 'Asm';
  readonly loc: SourceLocation;
  readonly text: string;
}

export type Stmt =
  | CompoundStmt
  | ExprStmt
  | NullStmt
  | IfStmt
  | WhileStmt
  | DoWhileStmt
  | ForStmt
  | SwitchStmt
  | CaseStmt
  | DefaultStmt
  | LabelStmt
  | GotoStmt
  | BreakStmt
  | ContinueStmt
  | ReturnStmt
  | AsmStmt;

export type BlockItem = Stmt | DeclStmt;

export type LoopStmt = WhileStmt | DoWhileStmt | ForStmt;

// ---- the translation unit -----------------------------------------------------

export interface CProgram {
  /** The file name locations use for the main file. */
  readonly file: string;
  readonly dataModel: DataModel;
  /** External declarations in source order. */
  readonly declarations: readonly ExternalDeclaration[];
  /** Canonical functions (declared or defined), in order of first declaration. */
  readonly functions: readonly FunctionDecl[];
  /** Canonical file-scope variables, in order of first declaration. */
  readonly globals: readonly VarDecl[];
  /** Typedefs by name at file scope. */
  readonly typedefs: ReadonlyMap<string, TypedefDecl>;
  /** Every struct/union and enum the program declares (any scope), in order of first mention. */
  readonly records: readonly RecordInfo[];
  readonly enums: readonly EnumInfo[];
  /** Scope information for `parseExpressionAt` (internal shape; do not rely on it). */
  readonly scopeIndex: unknown;
}

/** True for expressions that designate an object (may be assigned or have their address taken). */
export function isLvalue(e: Expr): boolean {
  switch (e.kind) {
    case 'Identifier': return e.decl.kind === 'Var';
    case 'Unary': return e.op === '*';
    case 'Index': return true;
    case 'Member': return e.arrow || isLvalue(e.object);
    case 'StringLiteral': return true;
    case 'CompoundLiteral': return true;
    default: return false;
  }
}
