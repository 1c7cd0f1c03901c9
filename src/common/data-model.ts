// The data model of a task (`options.data_model` of its task-definition
// file): ILP32 has 32-bit int, long and pointers (gcc -m32), LP64 64-bit
// long and pointers (gcc -m64). Every folder names it through this type.
export type DataModel = 'ILP32' | 'LP64';

export const DATA_MODELS: readonly DataModel[] = ['ILP32', 'LP64'];

/** gcc's (and cpp's) option that selects the data model. */
export function gccModeFlag(dm: DataModel): '-m32' | '-m64' {
  return dm === 'LP64' ? '-m64' : '-m32';
}
