import type { RunAction } from '../arguments/index.ts';
import type { Services } from '../../http/services.ts';
import { runAction } from './run-action.ts';
import { selectConnection } from './select-connection.ts';

/**
 * What the describe endpoints' Lookup options run: the lookup action through
 * the same engine, with the caller's connection (checked to be the caller's
 * company's and for this app, like any run).
 */
export function runActionForLookups(services: Services): RunAction {
  return async (run) => {
    const selected = await selectConnection(services, run.companyId, run.version, { connectionId: run.connectionId });
    const { envelope } = await runAction(services, { companyId: run.companyId, version: run.version, action: run.action, ...selected, arguments: run.arguments, depth: 1 });
    return envelope;
  };
}
