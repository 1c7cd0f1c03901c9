// What a command is about: the program, the property and the data model
// that a task file, or a program with a property, stands for. The one
// resolution of `verify`, `validate` and `select`; a task's default choice is
// the table's. Its own module, light to load: the CLI reads it after the
// hard time limit.

import { basename, resolve } from 'node:path';
import type { DataModel } from '../common/data-model.js';
import { TarsierError, usageError } from '../common/errors.js';
import { builtInProperty, PROPERTY_KINDS, readPropertyFile, type Property } from '../task/property.js';
import { readTaskFile } from '../task/taskfile.js';
import { defaultProperty } from './index.js';

export interface InputOptions {
  /** With a task file: the property to check (default: the property table's first default choice the task has, else its first). */
  readonly property?: string;
  /** With a bare program: the property file. */
  readonly prp?: string;
  /** With a bare program: the property itself, already read (instead of `prp`). */
  readonly propertyDetails?: Property;
  /** The data model; overrides the task's (default ILP32). */
  readonly dataModel?: DataModel;
}

export interface Resolved {
  program: string;
  /** The program's name as the task lists it (witness `file_name`, `input_files`). */
  programAsWritten: string;
  property: Property;
  /** Every usable property the task lists, in its order (a bare program: just `property`). */
  properties: readonly Property[];
  dataModel: DataModel;
}

/** The program, property and data model a task file or a program with `--prop` stands for (shared with `validate`). */
export function resolveInput(input: string, options: InputOptions): Resolved {
  if (/\.ya?ml$/i.test(input)) {
    // Library and command line share these messages: they name no option of either.
    if (options.prp) throw usageError('a property file is for a program file; a task file names its own properties (choose one by its kind)');
    const task = readTaskFile(input, { skipUnusableProperties: true });
    if (task.inputFiles.length !== 1) {
      throw new TarsierError('task', `the task has ${task.inputFiles.length} input files; only one program file is supported`, { file: task.file }, 1);
    }
    if (task.properties.length === 0) {
      const why = task.skippedProperties.map((p) => p.reason).join('; ');
      throw new TarsierError('task', why ? `no usable verification property: ${why}` : 'the task lists no verification property', { file: task.file });
    }
    let chosen = task.properties[0]!;
    if (options.property) {
      const p = task.properties.find((x) => x.property === options.property);
      if (!p) {
        throw usageError(`the task has no property '${options.property}' (it has: ${task.properties.map((x) => x.property).join(', ')})`);
      }
      chosen = p;
    } else {
      chosen = defaultProperty(task.properties) ?? chosen;
    }
    return {
      program: task.inputFiles[0]!,
      programAsWritten: task.inputFilesAsWritten[0]!,
      property: chosen.details,
      properties: task.properties.map((p) => p.details),
      dataModel: options.dataModel ?? task.dataModel,
    };
  }
  if (options.propertyDetails) {
    const property = options.propertyDetails;
    return { program: resolve(input), programAsWritten: basename(input), property, properties: [property], dataModel: options.dataModel ?? 'ILP32' };
  }
  if (options.prp && options.property) throw usageError('give either a property file or a property kind, not both');
  // A property kind stands for its standard property file; none given: the default checks.
  const property = options.prp ? readPropertyFile(options.prp) : builtInProperty(options.property ?? 'default');
  if (!property) throw usageError(`the property must be one of ${PROPERTY_KINDS.join(', ')}, not '${options.property}'`);
  return { program: resolve(input), programAsWritten: basename(input), property, properties: [property], dataModel: options.dataModel ?? 'ILP32' };
}
