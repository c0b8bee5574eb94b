import { importJWK, type CryptoKey, type JWK } from 'jose';
import { open } from '../../platform/crypto/cipher.ts';
import type { Keyring } from '../../platform/crypto/keyring.ts';
import type { SigningKeyRecord, Store } from '../../platform/store/index.ts';
import { activeSigningKeys, createSigningKey, TOKEN_ALGORITHM } from './signing-keys.ts';

/**
 * Which keys sign and verify, read from the store on every use so a rotation
 * or retirement (by the admin tool, or on another instance) counts at once.
 * Only the imported CryptoKeys are cached: a kid's key never changes.
 */
export class KeyRing {
  private readonly imported = new Map<string, Promise<CryptoKey>>();

  constructor(
    private readonly store: Store,
    private readonly keyring: Keyring,
  ) {}

  async signingKey(): Promise<{ kid: string; key: CryptoKey }> {
    const [newest] = await activeSigningKeys(this.store);
    const record = newest ?? (await createSigningKey(this.store, this.keyring));
    return { kid: record.id, key: await this.importOnce(record, 'private') };
  }

  /** The public key for a kid that is still active, or null. */
  async verificationKey(kid: string): Promise<CryptoKey | null> {
    const record = await this.store.signingKeys.findOne({ id: kid, retiredOn: null });
    return record ? await this.importOnce(record, 'public') : null;
  }

  /** The JWK Set of /.well-known/jwks.json: the public half of every active key. */
  async publicKeySet(): Promise<{ keys: Record<string, unknown>[] }> {
    return { keys: (await activeSigningKeys(this.store)).map((k) => k.publicJwk) };
  }

  private importOnce(record: SigningKeyRecord, half: 'public' | 'private'): Promise<CryptoKey> {
    const cacheKey = `${record.id}:${half}`;
    let key = this.imported.get(cacheKey);
    if (!key) {
      const jwk = (half === 'public' ? record.publicJwk : open<JWK>(this.keyring, record.id, record.privateKey)) as JWK;
      key = importJWK(jwk, TOKEN_ALGORITHM) as Promise<CryptoKey>;
      this.imported.set(cacheKey, key);
      key.catch(() => this.imported.delete(cacheKey));
    }
    return key;
  }
}

const rings = new WeakMap<Store, KeyRing>();

/** One ring per store, shared by the token route and the token check. */
export function keyRingFor(store: Store, keyring: Keyring): KeyRing {
  let ring = rings.get(store);
  if (!ring) rings.set(store, (ring = new KeyRing(store, keyring)));
  return ring;
}
