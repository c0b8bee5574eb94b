import { randomBytes } from 'node:crypto';

/** Record ids: a short prefix saying what the id names, then 16 random bytes in base32-ish hex. */
export type IdPrefix = 'cmp' | 'mem' | 'usr' | 'key' | 'eu' | 'con' | 'ins' | 'sig' | 'cfg' | 'emb' | 'whk' | 'whd' | 'evt' | 'cho';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}
