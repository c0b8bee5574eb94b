/**
 * Writes the embedded store's files for the store benchmark (store.ts):
 * BENCH_STORE_RECORDS end users, as many connections (each with sealed
 * OAuth2 credentials, as a real one carries) and as many installations, all
 * in one company, then one token renewal of every connection appended (the
 * connections file twice its live size, as a day of renewals leaves it
 * between compactions). Lines are the store's own encoding (field-encoding.ts)
 * serialized by NeDB's model, written in bulk: inserting them one by one
 * through the store would fsync each and take minutes, and measures nothing
 * the benchmark reports.
 *
 * Env: BENCH_STORE_DIR (the DATA_DIR to fill), BENCH_STORE_RECORDS.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import model from '@seald-io/nedb/lib/model.js';
import { seal } from '../../engine/platform/crypto/cipher.ts';
import { createKeyring } from '../../engine/platform/crypto/keyring.ts';
import { newId } from '../../engine/platform/ids.ts';
import { encodeValue } from '../../engine/platform/store/field-encoding.ts';
import type { ConnectionRecord, EndUserRecord, InstallationRecord } from '../../engine/platform/store/records.ts';
import { runChildMain } from './child-main.ts';
import { BENCH_COMPANY_ID } from './store-company.ts';

const BENCH_ENCRYPTION_KEY = Buffer.alloc(32, 7).toString('base64');

const serialize = model.serialize;
const line = <T extends { id: string }>(record: T) => serialize({ ...(encodeValue(record) as Record<string, unknown>), _id: record.id });

async function writeLines(file: string, lines: Iterable<string>): Promise<void> {
  const handle = await fs.open(file, 'a', 0o600);
  try {
    let chunk: string[] = [];
    for (const l of lines) {
      chunk.push(l);
      if (chunk.length === 5_000) {
        await handle.write(`${chunk.join('\n')}\n`);
        chunk = [];
      }
    }
    if (chunk.length) await handle.write(`${chunk.join('\n')}\n`);
  } finally {
    await handle.close();
  }
}

async function main() {
  const dataDir = process.env.BENCH_STORE_DIR;
  if (!dataDir) throw new Error('BENCH_STORE_DIR is not set');
  const count = Number(process.env.BENCH_STORE_RECORDS ?? 100_000);
  const dir = path.join(dataDir, 'store');
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const keyring = createKeyring([BENCH_ENCRYPTION_KEY]);
  const started = performance.now();
  const base = Date.parse('2026-01-01T00:00:00Z');

  const endUsers: EndUserRecord[] = [];
  const connections: ConnectionRecord[] = [];
  const installations: InstallationRecord[] = [];
  for (let i = 0; i < count; i++) {
    const createdOn = new Date(base + i * 1000);
    const endUser: EndUserRecord = {
      id: newId('eu'),
      companyId: BENCH_COMPANY_ID,
      externalId: `customer-${i}`,
      externalKey: `${BENCH_COMPANY_ID}:customer-${i}`,
      name: `Customer ${i}`,
      email: `customer-${i}@example.com`,
      isTestUser: false,
      metadata: { plan: i % 3 === 0 ? 'pro' : 'free', region: 'eu' },
      createdOn,
      updatedOn: createdOn,
    };
    const connectionId = newId('con');
    const tokens = { accessToken: randomBytes(48).toString('base64url'), refreshToken: randomBytes(48).toString('base64url'), clientId: 'bench-client' };
    connections.push({
      id: connectionId,
      companyId: BENCH_COMPANY_ID,
      appId: 'app_github',
      appSlug: 'github',
      authId: 'oauth2',
      authType: 'OAuth2',
      endUserId: endUser.id,
      name: `GitHub of customer ${i}`,
      metadata: {},
      credentials: seal(keyring, connectionId, tokens),
      credentialsVersion: 1,
      status: 'active',
      tokenExpiresAt: new Date(base + i * 1000 + 3_600_000),
      createdOn,
      updatedOn: createdOn,
    });
    installations.push({
      id: newId('ins'),
      companyId: BENCH_COMPANY_ID,
      endUserId: endUser.id,
      apps: [{ appId: 'app_github', appSlug: 'github', connectionId }],
      metadata: {},
      createdOn,
      updatedOn: createdOn,
    });
    endUsers.push(endUser);
  }
  await writeLines(path.join(dir, 'endUsers.db'), endUsers.map(line));
  await writeLines(path.join(dir, 'installations.db'), installations.map(line));
  await writeLines(path.join(dir, 'connections.db'), connections.map(line));
  // One token renewal of every connection: the whole record again, new credentials, version 2 (what updateOne appends).
  const renewed = connections.map((c) => {
    const tokens = { accessToken: randomBytes(48).toString('base64url'), refreshToken: randomBytes(48).toString('base64url'), clientId: 'bench-client' };
    const updatedOn = new Date(c.updatedOn.getTime() + 3_600_000);
    return line({ ...c, credentials: seal(keyring, c.id, tokens), credentialsVersion: 2, tokenExpiresAt: new Date(updatedOn.getTime() + 3_600_000), updatedOn });
  });
  await writeLines(path.join(dir, 'connections.db'), renewed);
  return { records: count, seedMs: Math.round(performance.now() - started) };
}

runChildMain(main);
