/**
 * The definitions the gateway target runs: one app whose baseUrl is the local
 * upstream, an ApiKey auth, and a listing action with a Query argument that
 * has a default, a hidden argument relaying its default, and a JSONata
 * response mapping that unwraps and renames the records.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { seal } from '../../engine/platform/crypto/cipher.ts';
import type { Keyring } from '../../engine/platform/crypto/keyring.ts';
import type { AppVersion } from '../../engine/core/definitions/snapshot.ts';
import type { ConnectionRecord } from '../../engine/platform/store/index.ts';

export const BENCH_APP = 'bench';
export const BENCH_ACTION = 'list-records';
export const UPSTREAM_SECRET = 'upstream-secret-0123456789';

export const RESPONSE_MAPPING = `{
  "success": status = 200,
  "data": [body.data.records.{
    "id": id,
    "name": first_name & " " & last_name,
    "email": email,
    "createdAt": created_at,
    "active": active,
    "score": score
  }],
  "meta": { "cursor": body.next ? body.next }
}`;

export function benchAppFiles(upstreamUrl: string): Record<string, string> {
  return {
    [`${BENCH_APP}/app.yaml`]: `id: ${BENCH_APP}\nslug: ${BENCH_APP}\nname: Bench\ndescription: The benchmark's local upstream.\npublished: 1\n`,
    [`${BENCH_APP}/versions/1/api.yaml`]: `baseUrl: ${upstreamUrl}/api\nheaders:\n  Accept: application/json\nauths:\n  - key\n`,
    [`${BENCH_APP}/versions/1/auths/key.yaml`]: [
      'type: ApiKey',
      'id: key',
      'name: API key',
      'in: Header',
      'parameterName: X-Api-Key',
      "value: '{{apiKey}}'",
      'arguments:',
      '  - key: apiKey',
      '    dataType: String',
      '    required: true',
      '',
    ].join('\n'),
    [`${BENCH_APP}/versions/1/actions/${BENCH_ACTION}.yaml`]: [
      `id: ${BENCH_ACTION}`,
      `slug: ${BENCH_ACTION}`,
      'name: List records',
      'operation: list',
      'method: GET',
      'path: /records',
      'arguments:',
      '  - key: limit',
      '    dataType: Number',
      '    location: Query',
      '    default: 10',
      '  - key: view',
      '    dataType: String',
      '    location: Query',
      '    hidden: true',
      '    default: full',
      'response: |',
      ...RESPONSE_MAPPING.split('\n').map((line) => `  ${line}`),
      '',
    ].join('\n'),
  };
}

export async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  const folders = new Set(Object.keys(files).map((file) => path.dirname(path.join(dir, file))));
  await Promise.all([...folders].map((folder) => fs.mkdir(folder, { recursive: true })));
  await Promise.all(Object.entries(files).map(([file, text]) => fs.writeFile(path.join(dir, file), text)));
}

/** An active connection of the bench app holding the upstream's API key, sealed with `keyring`, as the store would hand it to a run. */
export function benchConnection(keyring: Keyring, version: AppVersion, id: string): ConnectionRecord {
  const now = new Date();
  return {
    id,
    companyId: 'cmp_bench',
    appId: version.app.id,
    appSlug: version.app.slug,
    authId: 'key',
    authType: 'ApiKey',
    endUserId: null,
    name: null,
    metadata: {},
    credentials: seal(keyring, id, { arguments: { apiKey: UPSTREAM_SECRET } }),
    credentialsVersion: 1,
    status: 'active',
    tokenExpiresAt: null,
    createdOn: now,
    updatedOn: now,
  };
}
