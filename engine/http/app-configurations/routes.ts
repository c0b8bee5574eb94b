import Router from '@koa/router';
import { connectableVersion } from '../../core/connections/connect.ts';
import { requireApiKey } from '../guards/require-api-key.ts';
import { GatewayError } from '../../platform/errors/index.ts';
import type { AppState } from '../server/context.ts';
import { requireBody } from '../server/require-body.ts';
import type { Services } from '../services.ts';
import { compileValidator } from '../../platform/validation/ajv.ts';
import { appConfigurationView, findAppConfiguration, putAppConfiguration } from '../../tenancy/app-configurations/app-configurations.ts';
import { putAppConfigurationBody, type PutAppConfigurationBody } from '../../tenancy/app-configurations/schemas.ts';

const validatePut = compileValidator<PutAppConfigurationBody>(putAppConfigurationBody, 'body');

/** /v2/apps/{appSlug}/configuration (API key): your OAuth client and credential-exchange endpoint for one app. */
export function appConfigurationRoutes(services: Services): Router<AppState> {
  const router = new Router<AppState>();
  const apiKey = requireApiKey(services.store);

  router.put('/v2/apps/:appSlug/configuration', apiKey, async (ctx) => {
    const body = validatePut(requireBody(ctx));
    connectableVersion(services, ctx.params.appSlug!);
    const record = await putAppConfiguration(services, ctx.state.principal!.companyId, ctx.params.appSlug!, body);
    ctx.body = { success: true, data: appConfigurationView(record) };
  });

  router.get('/v2/apps/:appSlug/configuration', apiKey, async (ctx) => {
    const record = await findAppConfiguration(services, ctx.state.principal!.companyId, ctx.params.appSlug!);
    if (!record) throw GatewayError.of('NOT_FOUND', `app "${ctx.params.appSlug}" has no configuration for your company`);
    ctx.body = { success: true, data: appConfigurationView(record) };
  });

  return router;
}
