import { CHOSEN_API_KEY, findActiveApiKey, hashApiKey, issueApiKey } from '../api-keys/api-keys.ts';
import { ConfigError, optional, type Env } from '../../platform/settings/env.ts';
import type { Store } from '../../platform/store/index.ts';
import { addMember, createCompany } from './companies.ts';

export const BOOTSTRAP_OWNER = { name: 'Owner', email: 'owner@example.com' } as const;
const KEY_NAME = 'bootstrap';

export type BootstrapOutcome =
  | {
      kind: 'skipped';
      /** BOOTSTRAP_API_KEY was set, the store already has a company, and that key is not one of the store's keys (it answers 401). */
      ignoredKey: boolean;
    }
  | {
      kind: 'created';
      companyId: string;
      userId: string;
      /** The generated key to show once; null when BOOTSTRAP_API_KEY chose it. */
      generatedKey: string | null;
      /** True when this start finished a bootstrap an earlier start left unfinished. */
      resumed: boolean;
      /** Call once the generated key has reached its reader (a terminal, a file): until then the next start issues a new one. */
      delivered(): Promise<void>;
    };

/**
 * On an empty store, creates the "Default" company, its owner and one API
 * key: BOOTSTRAP_API_KEY when given, a generated key otherwise (returned so
 * the caller can show it once). A store that already has a company is left
 * alone, whatever BOOTSTRAP_API_KEY says.
 *
 * The writes are one transaction (store.transaction): on the SQL stores a
 * start killed half-way leaves nothing, and the next start bootstraps
 * afresh. MongoDB runs them one after another, so the bootstrap is also
 * resumable: the company is written first, marked `bootstrapPending`, and
 * the mark is removed last, once the key is stored and (a generated one)
 * delivered. A start that finds a marked company finishes the job (once the
 * mark is BOOTSTRAP_PENDING_GRACE_MS old: until then another start may be
 * delivering its key, and this one waits for it): it adds
 * the owner if missing, revokes keys of an earlier attempt that nobody can
 * know (generated and never delivered, or another chosen key) and issues the
 * key. A kill anywhere in between therefore never leaves a company without a
 * usable key. A generated key's delivery (removing the mark) comes after the
 * transaction, on every store.
 */
export async function bootstrap(store: Store, bootstrapApiKey: string | undefined, options: { pendingGraceMs?: number } = {}): Promise<BootstrapOutcome> {
  const graceMs = options.pendingGraceMs ?? BOOTSTRAP_PENDING_GRACE_MS;
  let outcome: Awaited<ReturnType<typeof bootstrapWrites>>;
  for (;;) {
    // Exclusive: two gateways starting at once on one empty PostgreSQL would each see no company and write one.
    outcome = await store.transaction(() => bootstrapWrites(store, bootstrapApiKey, graceMs), { exclusive: 'igw:bootstrap' });
    if (outcome.kind !== 'busy') break;
    await new Promise((resolve) => setTimeout(resolve, BUSY_RETRY_MS));
  }
  if (outcome.kind === 'skipped') return outcome;
  const delivered = async () => {
    await store.companies.updateOne({ id: outcome.companyId }, { $unset: { bootstrapPending: true } });
  };
  // A chosen key is known to whoever chose it: nothing to deliver.
  if (outcome.generatedKey === null) await delivered();
  return { ...outcome, delivered };
}

async function bootstrapWrites(store: Store, bootstrapApiKey: string | undefined, graceMs: number): Promise<BootstrapOutcome | Omit<Extract<BootstrapOutcome, { kind: 'created' }>, 'delivered'> | { kind: 'busy' }> {
  const pending = await store.companies.findOne({ bootstrapPending: true });
  // Marked a moment ago: another start (another gateway of the fleet) is delivering its key now; this one waits
  // for it to finish rather than revoke that key as abandoned (it would leave that gateway's key file unusable).
  if (pending && Date.now() - pending.updatedOn.getTime() < graceMs) return { kind: 'busy' };
  if (!pending && (await store.companies.count({})) > 0) {
    const ignoredKey = bootstrapApiKey !== undefined && (await findActiveApiKey(store, bootstrapApiKey)) === null;
    return { kind: 'skipped', ignoredKey };
  }
  const company = pending ?? (await createCompany(store, { name: 'Default', bootstrapPending: true }));
  const owner =
    (await store.members.findOne({ companyId: company.id, email: BOOTSTRAP_OWNER.email })) ??
    (await addMember(store, company.id, { ...BOOTSTRAP_OWNER, role: 'owner' }));
  // A kill between the member write and its count leaves memberCount behind; the count is the truth.
  // The mark's time is renewed: whoever starts next waits for this start's delivery as for the first's.
  if (pending) await store.companies.updateOne({ id: company.id }, { $set: { memberCount: await store.members.count({ companyId: company.id }), updatedOn: new Date() } });

  const chosenHash = bootstrapApiKey === undefined ? null : hashApiKey(bootstrapApiKey);
  let haveChosen = false;
  for (const earlier of await store.apiKeys.find({ companyId: company.id, name: KEY_NAME, revokedOn: null })) {
    if (earlier.hash === chosenHash) haveChosen = true;
    else await store.apiKeys.updateOne({ id: earlier.id }, { $set: { revokedOn: new Date() } });
  }
  const generatedKey = bootstrapApiKey === undefined ? (await issueApiKey(store, { companyId: company.id, userId: owner.userId }, KEY_NAME)).key : null;
  if (bootstrapApiKey !== undefined && !haveChosen) {
    await issueApiKey(store, { companyId: company.id, userId: owner.userId }, KEY_NAME, bootstrapApiKey);
  }
  return { kind: 'created', companyId: company.id, userId: owner.userId, generatedKey, resumed: pending !== null };
}

/**
 * How long a `bootstrapPending` mark is taken for a start still delivering its key (writing its key file, showing
 * it on a terminal: milliseconds), before a start that finds it takes the bootstrap for abandoned and finishes it.
 */
export const BOOTSTRAP_PENDING_GRACE_MS = 30_000;
const BUSY_RETRY_MS = 200;

/** BOOTSTRAP_API_KEY: the owner's key of the "Default" company an empty store starts with; unset, one is generated. */
export function bootstrapApiKeyFromEnv(env: Env): string | undefined {
  const key = optional(env, 'BOOTSTRAP_API_KEY');
  if (key !== undefined && !CHOSEN_API_KEY.test(key)) {
    throw new ConfigError('BOOTSTRAP_API_KEY', 'must be 20 to 200 characters of A-Z, a-z, 0-9, ".", "_", "~" or "-"');
  }
  return key;
}
