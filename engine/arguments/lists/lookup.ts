import { GatewayError } from '../../errors/index.ts';
import type { LookupList } from '../../definitions/generated/definition-types.ts';
import type { ActionEntry, AppVersion } from '../../definitions/snapshot.ts';
import { describeVersion } from '../../definitions/resolve.ts';
import type { ListOption, LookupOptions } from '../types.ts';
import { optionsFromRows } from './list-options.ts';

/** What the run engine answers for one action run: the envelope. */
export interface ActionResult {
  success: boolean;
  data: unknown[];
  meta?: Record<string, unknown>;
}

/** One run of a lookup action through the engine, with the caller's connection. */
export interface LookupRun {
  companyId: string;
  connectionId: string;
  version: AppVersion;
  action: ActionEntry;
  arguments: Record<string, unknown>;
}

/**
 * Runs an action the way POST .../run does (arguments built, request sent,
 * response mapped to the envelope). The run engine provides it; it must check
 * that the connection belongs to the company and the app.
 */
export type RunAction = (run: LookupRun) => Promise<ActionResult>;

/**
 * Options of a Lookup list: its action run with its actionArguments through
 * the engine, each row mapped with valueKey and labelKey. Only the first page
 * is used. A failed run is LOOKUP_FAILED (502): the app, not the caller, failed.
 */
export async function runLookup(
  list: LookupList,
  run: RunAction,
  context: Omit<LookupRun, 'action' | 'arguments'>,
  given: Readonly<Record<string, unknown>> = {},
): Promise<ListOption[]> {
  const action = context.version.actions.get(list.action);
  if (!action) throw GatewayError.of('ACTION_NOT_FOUND', `${describeVersion(context.version)} has no lookup action "${list.action}"`);
  const result = await run({ ...context, action, arguments: lookupArguments(action, list, given) });
  if (!result.success) {
    throw GatewayError.of('LOOKUP_FAILED', `lookup action ${action.id} did not succeed, so its options are unknown`, { meta: result.meta });
  }
  return optionsFromRows(Array.isArray(result.data) ? result.data : [], list);
}

/** The `lookupOptions` dependency of buildOutboundRequest for one run: lookups run with the same connection. */
export function lookupOptionsVia(run: RunAction, context: Omit<LookupRun, 'action' | 'arguments'>): LookupOptions {
  return (list, given) => runLookup(list, run, context, given);
}

/**
 * What the lookup action runs with: the values the caller gave for the
 * lookup action's own (visible, top-level) arguments of the same key (the
 * owner and repo a label list needs, say), then the list's actionArguments,
 * which win.
 */
export function lookupArguments(action: ActionEntry, list: LookupList, given: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const inherited: Record<string, unknown> = {};
  for (const arg of action.arguments) {
    if (!arg.parent && !arg.hidden && Object.hasOwn(given, arg.key) && given[arg.key] !== undefined) inherited[arg.key] = given[arg.key];
  }
  return { ...inherited, ...list.actionArguments };
}
