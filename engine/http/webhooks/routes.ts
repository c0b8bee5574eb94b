import Router from '@koa/router';
import { requireApiKey } from '../guards/require-api-key.ts';
import type { AppState } from '../server/context.ts';
import { requireBody } from '../server/require-body.ts';
import type { Services } from '../services.ts';
import { refuseUnknownQuery } from '../../platform/query/list-query.ts';
import { compileValidator } from '../../platform/validation/ajv.ts';
import { createWebhook, deleteWebhook, findWebhook, listWebhooks, rotateWebhookSecret, updateWebhook } from '../../tenancy/webhooks/endpoints.ts';
import { createWebhookBody, updateWebhookBody, type CreateWebhookBody, type UpdateWebhookBody } from '../../tenancy/webhooks/schemas.ts';
import { deliveryView, webhookView } from '../../tenancy/webhooks/view.ts';

const validateCreate = compileValidator<CreateWebhookBody>(createWebhookBody, 'body');
const validateUpdate = compileValidator<UpdateWebhookBody>(updateWebhookBody, 'body');

/**
 * /v2/webhooks (API key): where a company's connection events are sent.
 * The signing secret is answered by create and rotate-secret only.
 */
export function webhookRoutes(services: Services): Router<AppState> {
  const router = new Router<AppState>();
  const apiKey = requireApiKey(services.store);

  router.post('/v2/webhooks', apiKey, async (ctx) => {
    const { record, secret } = await createWebhook(services, ctx.state.principal!.companyId, validateCreate(requireBody(ctx)));
    ctx.status = 201;
    // The signing secret is in this answer: no cache (a proxy's, the browser's) may keep it.
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { success: true, data: { ...webhookView(record), secret } };
  });

  router.get('/v2/webhooks', apiKey, async (ctx) => {
    refuseUnknownQuery(ctx.query);
    ctx.body = { success: true, data: (await listWebhooks(services, ctx.state.principal!.companyId)).map(webhookView) };
  });

  router.get('/v2/webhooks/:webhookId', apiKey, async (ctx) => {
    ctx.body = { success: true, data: webhookView(await findWebhook(services, ctx.state.principal!.companyId, ctx.params.webhookId!)) };
  });

  router.patch('/v2/webhooks/:webhookId', apiKey, async (ctx) => {
    const record = await updateWebhook(services, ctx.state.principal!.companyId, ctx.params.webhookId!, validateUpdate(requireBody(ctx)));
    ctx.body = { success: true, data: webhookView(record) };
  });

  router.delete('/v2/webhooks/:webhookId', apiKey, async (ctx) => {
    await deleteWebhook(services, ctx.state.principal!.companyId, ctx.params.webhookId!);
    ctx.body = { success: true, data: { id: ctx.params.webhookId, deleted: true } };
  });

  router.post('/v2/webhooks/:webhookId/rotate-secret', apiKey, async (ctx) => {
    const { record, secret } = await rotateWebhookSecret(services, ctx.state.principal!.companyId, ctx.params.webhookId!);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { success: true, data: { ...webhookView(record), secret } };
  });

  router.get('/v2/webhooks/:webhookId/deliveries', apiKey, async (ctx) => {
    refuseUnknownQuery(ctx.query);
    const companyId = ctx.state.principal!.companyId;
    const endpoint = await findWebhook(services, companyId, ctx.params.webhookId!);
    const deliveries = await services.store.webhookDeliveries.find({ companyId, endpointId: endpoint.id }, { sort: { createdOn: -1 }, limit: services.config.webhooks.deliveriesKept });
    ctx.body = { success: true, data: deliveries.map(deliveryView) };
  });

  return router;
}
