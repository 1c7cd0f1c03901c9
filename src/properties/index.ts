// What differs between properties, asked of one table (table.ts).
import type { GoalKind, InstrumentationPass } from '../lower/index.js';
import type { Symptom } from '../replay/index.js';
import type { PropertyKind } from '../task/index.js';
import { PROPERTY_TABLE, WITNESS_FORMATS, type PropertyRow, type ViolationGoal, type WitnessContext, type WitnessFormat } from './table.js';

export { PROPERTY_TABLE, type PropertyRow, type StepName, type ViolationCheck, type ViolationGoal, type WitnessContext, type WitnessFormat } from './table.js';

const BY_KIND = new Map(PROPERTY_TABLE.map((r) => [r.kind, r] as const));

/** The row of a property (every PropertyKind has one). */
export function propertyRow(kind: PropertyKind): PropertyRow {
  const row = BY_KIND.get(kind);
  if (!row) throw new Error(`the property table has no row for ${kind}`);
  return row;
}

/** The instrumentation passes the lowering runs for the property. */
export function passesOf(kind: PropertyKind): readonly InstrumentationPass[] {
  return propertyRow(kind).passes;
}

/** The lowering's goal kinds whose failing assert violates the property. */
export function violationKinds(kind: PropertyKind): readonly GoalKind[] {
  return (Object.keys(propertyRow(kind).violations) as ViolationGoal[]).filter((k): k is GoalKind => k !== 'lasso');
}

/**
 * How the engines treat the asserts of a program lowered for the property:
 * its violations are error goals, cuts and inexact places bound goals; any
 * other goal (another property's, e.g. a call of reach_error under
 * no-overflow, where the program stops) only ends the executions there.
 */
export function goalRolesOf(kind: PropertyKind): { readonly error: readonly GoalKind[]; readonly bound: readonly GoalKind[] } {
  return { error: violationKinds(kind), bound: propertyRow(kind).boundKinds };
}

/** The violated (sub-)property a failing goal stands for (`FALSE(name)`) and the replay that confirms it; undefined: no violation of `kind`. */
export function violationOf(kind: PropertyKind, goal: ViolationGoal): { readonly name: string; readonly replay: Symptom } | undefined {
  return propertyRow(kind).violations[goal];
}

/**
 * The property a violation named `violated` belongs to: `kind` itself, or
 * for `default` the check whose violation it is (its witness names that
 * check's specification, so that validators can read it).
 */
export function violatedCheck(kind: PropertyKind, violated: string): PropertyKind {
  if (kind !== 'default') return kind;
  return PROPERTY_TABLE.find((r) => r.kind !== 'default' && Object.values(r.violations).some((v) => v?.name === violated))?.kind ?? kind;
}

/** The witness the rules require for a violation of `violated` (a (sub-)property of `kind`). */
export function violationWitnessFormat(kind: PropertyKind, violated: string, program: WitnessContext): WitnessFormat {
  return propertyRow(kind).violationWitness(violated, program);
}

/**
 * The names a `FALSE(name)` answer may carry for the property: its
 * violations', and those of a property its file may include (a
 * memory-safety file with a valid-memcleanup line).
 */
export function violationNames(kind: PropertyKind): readonly string[] {
  const row = propertyRow(kind);
  const own = Object.values(row.violations).flatMap((v) => (v ? [v.name] : []));
  return row.mayInclude ? [...own, ...violationNames(row.mayInclude)] : own;
}

/** The property a file of `kind` may include with a line of its own (see `PropertyRow.mayInclude`); undefined: none. */
export function includedProperty(kind: PropertyKind): PropertyKind | undefined {
  return propertyRow(kind).mayInclude;
}

/** The file names the rules give witnesses (`verify` writes to one of them unless told a path). */
export function witnessFileNames(): readonly string[] {
  return [...new Set(WITNESS_FORMATS.map((f) => f.file))];
}

/** How one concrete run checks the property (see `PropertyRow.concreteRun`). */
export function concreteRunOf(kind: PropertyKind): NonNullable<PropertyRow['concreteRun']> {
  const run = propertyRow(kind).concreteRun;
  if (!run) throw new Error(`the property table has no concrete run for ${kind}`);
  return run;
}

/** Whether a TRUE answer needs a confirmed correctness witness to score (the rules' table, without the category exceptions). */
export function correctnessWitnessRequired(kind: PropertyKind): boolean {
  return propertyRow(kind).correctnessWitness?.required === true;
}

/** The property chosen among a task's when none is named: the first default choice in `kinds`' order. */
export function defaultProperty<T extends { readonly property: PropertyKind }>(properties: readonly T[]): T | undefined {
  return properties.find((p) => propertyRow(p.property).defaultChoice);
}

/** The first default choice in the table's order that `kinds` contains (select, the playground). */
export function preferredProperty(kinds: readonly PropertyKind[]): PropertyKind | undefined {
  return preferredProperties().find((k) => kinds.includes(k));
}

/** The default choices, in the table's order. */
export function preferredProperties(): PropertyKind[] {
  return PROPERTY_TABLE.filter((r) => r.defaultChoice).map((r) => r.kind);
}
