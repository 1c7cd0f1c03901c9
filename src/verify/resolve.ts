// What a verification is about: the program, the property and the data
// model that a task file, or a program with a property, stands for. Its own
// module, light to load: the CLI reads it after the hard time limit.

import { basename, resolve } from 'node:path';
import { TarsierError, usageError } from '../common/errors.js';
import { builtInProperty, PROPERTY_KINDS, readPropertyFile, readTaskFile, type DataModel, type Property } from '../task/index.js';
import { defaultProperty } from '../properties/index.js';
import type { VerifyOptions } from './types.js';

export interface Resolved {
  program: string;
  /** The program's name as the task lists it (witness `file_name`, `input_files`). */
  programAsWritten: string;
  property: Property;
  dataModel: DataModel;
}

/** The program, property and data model a task file or a program with `--prop` stands for (shared with `validate`). */
export function resolveInput(input: string, options: Pick<VerifyOptions, 'property' | 'prp' | 'dataModel' | 'propertyDetails'>): Resolved {
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
      dataModel: options.dataModel ?? task.dataModel,
    };
  }
  if (options.propertyDetails) {
    return { program: resolve(input), programAsWritten: basename(input), property: options.propertyDetails, dataModel: options.dataModel ?? 'ILP32' };
  }
  if (options.prp && options.property) throw usageError('give either a property file or a property kind, not both');
  // A property kind stands for its standard property file; none given: the default checks.
  const property = options.prp ? readPropertyFile(options.prp) : builtInProperty(options.property ?? 'default');
  if (!property) throw usageError(`the property must be one of ${PROPERTY_KINDS.join(', ')}, not '${options.property}'`);
  return { program: resolve(input), programAsWritten: basename(input), property, dataModel: options.dataModel ?? 'ILP32' };
}
