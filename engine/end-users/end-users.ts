import { newId } from '../ids.ts';
import { DuplicateKeyError, type EndUserRecord, type Store } from '../store/index.ts';
import type { CreateEndUserBody } from './schemas.ts';

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
