import type { CompiledExpression } from '../definitions/expressions.ts';
import type { LookupList } from '../definitions/generated/definition-types.ts';
import type { ActionEntry } from '../definitions/snapshot.ts';

/** One dropdown option of a List argument, as builders show it and the gateway checks it. */
export interface ListOption {
  value: string | number | boolean;
  label: string;
}

/** The HTTP request an action run sends, before auth is applied. */
export interface OutboundRequest {
  method: ActionEntry['method'];
  /** baseUrl (host variables filled) + the action path (:params filled, URL-encoded); no query string. */
  url: string;
  /** By parameter name; an array means the parameter repeats (multipleValues without a delimiter). */
  query: Record<string, string | string[]>;
  /** The API's headers with host variables filled; auth headers are the sender's to add. */
  headers: Record<string, string>;
  /**
   * The JSON body; undefined when the action has no Body arguments. The sender
   * serializes it and sets Content-Type: application/json (unless the API's
   * headers name another JSON type).
   */
  body: unknown;
}

/** What a build produces: the request, and what the run engine needs next to it. */
export interface BuiltRequest {
  request: OutboundRequest;
  /**
   * The caller's arguments after defaults and coercion, by key, before mappers:
   * the `arguments` a response mapping and an argument mapper see.
   */
  arguments: Record<string, unknown>;
  /**
   * API and auth argument values as text, plus end-user metadata as
   * `metadata.<field>`: what an auth fills its own {{placeholders}} from.
   */
  variables: Record<string, string>;
  /** The base URL the request's URL starts with, its host variables filled: where a pagination's nextRequest path goes. */
  baseUrl: string;
}

/**
 * Host variables of one run: what the connection (or installation) stores for
 * the API's and the auth's arguments, and the end user's metadata.
 *
 *   { connection: { subdomain: 'acme', apiKey: 'k-123' }, metadata: { tenant: 't1' } }
 */
export interface HostValues {
  connection?: Readonly<Record<string, unknown>>;
  /** The end user's metadata; templates reach it as {{metadata.<field>}}. */
  metadata?: Readonly<Record<string, unknown>>;
}

/** The input of an argument mapper: the value, and every argument of the action by key. */
export interface MapperInput {
  value: unknown;
  arguments: Readonly<Record<string, unknown>>;
}

/**
 * Evaluates a compiled argument mapper. Injected so the run engine can use the
 * guarded evaluator (timeout, stack and sequence limits); a rejection becomes
 * a `mapper` problem of the argument.
 */
export type MapperEvaluator = (expression: CompiledExpression, input: MapperInput) => Promise<unknown>;

/**
 * The options a Lookup list offers right now (by running its lookup action).
 * A rejection is not the caller's fault, so it is passed on as it is.
 */
export type LookupOptions = (list: LookupList, given: Readonly<Record<string, unknown>>) => Promise<ListOption[]>;

export interface ArgumentDependencies {
  evaluateMapper: MapperEvaluator;
  lookupOptions: LookupOptions;
}
