import { GatewayError } from '../../platform/errors/index.ts';
import type { ConnectionRecord } from '../../platform/store/index.ts';
import { findConnection } from '../../tenancy/connections/connections.ts';
import { embeddingSettings } from '../../tenancy/embedding/settings.ts';
import type { McpServices } from '../mcp-services.ts';
import type { Caller } from './caller.ts';

/** The header naming the connections whose tools an API key's request sees (one or more ids, comma-separated). */
export const CONNECTION_ID_HEADER = 'connection-id';
/** The most connections a Connection-Id header may name. */
export const MAX_NAMED_CONNECTIONS = 20;
/** The most of an end user's own connections to enabled apps one request sees without a Connection-Id header (the oldest first). */
export const MAX_END_USER_CONNECTIONS = 50;

/**
 * The connections whose tools a request sees, in id order:
 *
 * - an API key: exactly the ones the Connection-Id header names; each must be
 *   the company's (another company's is as unknown as a missing one);
 * - an end-user token: the end user's own connections to apps the company
 *   enabled for end users (PUT /v2/embedding), the oldest
 *   MAX_END_USER_CONNECTIONS of those; a Connection-Id header names the ones
 *   to see instead, each of which must be the end user's own, to an enabled
 *   app (however many older ones there are).
 *
 * A header that cannot be used throws a GatewayError that says what to send.
 */
export async function scopeOf(services: McpServices, caller: Caller, header: string | null): Promise<ConnectionRecord[]> {
  const named = header === null ? null : namedIds(header);
  if (caller.kind === 'apiKey') {
    if (named === null) {
      throw GatewayError.of('CONNECTION_REQUIRED', 'send a Connection-Id header naming the connection(s) whose tools this API key sees, e.g. Connection-Id: con_123,con_456');
    }
    const found = await Promise.all(named.map((id) => findConnection(services, caller.companyId, id)));
    return found.sort(byId);
  }
  const { companyId, endUser } = caller;
  const { enabledApps } = await embeddingSettings(services.store, companyId);
  const { connections } = services.store;
  const mine = { companyId, endUserId: endUser.id };
  // The apps are filtered in the query, not after it: connections to apps end users may not use never take a place among the oldest.
  if (named === null) {
    if (enabledApps.length === 0) return [];
    return (await connections.find({ ...mine, appSlug: { $in: enabledApps } }, { sort: { createdOn: 1 }, limit: MAX_END_USER_CONNECTIONS })).sort(byId);
  }
  // Named ones are looked up by id, however many older ones the end user has.
  const own = await connections.find({ ...mine, id: { $in: named } }, { limit: named.length });
  return named
    .map((id) => {
      const connection = own.find((c) => c.id === id);
      if (!connection) throw GatewayError.of('NOT_FOUND', `connection ${id} does not exist`);
      if (!enabledApps.includes(connection.appSlug)) {
        throw GatewayError.of('APP_NOT_ENABLED', `app "${connection.appSlug}" is not enabled for end users: the company adds it to enabledApps with PUT /v2/embedding`);
      }
      return connection;
    })
    .sort(byId);
}

function namedIds(header: string): string[] {
  const ids = [...new Set(header.split(',').map((id) => id.trim()))];
  if (ids.some((id) => id === '' || id.length > 128 || !/^[\x21-\x7e]+$/.test(id))) {
    throw GatewayError.of('VALIDATION_ERROR', 'Connection-Id: give connection ids separated by commas, e.g. Connection-Id: con_123,con_456', {
      problems: [{ field: 'Connection-Id', rule: 'format', message: 'must be connection ids separated by commas' }],
    });
  }
  if (ids.length > MAX_NAMED_CONNECTIONS) {
    throw GatewayError.of('VALIDATION_ERROR', `Connection-Id: at most ${MAX_NAMED_CONNECTIONS} connections (got ${ids.length})`, {
      problems: [{ field: 'Connection-Id', rule: 'maxItems', message: `must name at most ${MAX_NAMED_CONNECTIONS} connections` }],
    });
  }
  return ids;
}

function byId(a: ConnectionRecord, b: ConnectionRecord): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
