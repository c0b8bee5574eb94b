import type { SealedSecret } from '../../platform/crypto/cipher.ts';
import type { ConnectionRecord } from '../../platform/store/index.ts';
import type { TenancyServices } from '../tenancy-services.ts';
import { publishEvent } from '../webhooks/publish.ts';
import { withEvents } from '../webhooks/with-events.ts';
import { connectionView } from './view.ts';

/**
 * The token store a run renews through (core/auth/token-store.ts), over the
 * connections collection: compare-and-set on `credentialsVersion`, and the
 * webhook event of a status change written by the one who made it.
 */
export function connectionTokenStore(services: TenancyServices) {
  const { connections } = services.store;
  return {
    async current(connection: Pick<ConnectionRecord, 'id' | 'companyId'>): Promise<ConnectionRecord | null> {
      return await connections.findOne({ id: connection.id, companyId: connection.companyId });
    },

    async saveRenewed(seen: ConnectionRecord, renewed: { credentials: SealedSecret; tokenExpiresAt: Date | null }): Promise<ConnectionRecord | null> {
      const update = { ...renewed, status: 'active' as const, updatedOn: new Date(), renewingUntil: null };
      // The compare-and-set and the event it announces are one transaction.
      return await withEvents(services, async () => {
        const won = await connections.updateOne({ id: seen.id, credentialsVersion: seen.credentialsVersion }, { $set: update, $inc: { credentialsVersion: 1 } });
        if (!won) return null;
        const record = { ...seen, ...update, credentialsVersion: seen.credentialsVersion + 1 };
        if (seen.status === 'needs_reauthorization') await publishEvent(services, seen.companyId, { type: 'connection.reauthorized', data: connectionView(record) });
        return record;
      });
    },

    async claimRenewal(seen: ConnectionRecord, until: Date): Promise<boolean> {
      const free = { $or: [{ renewingUntil: { $exists: false } }, { renewingUntil: null }, { renewingUntil: { $lt: new Date() } }] };
      return await connections.updateOne({ id: seen.id, credentialsVersion: seen.credentialsVersion, ...free }, { $set: { renewingUntil: until } });
    },

    async releaseRenewal(seen: ConnectionRecord): Promise<void> {
      await connections.updateOne({ id: seen.id, credentialsVersion: seen.credentialsVersion }, { $set: { renewingUntil: null } });
    },

    async markNeedsReauthorization(seen: ConnectionRecord): Promise<void> {
      const marked = { status: 'needs_reauthorization' as const, updatedOn: new Date(), renewingUntil: null };
      await withEvents(services, async () => {
        const won = await connections.updateOne({ id: seen.id, credentialsVersion: seen.credentialsVersion }, { $set: marked, $inc: { credentialsVersion: 1 } });
        // Only the instance whose compare-and-set made the change tells the webhooks, and only on the change itself.
        if (won && seen.status === 'active') {
          await publishEvent(services, seen.companyId, { type: 'connection.needs_reauthorization', data: connectionView({ ...seen, ...marked }) });
        }
      });
    },
  };
}
