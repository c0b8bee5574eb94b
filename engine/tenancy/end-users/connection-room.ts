import { GatewayError } from '../../platform/errors/index.ts';
import type { Store } from '../../platform/store/index.ts';

/**
 * END_USER_MAX_CONNECTIONS: an end user's own session (an end-user token, which lives in a browser) makes no
 * connection once its end user has this many, whoever made them; it can delete one first. The attempts a
 * minute (connect-attempts.ts) bound how fast the connections grow, this how far. Your backend's API key is
 * not held to it. Counted with the bound as the limit, so a check costs at most that many index entries.
 *
 * A check before the work (a credentials check, a sign-in) only refuses early: the count that holds is the one
 * storeConnection makes under endUserConnectionsLock, with the insert (connections.ts).
 */
export async function requireRoomForConnection(store: Pick<Store, 'connections'>, companyId: string, endUserId: string, maxConnections: number): Promise<void> {
  const held = await store.connections.count({ companyId, endUserId }, { limit: maxConnections });
  if (held < maxConnections) return;
  throw GatewayError.of(
    'CONNECTION_LIMIT_REACHED',
    `end user ${endUserId} has ${maxConnections} connections, the most an end user's session may make (END_USER_MAX_CONNECTIONS); disconnect one first`,
  );
}

/**
 * The lock (store.transaction `exclusive`) under which an end user's connections are counted and one more is
 * written: creates sent at once cannot each count one fewer than the bound and all insert. On the SQL stores it
 * holds across a fleet; on MongoDB within one gateway process only (port.ts).
 */
export function endUserConnectionsLock(companyId: string, endUserId: string): string {
  return `igw:end-user-connections:${companyId}:${endUserId}`;
}
