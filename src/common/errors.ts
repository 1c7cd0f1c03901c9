import { formatLocation, type SourceLocation } from './location.js';

/**
 * A user-facing failure: bad input, a missing file, a usage error. Printed as
 * `file:line:column: error: message`, never with a stack trace.
 */
export class TarsierError extends Error {
  constructor(
    /** A stable identifier of the kind of failure, e.g. `yaml-syntax`. */
    readonly code: string,
    message: string,
    readonly location?: Pick<SourceLocation, 'file' | 'line' | 'column'> | { file: string },
    /** Process exit status the CLI uses for this failure. */
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'TarsierError';
  }

  format(): string {
    return formatDiagnostic('error', this.message, this.location);
  }
}

export function formatDiagnostic(
  severity: string,
  message: string,
  loc?: Pick<SourceLocation, 'file' | 'line' | 'column'> | { file: string },
): string {
  if (!loc) return `tarsier: ${severity}: ${message}`;
  const where = 'line' in loc ? formatLocation(loc) : loc.file;
  return `${where}: ${severity}: ${message}`;
}

export function usageError(message: string): TarsierError {
  return new TarsierError('usage', message, undefined, 2);
}
