import type jsonata from 'jsonata';
import { DEFAULT_MAPPING_LIMITS, guardedJsonata, type MappingLimits } from '../mapping/index.ts';
import type { DefinitionPath, ParsedFile } from './parsed-file.ts';
import { problemAt, type DefinitionProblem, type SourceLocation } from './problems.ts';
import { sourceOffsetOf } from './scalar-offsets.ts';

/**
 * A JSONata expression of a definition, compiled once when the snapshot is
 * built. `at` is where its text starts, for errors raised when it runs.
 */
export interface CompiledExpression {
  readonly source: string;
  readonly expression: jsonata.Expression;
  readonly at: SourceLocation;
}

interface JsonataError {
  code?: string;
  position?: number;
  message?: string;
}

/**
 * Compiles the string at `path`. A syntax error is located at the offending
 * character in the file, wherever the YAML string is written (block, quoted
 * or plain). jsonata reports the position just after the offending token.
 */
export function compileExpression(
  parsed: ParsedFile,
  path: DefinitionPath,
  source: string,
  limits: MappingLimits = DEFAULT_MAPPING_LIMITS,
): { compiled: CompiledExpression | null; problem: DefinitionProblem | null } {
  const scalar = parsed.scalarAt(path);
  const at = parsed.locate(path);
  try {
    const start = scalar && (scalar.type === 'BLOCK_LITERAL' || scalar.type === 'BLOCK_FOLDED') ? sourceOffsetOf(parsed.source.text, scalar, 0) : null;
    // Compiled here so a syntax error is a load problem, then dropped: a compiled jsonata
    // expression holds about 14 KB, and most of a large catalogue's expressions never run
    // (1,000 apps x 30 actions kept 840 MB of them). The first evaluation compiles it again, once.
    guardedJsonata(source, limits);
    return { compiled: lazilyCompiled(source, limits, start === null ? at : parsed.position(start)), problem: null };
  } catch (thrown) {
    const error = thrown as JsonataError;
    const offset = Math.min(Math.max(0, (error.position ?? 1) - 1), Math.max(0, source.length - 1));
    const location = scalar ? parsed.position(sourceOffsetOf(parsed.source.text, scalar, offset)) : at;
    const code = error.code ? ` (${error.code})` : '';
    return { compiled: null, problem: problemAt(location, 'JSONATA_SYNTAX', `JSONata: ${error.message ?? String(thrown)}${code}`) };
  }
}

/** A CompiledExpression whose jsonata expression is made on first use and then kept. */
function lazilyCompiled(source: string, limits: MappingLimits, at: SourceLocation): CompiledExpression {
  let expression: jsonata.Expression | undefined;
  return Object.freeze({
    source,
    at,
    get expression() {
      return (expression ??= guardedJsonata(source, limits));
    },
  });
}
