import type { ActionEntry, AppVersion } from '../../core/definitions/index.ts';
import type { Exchange } from '../server/exchange.ts';
import type { ConnectionRecord } from '../../platform/store/index.ts';
import { envelopeOutcome, errorOutcome, runFactsOf, type RunFacts } from '../../core/run/run-facts.ts';

/** What a run endpoint resolved before it runs; the answer it gets back. */
interface RunStart {
  companyId: string;
  version: AppVersion;
  action: ActionEntry;
  connection: ConnectionRecord;
}
interface Answered {
  status: number;
  envelope: { success: boolean; meta: { retries: number } };
}

/**
 * Runs `perform` with the run's facts on ctx.state.run, and records how it
 * ended: the envelope's outcome and retries, or the outcome of the error it
 * threw (rethrown unchanged). The request log and the metrics read them.
 */
export async function observeRun<T extends Answered>(ctx: Exchange, start: RunStart, perform: (facts: RunFacts) => Promise<T>): Promise<T> {
  const facts: RunFacts = runFactsOf(start);
  ctx.state.run = facts;
  try {
    const answered = await perform(facts);
    facts.outcome = envelopeOutcome(answered.status, answered.envelope.success);
    facts.retries = answered.envelope.meta.retries;
    return answered;
  } catch (error) {
    facts.outcome = errorOutcome(error, ctx.res.destroyed || ctx.socket.destroyed);
    throw error;
  }
}
