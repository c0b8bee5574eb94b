import { open, seal } from '../../platform/crypto/cipher.ts';
import type { ConnectionSecrets } from '../../tenancy/connections/connections.ts';
import type { AccountOption } from '../../core/oauth/post-authorization.ts';
import { GatewayError, validationError } from '../../platform/errors/index.ts';
import { newId } from '../../platform/ids.ts';
import type { PendingAuthorizationRecord } from '../../platform/store/index.ts';
import type { Services } from '../services.ts';
import { finishConnection, type AuthorizationOwner } from './finish-connection.ts';
import { STATE_LIFETIME_SECONDS } from './oauth-state.ts';
import { makeRoomUnderWay } from './under-way.ts';
import { requireRoomForConnection } from '../../tenancy/end-users/connection-room.ts';

/** Who may see and make a choice: the company (API key), or the end user it is for (end-user token). */
export interface Chooser {
  companyId: string;
  /** Set for an end-user token: only that end user's choices. */
  endUserId: string | null;
}

/** A pending choice as GET /v2/connect/choices/{choiceId} answers it. */
export interface ChoiceView {
  id: string;
  appSlug: string;
  authId: string;
  endUserId: string | null;
  connectionId: string | null;
  expiresAt: string;
  /** One option to confirm, not a choice: the end user's session that started the authorization finishes it. */
  confirm: boolean;
  options: { id: string; label: string; metadata: Record<string, string> }[];
}

/**
 * The provider's grant reaches several accounts (Xero organisations) and the
 * end user chooses one, or an end user's session started the authorization
 * and confirms it (`confirm`: one option, the account the grant reached): the
 * tokens wait, sealed, in a pending authorization with the options, for as
 * long as an authorization may take (10 minutes). Answers its id, which the
 * callback hands to the return URL as `choiceId`.
 */
export async function awaitChoice(
  services: Services,
  owner: AuthorizationOwner,
  input: {
    secrets: ConnectionSecrets;
    tokenExpiresAt: Date | null;
    started: Record<string, unknown>;
    given: Record<string, unknown>;
    options: AccountOption[];
    /** A confirmation: the account's label as the connection keeps it (null: not known), whatever its option shows. */
    confirm?: { accountLabel: string | null };
  },
): Promise<string> {
  const id = newId('cho');
  const now = Date.now();
  if (owner.endUserId !== null) await makeRoomUnderWay(services, owner.companyId, owner.endUserId, 'choice', now);
  await services.store.pendingAuthorizations.insert({
    id,
    companyId: owner.companyId,
    appSlug: owner.appSlug,
    authId: owner.authId,
    endUserId: owner.endUserId,
    metadata: input.started,
    secrets: seal(services.keyring, id, { connection: input.secrets }),
    expiresAt: new Date(now + STATE_LIFETIME_SECONDS * 1000),
    createdOn: new Date(now),
    choice: {
      options: input.options,
      given: input.given,
      returnUrl: owner.returnUrl,
      connectionId: owner.connectionId,
      tokenExpiresAt: input.tokenExpiresAt,
      ...(input.confirm ? { confirm: true, accountLabel: input.confirm.accountLabel } : {}),
    },
  });
  return id;
}

/** The pending choice, for its company and (with an end-user token) its end user only; an expired or made one is 404. */
async function findChoice(services: Services, chooser: Chooser, id: string): Promise<PendingAuthorizationRecord & { choice: NonNullable<PendingAuthorizationRecord['choice']> }> {
  const found = id.startsWith('cho_') ? await services.store.pendingAuthorizations.findOne({ id, companyId: chooser.companyId }) : null;
  if (!found || !found.choice || found.expiresAt.getTime() <= Date.now() || (chooser.endUserId !== null && found.endUserId !== chooser.endUserId)) {
    throw GatewayError.of('NOT_FOUND', `no pending choice ${id}: it was made already, it expired (a choice waits ${STATE_LIFETIME_SECONDS / 60} minutes), or it is not yours; authorize again`);
  }
  return found as PendingAuthorizationRecord & { choice: NonNullable<PendingAuthorizationRecord['choice']> };
}

export async function describeChoice(services: Services, chooser: Chooser, id: string): Promise<ChoiceView> {
  const found = await findChoice(services, chooser, id);
  return {
    id: found.id,
    appSlug: found.appSlug,
    authId: found.authId,
    endUserId: found.endUserId,
    connectionId: found.choice.connectionId,
    expiresAt: found.expiresAt.toISOString(),
    confirm: found.choice.confirm === true,
    options: found.choice.options.map((option, i) => ({ id: String(i + 1), label: option.label, metadata: option.metadata })),
  };
}

/**
 * The end user chose option `optionId` (1, 2, ... as listed): the pending
 * authorization is consumed once (a second answer is 404), and the connection
 * is made, or renewed for a reconnect, with the chosen account's metadata.
 */
export async function completeChoice(services: Services, chooser: Chooser, id: string, optionId: string): Promise<{ connectionId: string; created: boolean }> {
  const found = await findChoice(services, chooser, id);
  const index = /^[1-9][0-9]{0,2}$/.test(optionId) ? Number(optionId) - 1 : -1;
  const option = found.choice.options[index];
  if (!option) {
    throw validationError([{ field: 'optionId', rule: 'option', message: `must be the id of one of the ${found.choice.options.length} options of this choice (1 to ${found.choice.options.length})` }]);
  }
  // An end user's session makes no new connection past END_USER_MAX_CONNECTIONS: refused before the choice is used up, so it
  // can still be confirmed after a disconnect; held where the connection is stored (a confirmation sent at once with others).
  const maxConnections = chooser.endUserId !== null && found.choice.connectionId === null ? services.config.endUserTokens.maxConnections : undefined;
  if (maxConnections !== undefined) await requireRoomForConnection(services.store, found.companyId, chooser.endUserId!, maxConnections);
  if (!(await services.store.pendingAuthorizations.deleteOne({ id: found.id }))) {
    throw GatewayError.of('NOT_FOUND', `no pending choice ${id}: it was made already`);
  }
  const { connection } = open<{ connection: ConnectionSecrets }>(services.keyring, found.id, found.secrets);
  const owner: AuthorizationOwner = {
    id: found.id,
    companyId: found.companyId,
    appSlug: found.appSlug,
    authId: found.authId,
    endUserId: found.endUserId,
    returnUrl: found.choice.returnUrl,
    connectionId: found.choice.connectionId,
  };
  try {
    return await finishConnection(services, owner, {
      secrets: connection,
      // Kept as JSON by the SQL stores: a Date again, whichever store kept it.
      tokenExpiresAt: found.choice.tokenExpiresAt === null ? null : new Date(found.choice.tokenExpiresAt),
      started: found.metadata,
      given: { ...found.choice.given, ...option.metadata },
      accountLabel: found.choice.confirm ? (found.choice.accountLabel ?? null) : option.label,
      maxConnections,
    });
  } catch (error) {
    // Another confirmation took the last room first: the choice waits again, as one refused before it was used up.
    if (error instanceof GatewayError && error.code === 'CONNECTION_LIMIT_REACHED') await services.store.pendingAuthorizations.insert(found).catch(() => undefined);
    throw error;
  }
}
