import type { Attributes } from '@opentelemetry/api';
import { activeTracer, inSpan } from './tracer.ts';

/** Where an expression comes from, as compiled expressions carry it. */
interface Located {
  at?: { file?: string; line?: number };
}

/**
 * The response mapping of a run, in a span naming the definition file and
 * line it comes from (never the response it reads or the data it makes).
 */
export function traceMapping<T>(compiled: unknown, evaluate: () => Promise<T>): Promise<T> {
  if (!activeTracer()) return evaluate();
  const at = (compiled as Located).at;
  const attributes: Attributes = {};
  if (at?.file) attributes['gateway.mapping.file'] = at.file;
  if (at?.line) attributes['gateway.mapping.line'] = at.line;
  return inSpan('response mapping', attributes, evaluate);
}

/** A token renewal (refresh token or client credentials), with its token-endpoint calls as children. */
export function traceRenewal<T>(connection: { id: string; appSlug: string }, auth: { type: string }, renew: () => Promise<T>): Promise<T> {
  return inSpan('token renewal', { 'gateway.connection.id': connection.id, 'gateway.app.slug': connection.appSlug, 'gateway.auth.type': auth.type }, renew);
}
