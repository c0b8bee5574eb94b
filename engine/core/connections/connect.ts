import type { AppVersion, AuthEntry } from '../definitions/index.ts';
import { checkJsonSize, CREDENTIALS_MAX_BYTES, METADATA_MAX_BYTES } from '../../platform/validation/json-limits.ts';
import type { DefinitionsRegistry } from '../definitions/index.ts';
import { validationError, type FieldProblem } from '../../platform/errors/index.ts';
import type { ConnectionRecord } from '../../platform/store/index.ts';
import { requireEndUser, storeConnection, type ConnectionSecrets } from '../../tenancy/connections/connections.ts';
import type { CreateConnectionBody } from '../../tenancy/connections/schemas.ts';
import type { TenancyServices } from '../../tenancy/tenancy-services.ts';
import { CONTROL_CHARACTER } from '../arguments/host-variables.ts';
import { checkValues } from './check-values.ts';
import { KIND_FIELDS } from './kind-fields.ts';
import { headerValueProblems } from './header-values.ts';

export { authArgumentValues, KIND_FIELDS } from './kind-fields.ts';
import { verifyCredentials, type VerifyServices } from './verify-credentials.ts';

/**
 * What connecting an app needs: the tenant records, the live definitions a
 * connection is checked against, and the run's outbound client an auth's
 * verification request goes through.
 */
export interface ConnectServices extends TenancyServices {
  definitions: Pick<DefinitionsRegistry, 'current'>;
  run: VerifyServices;
}

/** The version a new connection is checked against: the published one, or the draft of an app not yet published. */
export function connectableVersion(services: Pick<ConnectServices, 'definitions'>, appSlug: string): AppVersion {
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

/**
 * A connection's credentials and metadata at most CREDENTIALS_MAX_BYTES and METADATA_MAX_BYTES as JSON (400
 * maxBytes): checked here, where every way of creating or changing one passes (API key and end-user routes alike).
 */
export function checkConnectionSizes(body: { credentials?: unknown; metadata?: unknown }): void {
  checkJsonSize(body.metadata, 'metadata', METADATA_MAX_BYTES);
  checkJsonSize(body.credentials, 'credentials', CREDENTIALS_MAX_BYTES);
}

/** `maxConnections`: an end user's session makes it, held to END_USER_MAX_CONNECTIONS where it is stored (storeConnection). */
export async function createConnection(services: ConnectServices, companyId: string, body: CreateConnectionBody, limits: { maxConnections?: number } = {}): Promise<ConnectionRecord> {
  checkConnectionSizes(body);
  const version = connectableVersion(services, body.appSlug);
  const auth = pickAuth(version, body.authId);
  if (body.endUserId) await requireEndUser(services, companyId, body.endUserId);
  const credentials = body.credentials ?? {};
  const problems: FieldProblem[] = [...credentialProblems(auth, credentials), ...metadataProblems(version, body.metadata ?? {})];
  if (problems.length) throw validationError(problems);
  const inHeaders = headerValueProblems(version, auth, credentials, body.metadata ?? {});
  if (inHeaders.length) throw validationError(inHeaders);

  const { secrets, tokenExpiresAt } = secretsFrom(auth, credentials);
  // The app's own word on the credentials (the auth's verify), before anything is stored.
  const verified = await verifyCredentials(services.run, version, auth, secrets, body.metadata ?? {});
  return await storeConnection(services, {
    companyId,
    appId: version.app.id,
    appSlug: version.app.slug,
    authId: auth.id,
    authType: auth.type,
    endUserId: body.endUserId ?? null,
    name: body.name ?? null,
    accountLabel: verified?.accountLabel ?? null,
    metadata: body.metadata ?? {},
    secrets,
    tokenExpiresAt,
    maxConnections: limits.maxConnections,
  });
}

/** Credentials checked against the auth's arguments (and the tokens or client credentials its kind keeps); unknown keys are problems. */
export function credentialProblems(auth: AuthEntry, credentials: Record<string, unknown>): FieldProblem[] {
  const problems = checkValues('credentials', credentials, auth.arguments, { strict: true, extra: KIND_FIELDS[auth.type] ?? [] });
  // No header, query or form takes a line break as it is: such a credential could be stored but never used (every run a 400).
  for (const [key, value] of Object.entries(credentials)) {
    const field = `credentials.${key}`;
    if (typeof value === 'string' && CONTROL_CHARACTER.test(value) && !problems.some((p) => p.field === field)) {
      problems.push({ field, rule: 'control', message: 'must not contain line breaks or other control characters' });
    }
  }
  return problems;
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
