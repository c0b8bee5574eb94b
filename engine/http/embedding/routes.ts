import Router from '@koa/router';
import { unconfiguredOAuthApps } from '../end-user-connections/apps.ts';
import { requireApiKey } from '../guards/require-api-key.ts';
import type { AppState } from '../server/context.ts';
import { requireBody } from '../server/require-body.ts';
import type { Services } from '../services.ts';
import { compileValidator } from '../../platform/validation/ajv.ts';
import { putEmbeddingBody, type PutEmbeddingBody } from '../../tenancy/embedding/schemas.ts';
import { embeddingSettings, embeddingSettingsView, putEmbeddingSettings } from '../../tenancy/embedding/settings.ts';

const validatePut = compileValidator<PutEmbeddingBody>(putEmbeddingBody, 'body');

/** /v2/embedding (API key): the browser origins and the apps of a company's embedded integrations. */
export function embeddingRoutes(services: Services): Router<AppState> {
  const router = new Router<AppState>();
  const apiKey = requireApiKey(services.store);

  router.get('/v2/embedding', apiKey, async (ctx) => {
    ctx.body = { success: true, data: embeddingSettingsView(await embeddingSettings(services.store, ctx.state.principal!.companyId)) };
  });

  router.put('/v2/embedding', apiKey, async (ctx) => {
    const companyId = ctx.state.principal!.companyId;
    const settings = await putEmbeddingSettings(services, companyId, validatePut(requireBody(ctx)));
    // Saved all the same (the client may be configured next), but said now rather than found by an end user.
    const warnings = await unconfiguredOAuthApps(services, companyId, settings.enabledApps);
    ctx.body = { success: true, data: { ...embeddingSettingsView(settings), warnings } };
  });

  return router;
}
