import { exportJWK, generateKeyPair } from 'jose';
import { seal } from '../../platform/crypto/cipher.ts';
import type { Keyring } from '../../platform/crypto/keyring.ts';
import { GatewayError } from '../../platform/errors/index.ts';
import { newId } from '../../platform/ids.ts';
import type { SigningKeyRecord, Store } from '../../platform/store/index.ts';

export const TOKEN_ALGORITHM = 'EdDSA';

/**
 * The end-user token signing keys in the store, shared by every gateway
 * instance on that store. Rotation adds a key: the newest signs at once,
 * older ones keep verifying tokens already out until an operator retires them.
 */
export async function createSigningKey(store: Store, keyring: Keyring): Promise<SigningKeyRecord> {
  const { publicKey, privateKey } = await generateKeyPair(TOKEN_ALGORITHM, { crv: 'Ed25519', extractable: true });
  const id = newId('sig');
  const record: SigningKeyRecord = {
    id,
    algorithm: TOKEN_ALGORITHM,
    publicJwk: { ...(await exportJWK(publicKey)), kid: id, alg: TOKEN_ALGORITHM, use: 'sig' },
    privateKey: seal(keyring, id, { ...(await exportJWK(privateKey)), kid: id, alg: TOKEN_ALGORITHM }),
    createdOn: new Date(),
    retiredOn: null,
  };
  return await store.signingKeys.insert(record);
}

/** Newest first; the first one signs. */
export async function activeSigningKeys(store: Store): Promise<SigningKeyRecord[]> {
  return await store.signingKeys.find({ retiredOn: null }, { sort: { createdOn: -1, id: -1 } });
}

/** On start: a store without an active key gets one, so the first token request needs no setup. */
export async function ensureSigningKey(store: Store, keyring: Keyring): Promise<void> {
  if ((await store.signingKeys.count({ retiredOn: null })) === 0) await createSigningKey(store, keyring);
}

export type SigningKeyStatus = 'signing' | 'verifying' | 'retired';

export interface SigningKeySummary {
  kid: string;
  status: SigningKeyStatus;
  createdOn: string;
  retiredOn: string | null;
}

/** Every key with what it does now; never the private part. */
export async function listSigningKeys(store: Store): Promise<SigningKeySummary[]> {
  const all = await store.signingKeys.find({}, { sort: { createdOn: -1, id: -1 } });
  const signer = all.find((k) => k.retiredOn === null);
  return all.map((k) => ({
    kid: k.id,
    status: k.retiredOn ? 'retired' : k === signer ? 'signing' : 'verifying',
    createdOn: k.createdOn.toISOString(),
    retiredOn: k.retiredOn ? k.retiredOn.toISOString() : null,
  }));
}

/**
 * Stops a key verifying (tokens it signed are refused from then on). The
 * last active key cannot be retired: nothing could sign. Retiring the signing
 * key hands signing to the next newest.
 */
export async function retireSigningKey(store: Store, kid: string): Promise<void> {
  const key = await store.signingKeys.findOne({ id: kid });
  if (!key) throw GatewayError.of('NOT_FOUND', `signing key ${kid} does not exist`);
  if (key.retiredOn) throw GatewayError.of('CONFLICT', `signing key ${kid} is already retired`);
  const active = await activeSigningKeys(store);
  if (active.length === 1) {
    throw GatewayError.of('CONFLICT', `signing key ${kid} is the only active key; run signing-keys:rotate first, then retire it`);
  }
  await store.signingKeys.updateOne({ id: kid, retiredOn: null }, { $set: { retiredOn: new Date() } });
}
