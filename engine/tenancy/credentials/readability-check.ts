import type { ReadinessCheck } from '../../platform/health/readiness.ts';
import type { Collection, Store } from '../../platform/store/index.ts';
import { open, SecretUnreadableError, type SealedSecret } from '../../platform/crypto/cipher.ts';
import type { Keyring } from '../../platform/crypto/keyring.ts';

export interface ReadabilityOptions {
  /** How many of the newest records of each kind are tried. */
  sample?: number;
  /** How long one verdict is answered before the sample is tried again. */
  maxAgeMs?: number;
}

export const READABILITY_SAMPLE = 5;
export const READABILITY_MAX_AGE_MS = 10_000;

type Sealed<F extends string> = { id: string } & { [K in F]: SealedSecret };

/**
 * The readiness check "encryption keys": can the configured ENCRYPTION_KEY
 * values open what the store holds? Every active signing key (without which
 * no end-user token can be issued) and the newest few connections, app
 * configurations and pending authorizations are opened; a gateway restarted
 * with the wrong keys then answers 503 on /ready instead of 200 while every
 * run fails with CREDENTIALS_UNREADABLE. Bounded: a small sample, and the
 * verdict is kept for `maxAgeMs`. Names records and key ids, never a key.
 */
export function secretsReadableCheck(store: Store, keyring: Keyring, options: ReadabilityOptions = {}): ReadinessCheck {
  const sample = options.sample ?? READABILITY_SAMPLE;
  const maxAgeMs = options.maxAgeMs ?? READABILITY_MAX_AGE_MS;
  let verdict: { at: number; reason: Promise<string | null> } | null = null;

  const examine = async (): Promise<string | null> => {
    const failures: { what: string; id: string; kid: string; unknownKey: boolean }[] = [];
    const tryOpen = <F extends string>(what: string, records: Sealed<F>[], field: F) => {
      for (const record of records) {
        try {
          open(keyring, record.id, record[field]);
        } catch (error) {
          if (!(error instanceof SecretUnreadableError)) throw error;
          const kid = String(record[field]?.kid ?? '?');
          failures.push({ what, id: record.id, kid, unknownKey: !keyring.byId.has(kid) });
        }
      }
    };
    const newest = <T extends { id: string }>(collection: Collection<T>, filter: Record<string, unknown> = {}) =>
      collection.find(filter, { sort: { createdOn: -1 }, limit: sample });
    tryOpen('signing key', (await store.signingKeys.find({ retiredOn: null })) as never, 'privateKey');
    tryOpen('connection', (await newest(store.connections)) as never, 'credentials');
    tryOpen('app configuration', (await newest(store.appConfigurations)) as never, 'secrets');
    tryOpen('pending authorization', (await newest(store.pendingAuthorizations)) as never, 'secrets');
    if (failures.length === 0) return null;

    const configured = [...keyring.byId.keys()].join(', ');
    const unknownKids = [...new Set(failures.filter((f) => f.unknownKey).map((f) => f.kid))];
    const why = unknownKids.length
      ? `sealed under key ${unknownKids.join(', ')}, which is not among the configured ENCRYPTION_KEY values (${configured})`
      : `they fail to authenticate with the configured ENCRYPTION_KEY values (${configured})`;
    const which = failures.map((f) => `${f.what} ${f.id}`).join(', ');
    return `${failures.length} stored secret${failures.length === 1 ? '' : 's'} cannot be opened, ${why}: ${which}. Start with the key that sealed them (README: rotating ENCRYPTION_KEY)`;
  };

  return {
    name: 'encryption keys',
    check() {
      const now = Date.now();
      if (!verdict || now - verdict.at >= maxAgeMs) {
        verdict = { at: now, reason: examine() };
        // A failed look (the store unreachable) is not remembered: the next probe tries again.
        verdict.reason.catch(() => (verdict = null));
      }
      return verdict.reason;
    },
  };
}
