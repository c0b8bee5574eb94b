import Router from '@koa/router';
import { requireApiKey } from '../auth/require-api-key.ts';
import { paginationMeta, parseListQuery, pickFields } from '../query/list-query.ts';
import type { AppState } from '../server/context.ts';
import type { Services } from '../services.ts';
import { COMPANY_FIELDS, COMPANY_LIST_OPTIONS, companyItem } from './company-fields.ts';
import type { ListCompaniesResponse } from './schemas.ts';

/** GET /v1/companies: the companies the key's owner is a member of, filtered, sorted and paged. */
export function companyRoutes({ store }: Services): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/v1/companies', requireApiKey(store), async (ctx) => {
    const query = parseListQuery(ctx.query, COMPANY_FIELDS, COMPANY_LIST_OPTIONS);
    const memberships = await store.members.find({ userId: ctx.state.principal!.userId });
    const mine = { id: { $in: memberships.map((m) => m.companyId) } };
    const filter = Object.keys(query.filter).length ? { $and: [mine, query.filter] } : mine;
    const [companies, totalCount] = await Promise.all([
      store.companies.find(filter, { sort: query.sort, skip: query.skip, limit: query.limit }),
      store.companies.count(filter),
    ]);
    const body: ListCompaniesResponse = {
      success: true,
      data: companies.map((c) => pickFields(companyItem(c), query.fields)),
      meta: { pagination: paginationMeta(totalCount, query, companies.length) },
    };
    ctx.body = body;
  });
  return router;
}
