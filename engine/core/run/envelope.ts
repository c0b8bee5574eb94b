import type { ActionEntry } from '../definitions/index.ts';
import { isEmptyRow } from '../mapping/index.ts';
import { flagOf, statusFlags } from './envelope-flags.ts';
import { RawRows, withRawRows } from './raw-rows.ts';
import { isJsonObject } from '../../platform/json-object.ts';

/** What every run answers: `success` always a boolean, `data` always an array, `meta` with what the engine owns. */
export interface Envelope {
  success: boolean;
  data: unknown[];
  meta: EnvelopeMeta;
}

export interface EnvelopeMeta {
  [field: string]: unknown;
  cursor?: string;
  authenticated?: boolean;
  tooManyRequests?: boolean;
  /** Set by the engine; a mapping cannot change it. */
  retries: number;
  /** The raw HTTP response (of the last attempt); set by the engine. */
  response: { status: number; headers: Record<string, string>; body: unknown };
  /** What was run; set by the engine. */
  action: ActionMeta;
  /** Why a run failed inside the gateway (a mapping error, say), when it did; a mapping error's details say where and why (reason, limit, setting). */
  error?: { code: string; message: string; details?: unknown };
  /** The app's own error, exactly when the app call failed (app-error.ts); set by the engine from the mapping's proposal. */
  appError?: AppError;
}

export interface ActionMeta {
  id: string;
  slug: string;
  operation: ActionEntry['operation'];
  query: Record<string, unknown>;
  body: unknown;
}

/** What a response mapping proposed (or the default proposal when an action has none). */
export interface Proposal {
  success?: unknown;
  data?: unknown;
  meta?: unknown;
}

/**
 * The engine's rules over whatever a mapping proposed:
 * - `success`, `meta.authenticated` and `meta.tooManyRequests` are booleans:
 *   the mapping's true or false, else what the status implies (envelope-flags.ts):
 *   `success` 2xx, `authenticated: false` on a 401, `tooManyRequests: true`
 *   on a 429, otherwise left out;
 * - `data` is an array: an object becomes [object], null or nothing becomes [];
 *   rows a mapping worker wrote as JSON (RawRows) stay that JSON, unless a rule below changes them;
 * - a failure's data holds no empty objects: `{}` is what a row mapping
 *   yields when it finds none of its fields (an error body), not a row;
 * - a 404 on a listing is success with no data, unless the mapping said `success` itself;
 * - `meta.retries`, `meta.response` and `meta.action` are the engine's, whatever the mapping wrote;
 * - `meta.appError` is left out here: the run adds it to a failure (app-error.ts);
 * - a successful delete answers the deleted id: merged into each object row
 *   that has none (a row with its own id is kept as is), `[{ id }]` when there are no rows.
 */
export function enforceEnvelope(
  proposal: Proposal,
  facts: { status: number; response: EnvelopeMeta['response']; action: ActionMeta; retries: number; deletedId: unknown },
): Envelope {
  const meta = isJsonObject(proposal.meta) ? { ...proposal.meta } : {};
  delete meta.appError;
  const implied = statusFlags(facts.status);
  const mappingDecided = flagOf(proposal.success) !== undefined;
  let success = flagOf(proposal.success) ?? implied.success;
  for (const flag of ['authenticated', 'tooManyRequests'] as const) {
    const value = flagOf(meta[flag]) ?? implied[flag];
    if (value === undefined) delete meta[flag];
    else meta[flag] = value;
  }
  // Rows a mapping worker wrote stay bytes unless a rule below must change them (raw-rows.ts).
  let data: unknown[] | RawRows = proposal.data instanceof RawRows ? proposal.data : toArray(proposal.data);
  if (!mappingDecided && facts.status === 404 && facts.action.operation === 'list') {
    success = true;
    data = [];
  }
  if (success && facts.action.operation === 'delete' && facts.deletedId !== undefined && facts.deletedId !== null) {
    data = withDeletedId(rowsOf(data), facts.deletedId);
  }
  if (!success && !(data instanceof RawRows && !data.emptyRows)) data = rowsOf(data).filter((row) => !isEmptyRow(row));
  // A cursor is text the caller sends back: a number or boolean as it reads, an object or array as its JSON (not "[object Object]").
  if (meta.cursor !== undefined && meta.cursor !== null && typeof meta.cursor !== 'string') meta.cursor = typeof meta.cursor === 'object' ? JSON.stringify(meta.cursor) : String(meta.cursor);
  if (meta.cursor === null || meta.cursor === '') delete meta.cursor;
  const envelope: Envelope = { success, data: data instanceof RawRows ? [] : data, meta: { ...meta, retries: facts.retries, response: facts.response, action: facts.action } };
  return data instanceof RawRows ? withRawRows(envelope, data) : envelope;
}

function rowsOf(data: unknown[] | RawRows): unknown[] {
  return data instanceof RawRows ? toArray(data.read()) : data;
}

/** `[{deleted: true}]` becomes `[{id, deleted: true}]`; a row that is not an object (a string, say) is left alone. */
function withDeletedId(data: unknown[], id: unknown): unknown[] {
  if (data.length === 0) return [{ id }];
  return data.map((row) => (isJsonObject(row) && !hasId(row) ? { id, ...row } : row));
}

function toArray(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

function hasId(row: unknown): boolean {
  return isJsonObject(row) && row.id !== undefined && row.id !== null;
}

/**
 * `meta.appError`: the app's own error, present exactly when the app call
 * failed (`success: false`), never on a success or a gateway error (a 502's
 * MAPPING_ERROR is in `meta.error`).
 */
export interface AppError {
  /** The app's HTTP status (of the last attempt); the engine's, a mapping cannot change it. */
  status: number;
  code: string;
  message: string;
  /** Only when a source gave a plain object or array of at most MAX_DETAILS_JSON characters of JSON. */
  details?: unknown;
}
