import type { Services } from '../services.ts';

/** The most authorizations one end user has under way at once, and the most choices waiting for them; one more gives up the oldest. */
export const MAX_UNDER_WAY_PER_END_USER = 10;

/**
 * Each start stores a pending authorization for the state's ten minutes, and each callback of one an end user's
 * session started stores a choice for that session to confirm (choices.ts, ids cho_…); an end-user token (which
 * lives in a browser) may start as many as it likes. Without a bound, a loop over the authorize URL (or over a
 * provider that consents at once) would fill the store. So an end user has at most MAX_UNDER_WAY_PER_END_USER of
 * each kind: before another is stored, the oldest beyond room for it are deleted. A given-up authorization's
 * callback answers "already completed or abandoned; start again", a given-up choice is 404 (a person who clicked
 * Connect twice finishes the newest).
 */
export async function makeRoomUnderWay(services: Services, companyId: string, endUserId: string, kind: 'authorization' | 'choice', now: number): Promise<void> {
  const underWay = await services.store.pendingAuthorizations.find(
    { companyId, endUserId, expiresAt: { $gt: new Date(now) } },
    { sort: { createdOn: -1 }, limit: 1000 },
  );
  const ofKind = underWay.filter((record) => record.id.startsWith('cho_') === (kind === 'choice'));
  for (const old of ofKind.slice(MAX_UNDER_WAY_PER_END_USER - 1)) await services.store.pendingAuthorizations.deleteOne({ id: old.id, companyId });
}
