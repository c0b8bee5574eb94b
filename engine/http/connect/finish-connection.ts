import type { ConnectionSecrets } from '../../tenancy/connections/connections.ts';
import { storeConnection } from '../../tenancy/connections/connections.ts';
import { connectableVersion, pickAuth } from '../../core/connections/connect.ts';
import type { Services } from '../services.ts';
import { renewConnection } from './renew-connection.ts';

/** Whose authorization it is, as its state said: the company, the app and auth, the end user, and the connection a reconnect renews. */
export interface AuthorizationOwner {
  id: string;
  companyId: string;
  appSlug: string;
  authId: string;
  endUserId: string | null;
  returnUrl: string;
  connectionId: string | null;
}

/**
 * The last step of an authorization, from the callback or from an end user's
 * choice of account: a new connection with the tokens and the metadata
 * (what the authorization started with, and what the provider gave:
 * callback parameters, token response fields, the chosen account), or, for a
 * reconnect, the named connection renewed in place with the provider's values
 * over its own. A new connection's accountLabel is the chosen account's
 * label (the auth's postAuthorization), when there was one.
 */
export async function finishConnection(
  services: Services,
  owner: AuthorizationOwner,
  input: {
    secrets: ConnectionSecrets;
    tokenExpiresAt: Date | null;
    started: Record<string, unknown>;
    given: Record<string, unknown>;
    accountLabel?: string | null;
    /** An end user's session finishes it: a new connection is held to END_USER_MAX_CONNECTIONS (storeConnection). */
    maxConnections?: number;
  },
): Promise<{ connectionId: string; created: boolean }> {
  if (owner.connectionId !== null) {
    const renewed = await renewConnection(services, { ...owner, connectionId: owner.connectionId }, { secrets: input.secrets, tokenExpiresAt: input.tokenExpiresAt, kept: input.given });
    return { connectionId: renewed.id, created: false };
  }
  const version = connectableVersion(services, owner.appSlug);
  const auth = pickAuth(version, owner.authId);
  const connection = await storeConnection(services, {
    companyId: owner.companyId,
    appId: version.app.id,
    appSlug: version.app.slug,
    authId: auth.id,
    authType: auth.type,
    endUserId: owner.endUserId,
    name: null,
    // The account the post-authorization request named (its label), when the auth has one.
    accountLabel: input.accountLabel ?? null,
    metadata: { ...input.started, ...input.given },
    secrets: input.secrets,
    tokenExpiresAt: input.tokenExpiresAt,
    maxConnections: input.maxConnections,
  });
  return { connectionId: connection.id, created: true };
}
