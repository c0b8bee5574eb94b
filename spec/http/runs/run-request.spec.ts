import { expect } from 'chai';
import { EventEmitter } from 'node:events';
import { runRequest } from '../../../engine/http/runs/routes.ts';
import type { AppContext } from '../../../engine/http/server/context.ts';
import type { Selected } from '../../../engine/core/run/select-connection.ts';
import type { ActionEntry, AppVersion } from '../../../engine/core/definitions/index.ts';
import type { RunFacts } from '../../../engine/core/run/run-facts.ts';

/** A context whose response can close, as a caller's connection does. */
function context(): { ctx: AppContext; res: EventEmitter & { writableEnded: boolean } } {
  const res = Object.assign(new EventEmitter(), { writableEnded: false });
  return { ctx: { res } as unknown as AppContext, res };
}

describe('what a run endpoint asks runAction for (runRequest)', () => {
  const version = { app: { slug: 'shop' }, version: 2 } as unknown as AppVersion;
  const action = { slug: 'list-orders' } as unknown as ActionEntry;
  const facts = { companyId: 'cmp_1', retries: 0 } as unknown as RunFacts;

  it('carries the company, app version, action, the selected connection, installation and end user, the arguments and the facts, and nothing else', () => {
    const selected = { connection: { id: 'con_1' }, installation: { id: 'ins_1' }, endUser: { id: 'eu_1' } } as unknown as Selected;
    const args = { status: 'open' };
    const { ctx } = context();
    const run = runRequest('cmp_1', version, action, selected, args, ctx, facts);
    expect(Object.keys(run)).to.deep.equal(['companyId', 'version', 'action', 'connection', 'installation', 'endUser', 'arguments', 'signal', 'facts']);
    expect(run).to.deep.include({ companyId: 'cmp_1', version, action, connection: selected.connection, installation: selected.installation, endUser: selected.endUser, arguments: args, facts });
  });

  it('gives a signal that stops the run when the caller goes away before the answer, and not after it', () => {
    const selected = { connection: { id: 'con_1' }, installation: null, endUser: null } as unknown as Selected;
    const gone = context();
    const stopped = runRequest('cmp_1', version, action, selected, {}, gone.ctx, facts);
    expect(stopped.signal!.aborted).to.equal(false);
    gone.res.emit('close');
    expect(stopped.signal!.aborted).to.equal(true);

    const answered = context();
    const finished = runRequest('cmp_1', version, action, selected, {}, answered.ctx, facts);
    answered.res.writableEnded = true;
    answered.res.emit('close');
    expect(finished.signal!.aborted).to.equal(false);
  });
});
