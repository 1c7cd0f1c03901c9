/**
 * What the front end knows of functions a program may call without defining
 * them: gcc's `__builtin_*` return types, the competition's `__VERIFIER_*`
 * functions, and the library prototypes gcc assumes for undeclared calls.
 */
import type { Expr, VerifierBuiltin } from './ast.js';
import { type CType, type DataModel, type FunctionType, floatType, intType, pointerTo, sizeTKind, unqualified, voidType, withQualifiers } from './types.js';

/** Return types of the gcc `__builtin_*` functions the front end knows. */
export function builtinReturnType(name: string, dm: DataModel): CType | undefined {
  const sizeT = intType(sizeTKind(dm));
  const voidPtr = pointerTo(voidType);
  switch (name) {
    case '__builtin_expect': case '__builtin_expect_with_probability': return intType('long');
    case '__builtin_abort': case '__builtin_trap': case '__builtin_unreachable': case '__builtin_va_start':
    case '__builtin_va_end': case '__builtin_va_copy': case '__builtin_prefetch': case '__builtin_exit':
      return voidType;
    case '__builtin_memcpy': case '__builtin_memset': case '__builtin_memmove': case '__builtin_alloca':
    case '__builtin_malloc': case '__builtin_calloc': case '__builtin_return_address': case '__builtin_frame_address':
    case '__builtin___memcpy_chk': case '__builtin___memset_chk': case '__builtin___memmove_chk': case '__builtin_assume_aligned':
      return voidPtr;
    case '__builtin_strlen': case '__builtin_object_size': return sizeT;
    case '__builtin_strcmp': case '__builtin_memcmp': case '__builtin_strncmp':
    case '__builtin_constant_p': case '__builtin_clz': case '__builtin_ctz': case '__builtin_popcount':
    case '__builtin_clzl': case '__builtin_ctzl': case '__builtin_popcountl': case '__builtin_clzll':
    case '__builtin_ctzll': case '__builtin_popcountll': case '__builtin_ffs': case '__builtin_ffsl': case '__builtin_ffsll':
    case '__builtin_parity': case '__builtin_parityl': case '__builtin_parityll': case '__builtin_isnan':
    case '__builtin_isinf': case '__builtin_isinf_sign': case '__builtin_isfinite': case '__builtin_isnormal':
    case '__builtin_signbit': case '__builtin_signbitf': case '__builtin_signbitl': case '__builtin_fpclassify':
    case '__builtin_isgreater': case '__builtin_isgreaterequal': case '__builtin_isless': case '__builtin_islessequal':
    case '__builtin_islessgreater': case '__builtin_isunordered': case '__builtin_abs': case '__builtin_printf':
    case '__builtin_puts': case '__builtin_putchar':
      return intType('int');
    case '__builtin_labs': return intType('long');
    case '__builtin_llabs': return intType('longlong');
    case '__builtin_bswap16': return intType('ushort');
    case '__builtin_bswap32': return intType('uint');
    // uint64_t: unsigned long in LP64, unsigned long long in ILP32 (as gcc types it).
    case '__builtin_bswap64': return intType(dm === 'LP64' ? 'ulong' : 'ulonglong');
    case '__builtin_inf': case '__builtin_huge_val': case '__builtin_nan': case '__builtin_fabs': case '__builtin_sqrt':
    case '__builtin_copysign': case '__builtin_fmax': case '__builtin_fmin':
      return floatType('double');
    case '__builtin_inff': case '__builtin_huge_valf': case '__builtin_nanf': case '__builtin_fabsf': case '__builtin_sqrtf':
    case '__builtin_copysignf':
      return floatType('float');
    case '__builtin_infl': case '__builtin_huge_vall': case '__builtin_nanl': case '__builtin_fabsl': case '__builtin_sqrtl':
    case '__builtin_copysignl':
      return floatType('longdouble');
    default:
      return undefined;
  }
}

/** gcc's built-ins that need no declaration: `__builtin_*`, and the `__sync_*` and `__atomic_*` families. */
export function isGccBuiltinName(name: string): boolean {
  return name.startsWith('__builtin_') || name.startsWith('__sync_') || name.startsWith('__atomic_');
}

/**
 * The result type of the type-generic built-ins, from their arguments: the
 * overflow-checking arithmetic (`bool`), and the `__sync_*` and `__atomic_*`
 * operations on the object the first argument points to.
 */
