import type { CompiledExpression, PaginationEntry, PaginationExpression } from '../definitions/index.ts';
import { evaluateGuarded } from '../mapping/index.ts';
import type { MappingInput } from '../run/mapping-input.ts';

/** What a successful page shows about the next one: the mapping input, the request sent, the rows the envelope holds. */
export interface PageFacts {
  input: MappingInput;
  /** The request as built (before auth): its query and JSON body. */
  request: { query: Record<string, unknown>; body: unknown };
  /** How many rows the envelope's data has. */
  rows: number;
  /** The origin of the API's baseUrl as filled for this connection. */
  origin: string;
}

/** Evaluates one of the pagination's expressions over the mapping input, under the mapping guardrails; undefined when it has none. */
export async function evaluated(pagination: PaginationEntry, key: PaginationExpression, facts: PageFacts): Promise<unknown> {
  const expression: CompiledExpression | undefined = pagination.expressions[key];
  return expression ? await evaluateGuarded(expression as never, facts.input) : undefined;
}

/** The value the request sent at `key` (a query parameter or a top-level body field), as a number; undefined when absent or not a number. */
export function sentNumber(facts: PageFacts, location: 'Query' | 'Body', key: string): number | undefined {
  const from = location === 'Query' ? facts.request.query : facts.request.body;
  const value = from !== null && typeof from === 'object' ? (from as Record<string, unknown>)[key] : undefined;
  return asNumber(Array.isArray(value) ? value[0] : value);
}

/** A number, or a string of one ("25", as headers carry them); undefined for anything else or nothing. */
export function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}

/** Nothing, null, false or an empty string: no next page. */
export function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || value === '' || value === false;
}
