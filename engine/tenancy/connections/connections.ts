import { seal } from '../../platform/crypto/cipher.ts';
import type { AppVersion, AuthEntry } from '../../core/definitions/index.ts';
import { GatewayError, validationError, type FieldProblem } from '../../platform/errors/index.ts';
import { newId } from '../../platform/ids.ts';
import type { Services } from '../../http/services.ts';
import type { Collection, ConnectionRecord } from '../../platform/store/index.ts';
import { RecentRecords } from '../../platform/store/recent-records.ts';
import { checkValues, type ExtraField } from '../../core/connections/check-values.ts';
import type { CreateConnectionBody } from './schemas.ts';
import { connectionView } from './view.ts';
import { publishEvent } from '../webhooks/publish.ts';

/** What a connection keeps, sealed: the auth's argument values and any tokens. */
export interface ConnectionSecrets {
  arguments: Record<string, unknown>;
  accessToken?: string;
  refreshToken?: string;
  clientId?: string;
  clientSecret?: string;
}

/** Values an auth kind keeps besides its own arguments, as a caller gives them on create. */
export const KIND_FIELDS: Record<string, readonly ExtraField[]> = {
  // Importing tokens obtained elsewhere; the usual way in is the connect flow.
  OAuth2AuthorizationCode: [
    { key: 'accessToken', type: 'string', required: true },
    { key: 'refreshToken', type: 'string', required: false },
    { key: 'expiresAt', type: 'string', required: false, format: 'date-time' },
  ],
  OAuth2ClientCredentials: [
    { key: 'clientId', type: 'string', required: true },
    { key: 'clientSecret', type: 'string', required: true },
  ],
};

/** The version a new connection is checked against: the published one, or the draft of an app not yet published. */
export function connectableVersion(services: Services, appSlug: string): AppVersion {
  const app = services.definitions.current().appsBySlug.get(appSlug);
  const version = app && (app.published !== undefined ? app.versions.get(app.published) : app.draft);
  if (!app || !version) {
    throw validationError([{ field: 'appSlug', rule: 'exists', message: app ? `app "${appSlug}" has no version to connect to` : `no app with slug "${appSlug}"` }]);
  }
  return version;
}

export function pickAuth(version: AppVersion, authId: string | undefined): AuthEntry {
  const auth = authId ? version.auths.get(authId) : version.api.auths[0];
  if (!auth) {
    const ids = [...version.auths.keys()].join(', ');
    throw validationError([{ field: 'authId', rule: 'exists', message: `app "${version.app.slug}" has no auth "${authId}" (it has: ${ids})` }]);
  }
  return auth;
}

export async function requireEndUser(services: Services, companyId: string, endUserId: string): Promise<void> {
  if (!(await services.store.endUsers.findOne({ id: endUserId, companyId }))) {
    throw GatewayError.of('NOT_FOUND', `end user ${endUserId} does not exist`);
  }
}

export async function createConnection(services: Services, companyId: string, body: CreateConnectionBody): Promise<ConnectionRecord> {
  const version = connectableVersion(services, body.appSlug);
  const auth = pickAuth(version, body.authId);
  if (body.endUserId) await requireEndUser(services, companyId, body.endUserId);
  const credentials = body.credentials ?? {};
  const problems: FieldProblem[] = [...credentialProblems(auth, credentials), ...metadataProblems(version, body.metadata ?? {})];
  if (problems.length) throw validationError(problems);

  const { secrets, tokenExpiresAt } = secretsFrom(auth, credentials);
  return await storeConnection(services, {
    companyId,
    appId: version.app.id,
    appSlug: version.app.slug,
    auth,
    endUserId: body.endUserId ?? null,
    name: body.name ?? null,
    metadata: body.metadata ?? {},
    secrets,
    tokenExpiresAt,
  });
}

/** Credentials checked against the auth's arguments (and the tokens or client credentials its kind keeps); unknown keys are problems. */
export function credentialProblems(auth: AuthEntry, credentials: Record<string, unknown>): FieldProblem[] {
  return checkValues('credentials', credentials, auth.arguments, { strict: true, extra: KIND_FIELDS[auth.type] ?? [] });
}

/** Host variables checked against the API's arguments. */
export function metadataProblems(version: AppVersion, metadata: Record<string, unknown>): FieldProblem[] {
  return checkValues('metadata', metadata, version.api.arguments, { strict: false });
}

