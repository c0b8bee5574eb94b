import { findConnection } from '../../tenancy/connections/connections.ts';
import { findInstallation } from '../../tenancy/installations/installations.ts';
import { GatewayError } from '../../platform/errors/index.ts';
import type { TenancyServices } from '../../tenancy/tenancy-services.ts';
import type { AppVersion } from '../definitions/index.ts';
import type { Collection, ConnectionRecord, EndUserRecord, InstallationRecord } from '../../platform/store/index.ts';
import { RecentRecords } from '../../platform/store/recent-records.ts';

export interface Selected {
  connection: ConnectionRecord;
  installation: InstallationRecord | null;
  endUser: EndUserRecord | null;
}

/**
 * The connection a universal run uses: named directly, or through an
 * installation's binding for the app. Either must be the caller's company's
 * (another company's is 404) and be for this app.
 */
export async function selectConnection(
  services: Pick<TenancyServices, 'store'>,
  companyId: string,
  version: AppVersion,
  selector: { connectionId?: string | undefined; installationId?: string | undefined },
): Promise<Selected> {
  if (selector.connectionId && selector.installationId) {
    throw GatewayError.of('CONNECTION_SELECTOR_CONFLICT', 'send connectionId or installationId, not both');
  }
  if (selector.installationId) {
    const installation = await findInstallation(services, companyId, selector.installationId);
    return await throughInstallation(services, installation, version);
  }
  if (!selector.connectionId) {
    throw GatewayError.of('CONNECTION_REQUIRED', 'send connectionId (or installationId): the connection whose credentials the action runs with');
  }
  const connection = await findConnection(services, companyId, selector.connectionId);
  requireApp(connection, version);
  const endUser = connection.endUserId ? await findEndUser(services, companyId, connection.endUserId) : null;
  return { connection, installation: null, endUser };
}

/** The installation's connection for the version's app; an installation without that app is 404. */
export async function throughInstallation(services: Pick<TenancyServices, 'store'>, installation: InstallationRecord, version: AppVersion): Promise<Selected> {
  const binding = installation.apps.find((a) => a.appId === version.app.id);
  if (!binding) {
    throw GatewayError.of('NOT_FOUND', `installation ${installation.id} does not include app "${version.app.slug}"`);
  }
  const connection = await findConnection(services, installation.companyId, binding.connectionId);
  requireApp(connection, version);
  const endUser = await findEndUser(services, installation.companyId, installation.endUserId);
  return { connection, installation, endUser };
}

function requireApp(connection: ConnectionRecord, version: AppVersion): void {
  if (connection.appId !== version.app.id) {
    throw GatewayError.of('CONNECTION_APP_MISMATCH', `connection ${connection.id} is to app "${connection.appSlug}", not "${version.app.slug}"`);
  }
}

/** End users recently found for a run (their metadata fills host variables); one cache per collection, emptied by any write to it (recent-records.ts). */
const recentEndUsers = new WeakMap<Collection<EndUserRecord>, RecentRecords<EndUserRecord>>();

/** The end user who owns a connection (their metadata fills host variables), or null: the company's own connection, or one whose end user is gone. */
export async function connectionEndUser(services: Pick<TenancyServices, 'store'>, connection: ConnectionRecord): Promise<EndUserRecord | null> {
  return connection.endUserId ? await findEndUser(services, connection.companyId, connection.endUserId) : null;
}

/** The run's end user, through the cache where the store is this process's alone; null when there is none (deleted). Frozen. */
async function findEndUser(services: Pick<TenancyServices, 'store'>, companyId: string, id: string): Promise<EndUserRecord | null> {
  const { endUsers } = services.store;
  let cache = recentEndUsers.get(endUsers);
  if (!cache) recentEndUsers.set(endUsers, (cache = new RecentRecords()));
  return await cache.find(endUsers, `${companyId}/${id}`, () => endUsers.findOne({ id, companyId }));
}
