import type { TenancyServices } from '../tenancy-services.ts';

/**
 * A change and the webhook events it publishes, written in one transaction
 * (store.transaction): the change is never stored without its outbox
 * deliveries, nor the deliveries without the change. The delivery worker is
 * woken once it committed (a worker on another connection sees nothing of
 * it before).
 */
export async function withEvents<R>(services: Pick<TenancyServices, 'store' | 'webhookWorker'>, change: () => Promise<R>): Promise<R> {
  const result = await services.store.transaction(change);
  services.webhookWorker?.wake();
  return result;
}
