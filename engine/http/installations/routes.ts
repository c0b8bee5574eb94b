import Router from '@koa/router';
import { requireApiKey } from '../guards/require-api-key.ts';
import { listPage } from '../../platform/query/list-page.ts';
import type { AppState } from '../server/context.ts';
import { requireBody } from '../server/require-body.ts';
import type { Services } from '../services.ts';
import { compileValidator } from '../../platform/validation/ajv.ts';
import { checkJsonSize, METADATA_MAX_BYTES } from '../../platform/validation/json-limits.ts';
import { INSTALLATION_FIELDS, INSTALLATION_LIST_OPTIONS } from '../../tenancy/installations/installation-fields.ts';
import { createInstallation, deleteInstallation, findInstallation, installationView } from '../../tenancy/installations/installations.ts';
import { createInstallationBody, type CreateInstallationBody } from '../../tenancy/installations/schemas.ts';

const validateCreate = compileValidator<CreateInstallationBody>(createInstallationBody, 'body');

/** /v2/installations (API key): end users' installations of apps, each app bound to a connection. */
export function installationRoutes(services: Services): Router<AppState> {
  const router = new Router<AppState>();
  const apiKey = requireApiKey(services.store);

  router.post('/v2/installations', apiKey, async (ctx) => {
    const body = validateCreate(requireBody(ctx));
    checkJsonSize(body.metadata, 'metadata', METADATA_MAX_BYTES);
    const record = await createInstallation(services, ctx.state.principal!.companyId, body);
    ctx.status = 201;
    ctx.body = { success: true, data: installationView(record) };
  });

  router.get('/v2/installations', apiKey, async (ctx) => {
    ctx.body = await listPage(services.store.installations, { companyId: ctx.state.principal!.companyId }, ctx.query, INSTALLATION_FIELDS, INSTALLATION_LIST_OPTIONS, installationView);
  });

  router.get('/v2/installations/:installationId', apiKey, async (ctx) => {
    const record = await findInstallation(services, ctx.state.principal!.companyId, ctx.params.installationId!);
    ctx.body = { success: true, data: installationView(record) };
  });

  router.delete('/v2/installations/:installationId', apiKey, async (ctx) => {
    const companyId = ctx.state.principal!.companyId;
    await deleteInstallation(services, companyId, ctx.params.installationId!);
    ctx.body = { success: true, data: { id: ctx.params.installationId, deleted: true } };
  });

  return router;
}
