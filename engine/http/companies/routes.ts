import Router from '@koa/router';
import { requireApiKey } from '../guards/require-api-key.ts';
import { listPage } from '../../platform/query/list-page.ts';
import type { AppState } from '../server/context.ts';
import type { Services } from '../services.ts';
import { COMPANY_FIELDS, COMPANY_LIST_OPTIONS, companyItem } from '../../tenancy/companies/company-fields.ts';
import type { ListCompaniesResponse } from '../../tenancy/companies/schemas.ts';

/** GET /v1/companies: the companies the key's owner is a member of, filtered, sorted and paged. */
export function companyRoutes({ store }: Services): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/v1/companies', requireApiKey(store), async (ctx) => {
    const memberships = await store.members.find({ userId: ctx.state.principal!.userId });
    const mine = { id: { $in: memberships.map((m) => m.companyId) } };
    const body: ListCompaniesResponse = await listPage(store.companies, mine, ctx.query, COMPANY_FIELDS, COMPANY_LIST_OPTIONS, companyItem);
    ctx.body = body;
  });
  return router;
}
