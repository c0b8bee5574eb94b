import type { ConnectionRecord } from '../../platform/store/index.ts';

/** What the API shows of a connection: everything but its credentials. */
export function connectionView(record: ConnectionRecord) {
  return {
    id: record.id,
    appId: record.appId,
    appSlug: record.appSlug,
    authId: record.authId,
    authType: record.authType,
    endUserId: record.endUserId,
    name: record.name,
    accountLabel: record.accountLabel ?? null,
    metadata: record.metadata,
    status: record.status,
    tokenExpiresAt: record.tokenExpiresAt ? record.tokenExpiresAt.toISOString() : null,
    createdOn: record.createdOn.toISOString(),
    updatedOn: record.updatedOn.toISOString(),
  };
}
