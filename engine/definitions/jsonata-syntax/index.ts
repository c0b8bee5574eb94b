import parser from './parser.js';
import populateMessage from './messages.js';

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
 */
export function jsonataSyntaxError(source: string): JsonataSyntaxError | null {
  try {
    // jsonata() passes `options && options.recover`; the gateway never asks for recovery.
    parser(source, undefined);
    return null;
  } catch (thrown) {
    populateMessage(thrown);
    return typeof thrown === 'object' && thrown !== null ? (thrown as JsonataSyntaxError) : { message: String(thrown) };
  }
}
