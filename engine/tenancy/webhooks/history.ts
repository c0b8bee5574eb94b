import type { TenancyServices } from '../tenancy-services.ts';

/** Keeps the newest WEBHOOK_DELIVERIES_KEPT finished deliveries of the endpoint (pending ones are bounded by WEBHOOK_MAX_PENDING instead). */
export async function pruneHistory(services: Pick<TenancyServices, 'store'>, companyId: string, endpointId: string, kept: number): Promise<void> {
  const old = await services.store.webhookDeliveries.find(
    { companyId, endpointId, status: { $in: ['delivered', 'failed'] } },
    { sort: { createdOn: -1 }, skip: kept, limit: 100 },
  );
  if (old.length) await services.store.webhookDeliveries.deleteMany({ companyId, id: { $in: old.map((d) => d.id) } });
}
