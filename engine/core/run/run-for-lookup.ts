import type { RunAction } from '../arguments/index.ts';
import type { TenancyServices } from '../../tenancy/tenancy-services.ts';
import { runAction } from './run-action.ts';
import type { RunServices } from './run-services.ts';
import { selectConnection } from './select-connection.ts';

/**
 * What the describe endpoints' Lookup options run: the lookup action through
 * the same engine, with the caller's connection (checked to be the caller's
 * company's and for this app, like any run).
 */
export function runActionForLookups(records: Pick<TenancyServices, 'store'>, services: RunServices): RunAction {
  return async (run) => {
    const selected = await selectConnection(records, run.companyId, run.version, { connectionId: run.connectionId });
    const { envelope } = await runAction(services, { companyId: run.companyId, version: run.version, action: run.action, ...selected, arguments: run.arguments, depth: 1 });
    return envelope;
  };
}
