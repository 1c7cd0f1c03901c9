// IMP, Tarsier's intermediate verification language: AST, parser, printer,
// type checker and interpreter.
export * from './ast.js';
export { parseImp, parseImpExpr } from './parser.js';
export { printImp, printExpr, printProcedure, printStmt } from './printer.js';
export { typecheckImp, checkImp, typeOfExpr, procedureScope } from './typecheck.js';
export type { ImpDiagnostic, VarInfo, VarRole, Scope } from './typecheck.js';
export * from './interp.js';
export * from './walk.js';
