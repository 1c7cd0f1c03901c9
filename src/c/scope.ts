/**
 * Scopes of ordinary identifiers (variables, functions, enum constants,
 * typedef names) and of tags (struct/union/enum), and the index that
 * `parseExpressionAt` uses to know which names are visible at a position of
 * the original file.
 */
import type { SourceLocation } from '../common/location.js';
import type { TypedefDecl, ValueDecl } from './ast.js';
import type { EnumInfo, RecordInfo } from './types.js';

export type OrdinaryEntry = ValueDecl | TypedefDecl;
export type TagEntry = { readonly kind: 'record'; readonly info: RecordInfo } | { readonly kind: 'enum'; readonly info: EnumInfo };

export class Scope {
  readonly names = new Map<string, OrdinaryEntry>();
  readonly tags = new Map<string, TagEntry>();
  constructor(
    readonly parent: Scope | undefined,
    readonly kind: 'file' | 'block' | 'prototype',
  ) {}

  lookup(name: string): OrdinaryEntry | undefined {
    for (let s: Scope | undefined = this; s; s = s.parent) {
      const e = s.names.get(name);
      if (e) return e;
    }
    return undefined;
  }

  lookupTag(name: string): TagEntry | undefined {
    for (let s: Scope | undefined = this; s; s = s.parent) {
      const e = s.tags.get(name);
      if (e) return e;
    }
    return undefined;
  }
}

/** A position key that orders (line, column) pairs. */
export function positionKey(line: number, column: number): number {
  return line * 1_000_000 + column;
}

export interface ScopedName {
  readonly name: string;
  readonly entry: OrdinaryEntry;
  /** Visible from this position on (the start of its declaration statement). */
  readonly from: number;
  /** The enclosing block (or for statement, or function body for parameters). */
  readonly blockFrom: number;
  readonly blockTo: number;
  /** The function the declaration belongs to. */
  readonly functionName: string;
}

export interface ScopeIndex {
  readonly file: string;
  readonly fileScope: Scope;
  readonly names: readonly ScopedName[];
  /** Function bodies: name and range, for finding the function at a position. */
  readonly functions: ReadonlyArray<{ readonly name: string; readonly from: number; readonly to: number }>;
}

export function keyOf(loc: Pick<SourceLocation, 'line' | 'column'>): number {
  return positionKey(loc.line, loc.column);
}

export function endKeyOf(loc: SourceLocation): number {
  return loc.end ? positionKey(loc.end.line, loc.end.column) : keyOf(loc);
}

/**
 * The names visible at a position of the main file: file scope, then the
 * declarations of every block that encloses the position and that start
 * strictly before it (a declaration is not in scope at its own start).
 */
export function scopeAt(index: ScopeIndex, line: number, column: number): Scope {
  const at = positionKey(line, column);
  // File-scope names are visible from their first declaration on (names from other files, i.e. headers, always).
  const file = new Scope(undefined, 'file');
  for (const [name, entry] of index.fileScope.names) {
    if (entry.loc.file !== index.file || keyOf(entry.loc) < at) file.names.set(name, entry);
  }
  for (const [name, tag] of index.fileScope.tags) file.tags.set(name, tag);
  const scope = new Scope(file, 'block');
  const visible = index.names
    .filter((n) => n.blockFrom <= at && at < n.blockTo && n.from < at)
    .sort((a, b) => a.blockFrom - b.blockFrom || a.from - b.from);
  for (const n of visible) scope.names.set(n.name, n.entry);
  return scope;
}

/** The name of the function whose body contains the position, if any. */
export function functionAt(index: ScopeIndex, line: number, column: number): string | undefined {
  const at = positionKey(line, column);
  return index.functions.find((f) => f.from <= at && at < f.to)?.name;
}
