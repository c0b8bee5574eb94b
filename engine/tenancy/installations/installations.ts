import { GatewayError, validationError, type FieldProblem } from '../../platform/errors/index.ts';
import { newId } from '../../platform/ids.ts';
import type { TenancyServices } from '../tenancy-services.ts';
import type { InstallationRecord } from '../../platform/store/index.ts';
import { connectionsInUseLock, requireEndUser } from '../connections/connections.ts';
import type { CreateInstallationBody } from './schemas.ts';

/**
 * Binds an end user to apps, each through a connection of the same company
 * to that app. Every problem with the list is reported at once.
 */
export async function createInstallation(services: TenancyServices, companyId: string, body: CreateInstallationBody): Promise<InstallationRecord> {
  await requireEndUser(services, companyId, body.endUserId);
  const snapshot = services.definitions.current();
  const problems: FieldProblem[] = [];
  const apps: InstallationRecord['apps'] = [];
  const seen = new Set<string>();
  for (const [i, entry] of body.apps.entries()) {
    const at = `apps[${i}]`;
    const app = snapshot.appsBySlug.get(entry.appSlug);
    if (!app) {
      problems.push({ field: `${at}.appSlug`, rule: 'exists', message: `no app with slug "${entry.appSlug}"` });
      continue;
    }
    if (seen.has(app.slug)) {
      problems.push({ field: `${at}.appSlug`, rule: 'unique', message: `app "${app.slug}" is listed twice` });
      continue;
    }
    seen.add(app.slug);
    // Another company's connection reads as missing, like any id of another tenant.
    const connection = await services.store.connections.findOne({ id: entry.connectionId, companyId });
    if (!connection) {
      problems.push({ field: `${at}.connectionId`, rule: 'exists', message: `connection ${entry.connectionId} does not exist` });
    } else if (connection.appSlug !== app.slug) {
      problems.push({ field: `${at}.connectionId`, rule: 'app', message: `connection ${entry.connectionId} is to app "${connection.appSlug}", not "${app.slug}"` });
    } else {
      apps.push({ appId: app.id, appSlug: app.slug, connectionId: connection.id });
    }
  }
  if (problems.length) throw validationError(problems);
  const now = new Date();
  const installation = await services.store.installations.insert({
    id: newId('ins'),
    companyId,
    endUserId: body.endUserId,
    apps,
    metadata: body.metadata ?? {},
    createdOn: now,
    updatedOn: now,
  });
  // The end user deleted while this ran: their installations were swept already, so either that sweep or this check removes it.
  if (!(await services.store.endUsers.findOne({ id: body.endUserId, companyId }))) {
    await services.store.installations.deleteOne({ id: installation.id, companyId });
    throw GatewayError.of('NOT_FOUND', `end user ${body.endUserId} does not exist`);
  }
  // A connection deleted while this ran (after its check above): looked at again under the lock a delete takes
  // (connections.ts), so either the delete sees this installation and is refused, or this sees the delete.
  const gone = await services.store.transaction(
    async () => {
      for (const [i, entry] of apps.entries()) {
        if (!(await services.store.connections.findOne({ id: entry.connectionId, companyId }))) return { at: `apps[${i}].connectionId`, id: entry.connectionId };
      }
      return null;
    },
    { exclusive: connectionsInUseLock(companyId) },
  );
  if (gone) {
    await services.store.installations.deleteOne({ id: installation.id, companyId });
    throw validationError([{ field: gone.at, rule: 'exists', message: `connection ${gone.id} does not exist` }]);
  }
  return installation;
}

export async function findInstallation(services: Pick<TenancyServices, 'store'>, companyId: string, id: string): Promise<InstallationRecord> {
  const record = await services.store.installations.findOne({ id, companyId });
  if (!record) throw GatewayError.of('NOT_FOUND', `installation ${id} does not exist`);
  return record;
}

/** Deletes an installation of this company, or 404; of DELETEs sent at once, one deletes it and the others are 404. */
export async function deleteInstallation(services: Pick<TenancyServices, 'store'>, companyId: string, id: string): Promise<void> {
  if (!(await services.store.installations.deleteOne({ id, companyId }))) throw GatewayError.of('NOT_FOUND', `installation ${id} does not exist`);
}

export function installationView(record: InstallationRecord) {
  return {
    id: record.id,
    endUserId: record.endUserId,
    apps: record.apps.map((a) => ({ appId: a.appId, appSlug: a.appSlug, connectionId: a.connectionId })),
    metadata: record.metadata,
    createdOn: record.createdOn.toISOString(),
    updatedOn: record.updatedOn.toISOString(),
  };
}
