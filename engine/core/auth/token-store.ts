import type { SealedSecret } from '../../platform/crypto/cipher.ts';
import type { ConnectionRecord } from '../../platform/store/index.ts';

/**
 * Where a token renewal reads and writes a connection's credentials. Every
 * write is a compare-and-set on `credentialsVersion`, so between gateway
 * processes on one store the store is the referee: a loser takes the
 * winner's token instead of renewing again. A change of the connection's
 * status is announced (a webhook event) by whoever made it, once.
 * Implemented over the tenant records by tenancy/connections/token-store.ts.
 */
export interface TokenStore {
  /** The connection as stored now, or null when it was deleted. */
  current(connection: Pick<ConnectionRecord, 'id' | 'companyId'>): Promise<ConnectionRecord | null>;
  /**
   * Writes renewed credentials and makes the connection active, unless it
   * changed since `seen`: the record as written, or null when another write
   * won. A connection that needed re-authorization is announced re-authorized.
   */
  saveRenewed(seen: ConnectionRecord, renewed: { credentials: SealedSecret; tokenExpiresAt: Date | null }): Promise<ConnectionRecord | null>;
  /** Marks the connection needs_reauthorization unless it changed since `seen`; announced when this call made the change. */
  markNeedsReauthorization(seen: ConnectionRecord): Promise<void>;
  /**
   * Takes the renewal of the connection until `until`, unless it changed since `seen` or another renewal
   * holds it (a lease not yet past): true when this caller renews, and every other gateway waits for it.
   */
  claimRenewal(seen: ConnectionRecord, until: Date): Promise<boolean>;
  /** Gives up a renewal this caller claimed and did not finish (the token endpoint failed): the next caller renews. */
  releaseRenewal(seen: ConnectionRecord): Promise<void>;
}
