import { GatewayError, validationError } from '../errors/index.ts';
import type { ActionEntry, AppVersion, ArgumentEntry } from '../definitions/snapshot.ts';
import { builtInOptions, runLookup, type ListOption, type RunAction } from '../arguments/index.ts';

export interface OptionsRequest {
  version: AppVersion;
  action: ActionEntry;
  key: string;
  body: unknown;
  companyId: string;
  runAction: RunAction | undefined;
}

/**
 * The options of one List argument. Fixed, Country and Currency are answered
 * from the definition and the platform's data; a Lookup runs its action with
 * the caller's connection through the engine. Without a wired run engine a
 * Lookup answers LOOKUP_UNAVAILABLE rather than made-up options.
 */
export async function argumentOptions(request: OptionsRequest): Promise<{ argument: ArgumentEntry; options: ListOption[] }> {
  const { action, key } = request;
  const argument = action.arguments.find((a) => a.key === key);
  if (!argument) {
    throw GatewayError.of('ARGUMENT_NOT_FOUND', `action ${action.slug} has no argument "${key}" (its arguments: ${action.arguments.map((a) => a.key).join(', ') || 'none'})`);
  }
  if (!argument.list) {
    throw GatewayError.of('ARGUMENT_HAS_NO_OPTIONS', `argument "${key}" is a ${argument.dataType}, not a List, so it has no options`);
  }
  const list = argument.list;
  if (list.type !== 'Lookup') return { argument, options: builtInOptions(list) ?? [] };

  const connectionId = connectionIdFrom(request.body);
  if (!request.runAction) {
    throw GatewayError.of('LOOKUP_UNAVAILABLE', `argument "${key}" looks up its options by running action ${list.action}, and running actions is not available in this gateway yet`);
  }
  const options = await runLookup(list, request.runAction, { companyId: request.companyId, connectionId, version: request.version }, givenArguments(request.body));
  return { argument, options };
}

/** `arguments` the builder has filled in so far, which a Lookup action with the same keys receives (an owner and repo, say). */
function givenArguments(body: unknown): Record<string, unknown> {
  const value = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>).arguments : undefined;
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw validationError([{ field: 'arguments', rule: 'type', message: 'must be an object of the argument values filled in so far' }]);
  }
  return value as Record<string, unknown>;
}

/** A Lookup runs with the caller's connection, so it needs { "connectionId": "..." }. */
function connectionIdFrom(body: unknown): string {
  const id = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>).connectionId : undefined;
  if (typeof id === 'string' && id.trim() !== '') return id;
  const message = id === undefined ? 'is required: a Lookup list runs its action with this connection' : 'must be a non-empty string';
  throw validationError([{ field: 'connectionId', rule: id === undefined ? 'required' : 'type', message }]);
}