/** What a connection keeps, sealed, from credentials as a caller gives them (already checked). */
export function secretsFrom(auth: AuthEntry, credentials: Record<string, unknown>): { secrets: ConnectionSecrets; tokenExpiresAt: Date | null } {
  const { accessToken, refreshToken, expiresAt, clientId, clientSecret, ...rest } = credentials as Record<string, string | undefined>;
  const secrets: ConnectionSecrets = { arguments: auth.type in KIND_FIELDS ? rest : credentials };
  if (accessToken) secrets.accessToken = accessToken;
  if (refreshToken) secrets.refreshToken = refreshToken;
  if (clientId) secrets.clientId = clientId;
  if (clientSecret) secrets.clientSecret = clientSecret;
  return { secrets, tokenExpiresAt: expiresAt ? new Date(expiresAt) : null };
}

/**
 * The values of the auth's arguments, as a run fills its host variables: what
 * secretsFrom kept as arguments, plus the kind's own fields (a client-credentials
 * auth's clientId and clientSecret) that the auth also declares as arguments,
 * which are kept once, where the token call reads them.
 */
export function authArgumentValues(auth: AuthEntry, secrets: Readonly<ConnectionSecrets>): Record<string, unknown> {
  const values: Record<string, unknown> = { ...secrets.arguments };
  for (const { key } of KIND_FIELDS[auth.type] ?? []) {
    const kept = (secrets as unknown as Record<string, unknown>)[key];
    if (kept !== undefined && auth.arguments.some((arg) => !arg.parent && arg.key === key)) values[key] = kept;
  }
  return values;
}

/** Seals the secrets under the new record's id and stores it; the connect callback uses this too. */
export async function storeConnection(
  services: Services,
  input: {
    companyId: string;
    appId: string;
    appSlug: string;
    auth: AuthEntry;
    endUserId: string | null;
    name: string | null;
    metadata: Record<string, unknown>;
    secrets: ConnectionSecrets;
    tokenExpiresAt: Date | null;
  },
): Promise<ConnectionRecord> {
  const id = newId('con');
  const now = new Date();
  const record: ConnectionRecord = {
    id,
    companyId: input.companyId,
    appId: input.appId,
    appSlug: input.appSlug,
    authId: input.auth.id,
    authType: input.auth.type,
    endUserId: input.endUserId,
    name: input.name,
    metadata: input.metadata,
    credentials: seal(services.keyring, id, input.secrets),
    credentialsVersion: 1,
    status: 'active',
    tokenExpiresAt: input.tokenExpiresAt,
    createdOn: now,
    updatedOn: now,
  };
  const stored = await services.store.connections.insert(record);
  // An end user deleted while this was under way (during an OAuth callback's token exchange, say) has had their
  // connections swept already: checked again after the insert, so either that sweep or this check removes it.
  if (input.endUserId && !(await services.store.endUsers.findOne({ id: input.endUserId, companyId: input.companyId }))) {
    await services.store.connections.deleteOne({ id, companyId: input.companyId });
    throw GatewayError.of('NOT_FOUND', `end user ${input.endUserId} does not exist`);
  }
  await publishEvent(services, record.companyId, { type: 'connection.created', data: connectionView(record) });
  return stored;
}

/** Connections recently found (every run looks one up); one cache per collection. */
const recent = new WeakMap<Collection<ConnectionRecord>, RecentRecords<ConnectionRecord>>();

/** A connection of this company, or 404: another company's connection is as unknown as a missing one. The record is frozen. */
export async function findConnection(services: Services, companyId: string, id: string): Promise<ConnectionRecord> {
  const { connections } = services.store;
  let cache = recent.get(connections);
  if (!cache) recent.set(connections, (cache = new RecentRecords()));
  const record = await cache.find(connections, `${companyId}/${id}`, () => connections.findOne({ id, companyId }));
  if (!record) throw GatewayError.of('NOT_FOUND', `connection ${id} does not exist`);
  return record;
}

/** Deletes a connection no installation uses; one in use is 409 naming the installations. */
export async function deleteConnection(services: Services, companyId: string, id: string): Promise<void> {
  const record = await findConnection(services, companyId, id);
  const users = await services.store.installations.find({ companyId, 'apps.connectionId': id }, { limit: 10 });
  if (users.length) {
    throw GatewayError.of('CONFLICT', `connection ${id} is used by installation ${users.map((i) => i.id).join(', ')}; delete or change those first`);
  }
  if (await services.store.connections.deleteOne({ id, companyId })) {
    await publishEvent(services, companyId, { type: 'connection.deleted', data: connectionView(record) });
  }
}
