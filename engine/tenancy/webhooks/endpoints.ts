import { open, seal } from '../../platform/crypto/cipher.ts';
import { GatewayError } from '../../platform/errors/index.ts';
import { newId } from '../../platform/ids.ts';
import type { TenancyServices } from '../tenancy-services.ts';
import type { WebhookEndpointRecord } from '../../platform/store/index.ts';
import type { CreateWebhookBody, UpdateWebhookBody } from './schemas.ts';
import { newWebhookSecret } from './signature.ts';
import { checkWebhookUrl } from './webhook-url.ts';

/** Endpoints one company may register: each event is written once per endpoint, in the request that made the change. */
export const MAX_WEBHOOKS_PER_COMPANY = 20;

export async function createWebhook(services: TenancyServices, companyId: string, body: CreateWebhookBody): Promise<{ record: WebhookEndpointRecord; secret: string }> {
  const url = await checkWebhookUrl(body.url, services.config.egressAllow);
  const id = newId('whk');
  const secret = newWebhookSecret();
  const now = new Date();
  const record: WebhookEndpointRecord = {
    id,
    companyId,
    url,
    events: body.events ?? [],
    description: body.description ?? null,
    enabled: true,
    disabledReason: null,
    secret: seal(services.keyring, id, { secret }),
    createdOn: now,
    updatedOn: now,
  };
  // Counted and written under the company's lock (SQL stores): creates sent at once cannot each count 19 and all insert.
  await services.store.transaction(
    async (store) => {
      if ((await store.webhookEndpoints.count({ companyId })) >= MAX_WEBHOOKS_PER_COMPANY) {
        throw GatewayError.of('CONFLICT', `a company has at most ${MAX_WEBHOOKS_PER_COMPANY} webhook endpoints; delete one first`);
      }
      await store.webhookEndpoints.insert(record);
    },
    { exclusive: `igw:webhooks:${companyId}` },
  );
  return { record, secret };
}

/** An endpoint of this company, or 404: another company's is as unknown as a missing one. */
export async function findWebhook(services: TenancyServices, companyId: string, id: string): Promise<WebhookEndpointRecord> {
  const record = await services.store.webhookEndpoints.findOne({ id, companyId });
  if (!record) throw GatewayError.of('NOT_FOUND', `webhook endpoint ${id} does not exist`);
  return record;
}

export async function listWebhooks(services: TenancyServices, companyId: string): Promise<WebhookEndpointRecord[]> {
  return await services.store.webhookEndpoints.find({ companyId }, { sort: { createdOn: 1 } });
}

export async function updateWebhook(services: TenancyServices, companyId: string, id: string, body: UpdateWebhookBody): Promise<WebhookEndpointRecord> {
  await findWebhook(services, companyId, id);
  const set: Partial<WebhookEndpointRecord> = { updatedOn: new Date() };
  if (body.url !== undefined) set.url = await checkWebhookUrl(body.url, services.config.egressAllow);
  if (body.events !== undefined) set.events = body.events;
  if (body.description !== undefined) set.description = body.description;
  if (body.enabled !== undefined) {
    set.enabled = body.enabled;
    set.disabledReason = null;
  }
  await services.store.webhookEndpoints.updateOne({ id, companyId }, { $set: set });
  return await findWebhook(services, companyId, id);
}

/** Deletes the endpoint and its deliveries, pending ones included: nothing is sent to it any more. */
export async function deleteWebhook(services: TenancyServices, companyId: string, id: string): Promise<void> {
  await findWebhook(services, companyId, id);
  // Another DELETE came first: one 200 for one deletion.
  if (!(await services.store.webhookEndpoints.deleteOne({ id, companyId }))) throw GatewayError.of('NOT_FOUND', `webhook endpoint ${id} does not exist`);
  await services.store.webhookDeliveries.deleteMany({ companyId, endpointId: id });
}

/** A new secret replaces the old one at once: deliveries from now on (retries included) are signed with it. */
export async function rotateWebhookSecret(services: TenancyServices, companyId: string, id: string): Promise<{ record: WebhookEndpointRecord; secret: string }> {
  await findWebhook(services, companyId, id);
  const secret = newWebhookSecret();
  await services.store.webhookEndpoints.updateOne({ id, companyId }, { $set: { secret: seal(services.keyring, id, { secret }), updatedOn: new Date() } });
  return { record: await findWebhook(services, companyId, id), secret };
}

export function webhookSecret(services: TenancyServices, record: WebhookEndpointRecord): string {
  return open<{ secret: string }>(services.keyring, record.id, record.secret).secret;
}
