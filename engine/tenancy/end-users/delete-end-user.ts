import { GatewayError } from '../../platform/errors/index.ts';
import type { TenancyServices } from '../tenancy-services.ts';
import { endUserDeleted } from './end-user-deleted.ts';
import { withEvents } from '../webhooks/with-events.ts';

/**
 * Deletes an end user and everything that acts for them: their pending OAuth
 * authorizations, installations and connections (the credentials with them:
 * someone deleted for privacy expects those gone, and a connection detached
 * from its owner would be credentials nobody answers for).
 *
 * The writes are ordered so that a crash half-way leaves nothing usable and
 * a retry finishes the job:
 *   1. the end user record goes first: from that moment their tokens answer
 *      401 (the token check requires the end user to exist) and nothing new
 *      can be created for them (connections, installations and authorizations
 *      all require the end user; a connection or installation stored while this
 *      runs checks again after its insert: see storeConnection and
 *      createInstallation);
 *   2. then the pending authorizations (a callback can no longer complete),
 *      the installations (they point at the connections), the connections.
 * Every step after the first is a sweep by (companyId, endUserId), so a
 * retry of DELETE after a failure removes what is left even though the
 * record is already gone. The answer is 404 only when nothing of the end
 * user was left to delete: a second DELETE of a fully deleted user.
 */
export async function deleteEndUser(services: TenancyServices, companyId: string, endUserId: string) {
  const { store } = services;
  const owned = { companyId, endUserId };
  // One transaction on the SQL stores (all of it and its event, or none); the order above still holds where there is none.
  return await withEvents(services, async () => {
    const recordDeleted = await store.endUsers.deleteOne({ id: endUserId, companyId });
    const authorizationsDeleted = await store.pendingAuthorizations.deleteMany(owned);
    const installationsDeleted = await store.installations.deleteMany(owned);
    const connectionsDeleted = await store.connections.deleteMany(owned);
    if (!recordDeleted && authorizationsDeleted + installationsDeleted + connectionsDeleted === 0) {
      throw GatewayError.of('NOT_FOUND', `end user ${endUserId} does not exist`);
    }
    const result = { connectionsDeleted, installationsDeleted };
    // The single place the end_user.deleted webhook event is published from.
    await endUserDeleted(services, { companyId, endUserId, ...result });
    return result;
  });
}
