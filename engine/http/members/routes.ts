import Router from '@koa/router';
import type { AppState } from '../server/context.ts';
import type { Services } from '../services.ts';
import { requireApiKey } from '../guards/require-api-key.ts';
import { refuseUnknownQuery } from '../../platform/query/list-query.ts';

/** GET /v1/users: every member of the key's company, at once, without pagination. */
export function memberRoutes({ store }: Services): Router<AppState> {
  const router = new Router<AppState>();
  const apiKey = requireApiKey(store);
  router.get('/v1/users', apiKey, async (ctx) => {
    refuseUnknownQuery(ctx.query);
    const members = await store.members.find({ companyId: ctx.state.principal!.companyId }, { sort: { createdOn: 1 } });
    ctx.body = { success: true, data: members.map((m) => ({ userId: m.userId, name: m.name, email: m.email })) };
  });
  return router;
}
