import { ERROR_STATUS, GatewayError } from '../../platform/errors/index.ts';

/** Where an expression sits: the definition file, and the line and column (1-based) of its first character. */
export interface ExpressionOrigin {
  file: string;
  line: number;
  column: number;
}

/**
 * Why a mapping failed: it does not parse (`syntax`, at load), it ran too
 * long (`timeout`), nested too deep (`stack`), built too long a sequence
 * (`sequence`), built a string or a result over its size limit (`size`:
 * MAPPING_MAX_STRING, MAPPING_MAX_RESULT_BYTES), called $error/$assert
 * (`error`), has a regular expression
 * the linear-time engine cannot run (`regex`: a backreference, lookaround),
 * or jsonata refused an operation, e.g. a type error (`evaluation`).
 */
export type MappingFailure = 'syntax' | 'timeout' | 'stack' | 'sequence' | 'size' | 'error' | 'regex' | 'evaluation';

export interface MappingErrorDetails {
  file: string;
  line: number;
  column: number;
  reason: MappingFailure;
  /** jsonata's error code (S0201, T2001, D1012, D3137, ...). */
  code?: string;
  /** The limit that stopped it, and its variable, for timeout, stack, sequence and size. */
  limit?: number;
  setting?: string;
}

/**
 * MAPPING_ERROR: a mapping expression failed. The message starts with
 * file:line:column, so an author can go straight to it; the details carry
 * the same, machine-readable. It never carries the data being mapped.
 */
export class MappingError extends GatewayError {
  declare readonly details: MappingErrorDetails;

  constructor(details: MappingErrorDetails, what: string) {
    super('MAPPING_ERROR', ERROR_STATUS.MAPPING_ERROR, `${details.file}:${details.line}:${details.column}: ${what}`, details);
    this.name = 'MappingError';
  }
}

/**
 * The file position of a character offset in the expression. The column of
 * a later line is counted from the origin's column, which is right for YAML
 * block scalars (`response: |`), whose lines share one indentation.
 */
export function locate(source: string, offset: number | undefined, origin: ExpressionOrigin): ExpressionOrigin {
  if (offset === undefined || !Number.isFinite(offset)) return { ...origin };
  const before = source.slice(0, Math.max(0, Math.min(offset, source.length)));
  const lines = before.split('\n');
  const lineIndex = lines.length - 1;
  const columnInLine = lines[lineIndex]!.length; // characters before the offset on its line
  return { file: origin.file, line: origin.line + lineIndex, column: origin.column + columnInLine };
}
