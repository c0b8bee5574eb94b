import { STATUS_CODES } from 'node:http';
import type { CompiledExpression } from '../definitions/index.ts';
import { evaluateGuarded, MappingError } from '../mapping/index.ts';
import type { AppError } from './envelope.ts';
import type { MappingInput } from './mapping-input.ts';
import { isJsonObject } from '../../platform/json-object.ts';

export type { AppError };


/** code and message are cut to this many characters. */
export const MAX_TEXT = 500;
/** details longer than this as JSON are dropped (the whole body is in meta.response.body anyway). */
export const MAX_DETAILS_JSON = 4000;

/**
 * The app's error of a failed call. Each of code, message and details comes
 * from the first source that gives a usable value:
 *   1. the action's response mapping's `meta.appError` (an object);
 *   2. the API's default `appError` mapping (api.yaml), run only when the
 *      first left a field out; if it throws or hits a guardrail it counts as
 *      giving nothing (a failure is not turned into a 502 for want of an
 *      error message);
 *   3. the engine: code `HTTP_<status>` and the status' reason phrase, or,
 *      for a 2xx the mapping called a failure, code `APP_ERROR`.
 * A string (or number or boolean, written as a string) is usable when not
 * empty, and cut at MAX_TEXT characters; details when a plain object or an
 * array, not empty, of at most MAX_DETAILS_JSON characters of JSON.
 */
export async function appErrorOf(
  fromMapping: unknown,
  apiDefault: CompiledExpression | undefined,
  input: MappingInput,
  onDefaultFailed: (error: MappingError) => void = () => {},
): Promise<AppError> {
  const sources: Record<string, unknown>[] = [];
  if (isJsonObject(fromMapping)) sources.push(fromMapping);
  if (apiDefault && !complete(sources[0])) {
    const fromApi = await evaluateDefault(apiDefault, input, onDefaultFailed);
    if (isJsonObject(fromApi)) sources.push(fromApi);
  }
  const status = input.status;
  const code = first(sources, (s) => text(s.code)) ?? engineCode(status);
  const message = first(sources, (s) => text(s.message)) ?? engineMessage(status);
  const details = first(sources, (s) => boundedDetails(s.details));
  return details === undefined ? { status, code, message } : { status, code, message, details };
}

export function engineCode(status: number): string {
  return status >= 200 && status < 300 ? 'APP_ERROR' : `HTTP_${status}`;
}

export function engineMessage(status: number): string {
  if (status >= 200 && status < 300) return `the app reported a failure (HTTP ${status})`;
  return STATUS_CODES[status] ?? `HTTP ${status}`;
}

async function evaluateDefault(expression: CompiledExpression, input: MappingInput, onFailed: (error: MappingError) => void): Promise<unknown> {
  try {
    return await evaluateGuarded(expression as never, input);
  } catch (error) {
    if (error instanceof MappingError) {
      onFailed(error);
      return undefined;
    }
    throw error;
  }
}

function complete(source: Record<string, unknown> | undefined): boolean {
  return source !== undefined && text(source.code) !== undefined && text(source.message) !== undefined && boundedDetails(source.details) !== undefined;
}

function first<T>(sources: Record<string, unknown>[], pick: (source: Record<string, unknown>) => T | undefined): T | undefined {
  for (const source of sources) {
    const value = pick(source);
    if (value !== undefined) return value;
  }
  return undefined;
}

function text(value: unknown): string | undefined {
  const written = typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
  if (!written) return undefined;
  if (written.length <= MAX_TEXT) return written;
  // Not half of a surrogate pair at the cut.
  const end = /[\uD800-\uDBFF]/.test(written[MAX_TEXT - 1]!) ? MAX_TEXT - 1 : MAX_TEXT;
  return written.slice(0, end);
}

function boundedDetails(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Object.keys(value).length === 0) return undefined;
  const json = JSON.stringify(value);
  return json.length <= MAX_DETAILS_JSON ? value : undefined;
}
