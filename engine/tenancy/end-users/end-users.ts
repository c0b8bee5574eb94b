import { GatewayError } from '../../platform/errors/index.ts';
import { newId } from '../../platform/ids.ts';
import { DuplicateKeyError, type EndUserRecord, type Store } from '../../platform/store/index.ts';
import type { CreateEndUserBody, UpdateEndUserBody } from './schemas.ts';

/**
 * Creates an end user, or, when the company already has one with this
 * externalId, returns that one unchanged: calling create on every login is
 * safe and never makes a duplicate, even when two calls race.
 */
export async function createOrFindEndUser(
  store: Store,
  companyId: string,
  input: CreateEndUserBody,
): Promise<{ endUser: EndUserRecord; created: boolean }> {
  const externalId = input.externalId ?? null;
  const externalKey = externalId === null ? undefined : `${companyId}:${externalId}`;
  if (externalKey) {
    const existing = await store.endUsers.findOne({ externalKey });
    if (existing) return { endUser: existing, created: false };
  }
  const now = new Date();
  const endUser: EndUserRecord = {
    id: newId('eu'),
    companyId,
    externalId,
    ...(externalKey ? { externalKey } : {}),
    name: input.name ?? null,
    email: input.email?.toLowerCase() ?? null,
    isTestUser: input.isTestUser ?? false,
    metadata: input.metadata ?? {},
    createdOn: now,
    updatedOn: now,
  };
  try {
    return { endUser: await store.endUsers.insert(endUser), created: true };
  } catch (error) {
    if (error instanceof DuplicateKeyError && externalKey) {
      const winner = await store.endUsers.findOne({ externalKey });
      if (winner) return { endUser: winner, created: false };
    }
    throw error;
  }
}

/** An end user of this company, or 404: another company's end user is as unknown as a missing one. */
export async function findEndUser(store: Store, companyId: string, id: string): Promise<EndUserRecord> {
  const endUser = await store.endUsers.findOne({ id, companyId });
  if (!endUser) throw GatewayError.of('NOT_FOUND', `end user ${id} does not exist`);
  return endUser;
}

/** Replaces the fields given (metadata whole); email is kept lower case, as on create. */
export async function updateEndUser(store: Store, companyId: string, id: string, body: UpdateEndUserBody): Promise<EndUserRecord> {
  await findEndUser(store, companyId, id);
  const $set: Partial<EndUserRecord> = { updatedOn: new Date() };
  if (body.name !== undefined) $set.name = body.name;
  if (body.email !== undefined) $set.email = body.email === null ? null : body.email.toLowerCase();
  if (body.isTestUser !== undefined) $set.isTestUser = body.isTestUser;
  if (body.metadata !== undefined) $set.metadata = body.metadata;
  // Deleted between the read and the write: as unknown as before.
  if (!(await store.endUsers.updateOne({ id, companyId }, { $set }))) throw GatewayError.of('NOT_FOUND', `end user ${id} does not exist`);
  return await findEndUser(store, companyId, id);
}
