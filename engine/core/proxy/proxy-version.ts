import { GatewayError } from '../../platform/errors/index.ts';
import type { ConnectionRecord } from '../../platform/store/index.ts';
import type { AppVersion, DefinitionsSnapshot } from '../definitions/index.ts';

/**
 * The version of a connection's app a proxied call follows (its base URL,
 * auths, retry policy and `proxy` rules): the published one, or the draft of
 * an app not yet published, as a new connection is checked against.
 */
export function proxyVersion(snapshot: DefinitionsSnapshot, connection: ConnectionRecord): AppVersion {
  const app = snapshot.apps.get(connection.appId);
  if (!app) throw GatewayError.of('APP_NOT_FOUND', `connection ${connection.id} is to app "${connection.appSlug}", which is not loaded`);
  const version = app.published !== undefined ? app.versions.get(app.published) : app.draft;
  if (!version) throw GatewayError.of('APP_VERSION_NOT_FOUND', `app "${app.slug}" has no published version or draft to send proxied calls by`);
  return version;
}
