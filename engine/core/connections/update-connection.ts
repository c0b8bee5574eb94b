import { seal } from '../../platform/crypto/cipher.ts';
import { GatewayError, validationError, type FieldProblem } from '../../platform/errors/index.ts';
import type { ConnectionRecord } from '../../platform/store/index.ts';
import { findConnection } from '../../tenancy/connections/connections.ts';
import { checkConnectionSizes, connectableVersion, credentialProblems, metadataProblems, secretsFrom, type ConnectServices } from './connect.ts';
import type { UpdateConnectionBody } from '../../tenancy/connections/schemas.ts';
import { connectionView } from '../../tenancy/connections/view.ts';
import { publishEvent } from '../../tenancy/webhooks/publish.ts';
import { withEvents } from '../../tenancy/webhooks/with-events.ts';
import { verifyCredentials } from './verify-credentials.ts';
import { headerValueProblems } from './header-values.ts';

/**
 * PATCH /v2/connections/{id}: replaces a connection's credentials and/or
 * metadata (each whole, checked as on create against the auth and API of the
 * app version a new connection would use) and its name, in place: the id,
 * and the installations that use it, stay. New credentials are sealed like
 * on create and never answered. Changing the credentials or the metadata
 * makes the connection active again (clearing needs_reauthorization), so the
 * next run uses them; the change moves the credentials version on, so a
 * token renewal running meanwhile cannot overwrite it (its write is a
 * compare-and-set on that version). PATCHes sent at once each apply, the
 * last written standing, as for any other record. New
 * credentials of an auth with a verify are checked with the app first (a
 * refusal is a 400 and nothing changes) and give the account label anew.
 */
export async function updateConnection(services: ConnectServices, companyId: string, id: string, body: UpdateConnectionBody): Promise<ConnectionRecord> {
  checkConnectionSizes(body);
  const current = await findConnection(services, companyId, id);
  const version = connectableVersion(services, current.appSlug);
  const auth = version.auths.get(current.authId);
  if (!auth) {
    throw GatewayError.of('CONFLICT', `connection ${id} uses auth "${current.authId}", which ${current.appSlug} version ${version.version} no longer has; create a new connection`);
  }
  const problems: FieldProblem[] = [
    ...(body.credentials !== undefined ? credentialProblems(auth, body.credentials) : []),
    ...(body.metadata !== undefined ? metadataProblems(version, body.metadata) : []),
  ];
  if (problems.length) throw validationError(problems);
  const changesSecrets = body.credentials !== undefined || body.metadata !== undefined;
  if (changesSecrets) {
    // Only what this PATCH gives is checked: a stored value was checked when it was given.
    const inHeaders = headerValueProblems(version, auth, body.credentials ?? {}, body.metadata ?? {});
    if (inHeaders.length) throw validationError(inHeaders);
  }

  const set: Partial<ConnectionRecord> = { updatedOn: new Date() };
  if (body.name !== undefined) set.name = body.name;
  if (body.metadata !== undefined) set.metadata = body.metadata;
  if (body.credentials !== undefined) {
    const { secrets, tokenExpiresAt } = secretsFrom(auth, body.credentials);
    // New credentials are checked like on create (the auth's verify), before anything changes.
    const verified = await verifyCredentials(services.run, version, auth, secrets, body.metadata ?? current.metadata);
    if (verified) set.accountLabel = verified.accountLabel;
    set.credentials = seal(services.keyring, id, secrets);
    set.tokenExpiresAt = tokenExpiresAt;
  }
  if (changesSecrets) set.status = 'active';
  // The change and its connection.reauthorized event are one transaction.
  return await withEvents(services, async () => {
    // The caller's change wins, whatever was written since it was read: new credentials or metadata move the
    // credentials version on, so a token renewal in flight cannot write its tokens over them; a name alone leaves it.
    const update = changesSecrets ? { $set: set, $inc: { credentialsVersion: 1 } } : { $set: set };
    // Whether the write re-authorizes is decided by the write itself, not by the read before it: a connection
    // marked needs_reauthorization since then (a renewal that failed meanwhile) is made active by this write too.
    const reauthorized = changesSecrets && (await services.store.connections.updateOne({ id, companyId, status: 'needs_reauthorization' }, update));
    const changed = reauthorized || (await services.store.connections.updateOne({ id, companyId }, update));
    if (!changed) throw GatewayError.of('NOT_FOUND', `connection ${id} does not exist`);
    const updated = await findConnection(services, companyId, id);
    if (reauthorized) await publishEvent(services, companyId, { type: 'connection.reauthorized', data: connectionView(updated) });
    return updated;
  });
}