export function genericBuiltinType(name: string, args: readonly Expr[]): CType | undefined {
  const bool = intType('bool');
  if (/^__builtin_[su]?(add|sub|mul)(l|ll)?_overflow(_p)?$/.test(name)) return bool;
  if (name === '__sync_synchronize' || name === '__sync_lock_release') return voidType;
  if (name === '__sync_bool_compare_and_swap') return bool;
  if (/^__atomic_(store|store_n|load|exchange|thread_fence|signal_fence|clear)$/.test(name)) return voidType;
  if (/^__atomic_(compare_exchange|compare_exchange_n|test_and_set|always_lock_free|is_lock_free)$/.test(name)) return bool;
  const object = () => {
    const p = args[0]?.type;
    return p?.kind === 'pointer' ? unqualified(p.pointee) : undefined;
  };
  if (/^__sync_(fetch_and_\w+|\w+_and_fetch|val_compare_and_swap|lock_test_and_set)$/.test(name)) return object();
  if (/^__atomic_(load_n|exchange_n|fetch_\w+|\w+_fetch)$/.test(name)) return object();
  return undefined;
}

/** The C type of `__VERIFIER_nondet_X` by the rules' table. */
export function nondetType(suffix: string, dm: DataModel): CType | undefined {
  const table: Record<string, CType> = {
    bool: intType('bool'), char: intType('char'), int: intType('int'), int128: intType('int128'),
    float: floatType('float'), double: floatType('double'), loff_t: intType('longlong'), long: intType('long'),
    longlong: intType('longlong'), pchar: pointerTo(intType('char')), pthread_t: intType('ulong'),
    pointer: pointerTo(voidType), sector_t: intType('ulonglong'), short: intType('short'),
    size_t: intType(sizeTKind(dm)), u32: intType('uint'), uchar: intType('uchar'), uint: intType('uint'),
    uint128: intType('uint128'), ulong: intType('ulong'), ulonglong: intType('ulonglong'),
    unsigned: intType('uint'), ushort: intType('ushort'), schar: intType('schar'),
  };
  return Object.hasOwn(table, suffix) ? table[suffix] : undefined;
}

export function verifierBuiltin(name: string, type: FunctionType, dm: DataModel): VerifierBuiltin | undefined {
  if (name === 'reach_error') return { kind: 'reach_error' };
  if (!name.startsWith('__VERIFIER_')) return undefined;
  const rest = name.slice('__VERIFIER_'.length);
  switch (rest) {
    case 'error': return { kind: 'error' };
    case 'assume': return { kind: 'assume' };
    case 'assert': return { kind: 'assert' };
    case 'nondet_memory': return { kind: 'nondet_memory' };
    case 'atomic_begin': return { kind: 'atomic_begin' };
    case 'atomic_end': return { kind: 'atomic_end' };
  }
  if (rest.startsWith('atomic_')) return { kind: 'atomic_function' };
  if (rest.startsWith('nondet_')) {
    const suffix = rest.slice('nondet_'.length);
    const t = type.returnType.kind !== 'void' ? type.returnType : nondetType(suffix, dm);
    if (t) return { kind: 'nondet', suffix, type: t };
  }
  return undefined;
}

/** Prototypes gcc knows for library functions a program may call without declaring them. */
export function libraryFunctions(dm: DataModel): Record<string, FunctionType> {
  const sizeT = intType(sizeTKind(dm));
  const voidPtr = pointerTo(voidType);
  const fn = (returnType: CType, params: CType[], variadic = false): FunctionType => ({
    kind: 'function', returnType, params: params.map((type) => ({ type })), variadic, prototyped: true,
  });
  const charPtr = pointerTo(intType('char'));
  const constCharPtr = pointerTo(withQualifiers(intType('char'), { const: true }));
  return {
    abort: fn(voidType, []),
    exit: fn(voidType, [intType('int')]),
    malloc: fn(voidPtr, [sizeT]),
    calloc: fn(voidPtr, [sizeT, sizeT]),
    realloc: fn(voidPtr, [voidPtr, sizeT]),
    alloca: fn(voidPtr, [sizeT]),
    free: fn(voidType, [voidPtr]),
    memset: fn(voidPtr, [voidPtr, intType('int'), sizeT]),
    memcpy: fn(voidPtr, [voidPtr, pointerTo(withQualifiers(voidType, { const: true })), sizeT]),
    strlen: fn(sizeT, [constCharPtr]),
    printf: fn(intType('int'), [constCharPtr], true),
    strcpy: fn(charPtr, [charPtr, constCharPtr]),
    abs: fn(intType('int'), [intType('int')]),
    labs: fn(intType('long'), [intType('long')]),
    llabs: fn(intType('longlong'), [intType('longlong')]),
  };
}
