import type { BuiltRequest } from '../arguments/index.ts';
import type { ActionMeta } from './envelope.ts';

/**
 * The input every response mapping sees (documented in docs/definitions.md):
 *
 *   { status, headers (lower-case names), body (parsed JSON, text or null),
 *     action: { id, slug, operation, query, body }, arguments }
 */
export interface MappingInput {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  action: ActionMeta;
  arguments: BuiltRequest['arguments'];
}
