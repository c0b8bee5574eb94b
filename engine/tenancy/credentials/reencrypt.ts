import type { Collection, Store } from '../../platform/store/index.ts';
import { needsRotation, open, seal, SecretUnreadableError, type SealedSecret } from '../../platform/crypto/cipher.ts';
import type { Keyring } from '../../platform/crypto/keyring.ts';

export interface ReencryptReport {
  /** Re-sealed under the newest key, per collection. */
  reencrypted: Record<string, number>;
  /** Already under the newest key. */
  current: number;
  /** Changed by someone else while this ran (a token refresh, say): sealed anew by them, left alone. */
  skipped: number;
  /** Records that could not be opened with any configured key, by id and reason. */
  unreadable: { id: string; reason: string }[];
}

type Sealed<F extends string> = { id: string } & { [K in F]: SealedSecret };

/**
 * After a new ENCRYPTION_KEY is put first: re-seals every secret in the
 * store under it, so the older keys can then be removed. Each record is
 * replaced with a compare-and-set on its old ciphertext, so a concurrent
 * write wins and is never undone. Safe to run again: records already under
 * the newest key are left alone.
 */
export async function reencryptAll(store: Store, keyring: Keyring): Promise<ReencryptReport> {
  const report: ReencryptReport = { reencrypted: {}, current: 0, skipped: 0, unreadable: [] };
  await pass(store.connections as unknown as Collection<Sealed<'credentials'>>, 'connections', 'credentials', keyring, report);
  await pass(store.appConfigurations as unknown as Collection<Sealed<'secrets'>>, 'appConfigurations', 'secrets', keyring, report);
  await pass(store.pendingAuthorizations as unknown as Collection<Sealed<'secrets'>>, 'pendingAuthorizations', 'secrets', keyring, report);
  await pass(store.signingKeys as unknown as Collection<Sealed<'privateKey'>>, 'signingKeys', 'privateKey', keyring, report);
  await pass(store.webhookEndpoints as unknown as Collection<Sealed<'secret'>>, 'webhookEndpoints', 'secret', keyring, report);
  return report;
}

async function pass<F extends string>(
  collection: Collection<Sealed<F>>,
  name: string,
  field: F,
  keyring: Keyring,
  report: ReencryptReport,
): Promise<void> {
  report.reencrypted[name] = 0;
  for (const record of await collection.find({})) {
    const sealed = record[field];
    if (!needsRotation(keyring, sealed)) {
      report.current++;
      continue;
    }
    let plain: unknown;
    try {
      plain = open(keyring, record.id, sealed);
    } catch (error) {
      if (!(error instanceof SecretUnreadableError)) throw error;
      report.unreadable.push({ id: record.id, reason: error.message });
      continue;
    }
    const replaced = await collection.updateOne({ id: record.id, [`${field}.data`]: sealed.data }, { $set: { [field]: seal(keyring, record.id, plain) } as never });
    if (replaced) report.reencrypted[name]!++;
    else report.skipped++;
  }
}
