import parser from './parser.js';
import populateMessage from './messages.js';
import { unsupportedRegex } from '../../mapping/regex.ts';

/** The jsonata version parser.js, signature.js, utils.js and messages.js were copied from (a test holds package.json to it). */
export const JSONATA_VERSION = '2.2.2';

/** What jsonata() throws for a text that does not parse (an object with a code for its own errors). */
export interface JsonataSyntaxError {
  code?: string;
  position?: number;
  token?: string;
  value?: unknown;
  message?: string;
}

/**
 * The error `jsonata(source)` would throw, or null when it compiles: the
 * same parse as jsonata 2.2.2's, by a copy of its parser whose symbol table
 * is built once per process (README.md here says why and what changed).
 * For the load-time syntax check only; evaluation compiles with jsonata.
 * Also the refusal of a regular expression literal the linear-time engine
 * cannot run (code `REGEX`, ../../mapping/regex.ts).
 */
export function jsonataSyntaxError(source: string): JsonataSyntaxError | null {
  return parseJsonata(source).error;
}

/** The parse jsonataSyntaxError checks: the tree (jsonata's AST, positions at the end of each token) when there is no error. */
export function parseJsonata(source: string): { ast: unknown; error: null } | { ast: null; error: JsonataSyntaxError } {
  try {
    // jsonata() passes `options && options.recover`; the gateway never asks for recovery.
    const ast: unknown = parser(source, undefined);
    // Not jsonata's: a regular expression the gateway's linear-time engine cannot run is refused here too, located at its `/`.
    const regex = source.includes('/') ? unsupportedRegex(ast) : undefined;
    return regex ? { ast: null, error: { code: regex.refusal.code, position: regex.offset + 1, value: regex.refusal.value, message: regex.refusal.message } } : { ast, error: null };
  } catch (thrown) {
    populateMessage(thrown);
    return { ast: null, error: typeof thrown === 'object' && thrown !== null ? (thrown as JsonataSyntaxError) : { message: String(thrown) } };
  }
}
