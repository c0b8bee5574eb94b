import { seal } from '../../platform/crypto/cipher.ts';
import { GatewayError } from '../../platform/errors/index.ts';
import { newId } from '../../platform/ids.ts';
import type { TenancyServices } from '../tenancy-services.ts';
import type { Collection, ConnectionRecord } from '../../platform/store/index.ts';
import { RecentRecords } from '../../platform/store/recent-records.ts';
import { connectionView } from './view.ts';
import { publishEvent } from '../webhooks/publish.ts';
import { withEvents } from '../webhooks/with-events.ts';
import { endUserConnectionsLock, requireRoomForConnection } from '../end-users/connection-room.ts';

/** What a connection keeps, sealed: the auth's argument values and any tokens. */
export interface ConnectionSecrets {
  arguments: Record<string, unknown>;
  accessToken?: string;
  refreshToken?: string;
  clientId?: string;
  clientSecret?: string;
}

export async function requireEndUser(services: TenancyServices, companyId: string, endUserId: string): Promise<void> {
  if (!(await services.store.endUsers.findOne({ id: endUserId, companyId }))) {
    throw GatewayError.of('NOT_FOUND', `end user ${endUserId} does not exist`);
  }
}

/** Seals the secrets under the new record's id and stores it; the connect callback uses this too. */
export async function storeConnection(
  services: TenancyServices,
  input: {
    companyId: string;
    appId: string;
    appSlug: string;
    /** The auth definition the connection uses, and its type. */
    authId: string;
    authType: string;
    endUserId: string | null;
    name: string | null;
    /** Who the account is at the app (a login, a workspace), from the auth's verification or authorization; null when unknown. */
    accountLabel?: string | null;
    metadata: Record<string, unknown>;
    secrets: ConnectionSecrets;
    tokenExpiresAt: Date | null;
    /**
     * Set when an end user's session makes it (END_USER_MAX_CONNECTIONS, connection-room.ts): the end user's
     * connections are counted and this one written under their lock, and only while they are fewer.
     */
    maxConnections?: number;
  },
): Promise<ConnectionRecord> {
  const id = newId('con');
  const now = new Date();
  const record: ConnectionRecord = {
    id,
    companyId: input.companyId,
    appId: input.appId,
    appSlug: input.appSlug,
    authId: input.authId,
    authType: input.authType,
    endUserId: input.endUserId,
    name: input.name,
    accountLabel: input.accountLabel ?? null,
    metadata: input.metadata,
    credentials: seal(services.keyring, id, input.secrets),
    credentialsVersion: 1,
    status: 'active',
    tokenExpiresAt: input.tokenExpiresAt,
    createdOn: now,
    updatedOn: now,
  };
  const { endUserId, maxConnections } = input;
  const bounded = endUserId !== null && maxConnections !== undefined;
  const write = async (): Promise<ConnectionRecord> => {
    // Counted under the lock, in the transaction that inserts: creates sent at once cannot each count one fewer than the bound and all insert.
    if (bounded) await requireRoomForConnection(services.store, input.companyId, endUserId, maxConnections);
    const stored = await services.store.connections.insert(record);
    // An end user deleted while this was under way (during an OAuth callback's token exchange, say) has had their
    // connections swept already: checked again after the insert, so either that sweep or this check removes it.
    if (input.endUserId && !(await services.store.endUsers.findOne({ id: input.endUserId, companyId: input.companyId }))) {
      await services.store.connections.deleteOne({ id, companyId: input.companyId });
      throw GatewayError.of('NOT_FOUND', `end user ${input.endUserId} does not exist`);
    }
    await publishEvent(services, record.companyId, { type: 'connection.created', data: connectionView(record) });
    return stored;
  };
  // The connection and its connection.created deliveries are one transaction.
  return await withEvents(services, () => (bounded ? services.store.transaction(write, { exclusive: endUserConnectionsLock(input.companyId, endUserId) }) : write()));
}

/** Connections recently found (every run looks one up); one cache per collection. */
const recent = new WeakMap<Collection<ConnectionRecord>, RecentRecords<ConnectionRecord>>();

/** A connection of this company, or 404: another company's connection is as unknown as a missing one. The record is frozen. */
export async function findConnection(services: Pick<TenancyServices, 'store'>, companyId: string, id: string): Promise<ConnectionRecord> {
  const { connections } = services.store;
  let cache = recent.get(connections);
  if (!cache) recent.set(connections, (cache = new RecentRecords()));
  const record = await cache.find(connections, `${companyId}/${id}`, () => connections.findOne({ id, companyId }));
  if (!record) throw GatewayError.of('NOT_FOUND', `connection ${id} does not exist`);
  return record;
}

/** Deletes a connection no installation uses; one in use is 409 naming the installations. */
export async function deleteConnection(services: TenancyServices, companyId: string, id: string): Promise<void> {
  const record = await findConnection(services, companyId, id);
  await refuseIfUsed(services, companyId, id);
  await withEvents(services, async () => {
    // Under the lock an installation takes to check its connections once it is written (installations.ts): one created
    // meanwhile is seen here, and the delete is undone; or this delete is seen there, and the installation is.
    await services.store.transaction(
      async () => {
        // Another DELETE came first: this one found it, but it is gone (one 200 for one deletion, as one after the other).
        if (!(await services.store.connections.deleteOne({ id, companyId }))) throw GatewayError.of('NOT_FOUND', `connection ${id} does not exist`);
        try {
          await refuseIfUsed(services, companyId, id);
        } catch (error) {
          // A store without transactions (MongoDB) keeps the delete: the connection is written back.
          await services.store.connections.insert(record).catch(() => undefined);
          throw error;
        }
        await publishEvent(services, companyId, { type: 'connection.deleted', data: connectionView(record) });
      },
      { exclusive: connectionsInUseLock(companyId) },
    );
  });
}

/** The lock under which a connection is deleted, and an installation checks that its connections still exist. */
export function connectionsInUseLock(companyId: string): string {
  return `igw:connections-in-use:${companyId}`;
}

async function refuseIfUsed(services: TenancyServices, companyId: string, id: string): Promise<void> {
  const users = await services.store.installations.find({ companyId, 'apps.connectionId': id }, { limit: 10 });
  if (users.length) {
    throw GatewayError.of('CONFLICT', `connection ${id} is used by installation ${users.map((i) => i.id).join(', ')}; delete or change those first`);
  }
}
