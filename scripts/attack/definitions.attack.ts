/**
 * Adversarial definition files (issue 14, item 5), each written into the
 * definitions folder of a running gateway (hot reload) and present at a
 * fresh start:
 *
 * - an alias bomb ("billion laughs": 9 anchors of 9 aliases, 9^9 values);
 * - an ordinary action that uses one anchor 100 times (a valid file);
 * - an action with 20,000 unknown keys.
 *
 * For each it reports how long the reload took (from the write to the
 * status route showing the attempt), `/health` latency meanwhile, the size
 * of `GET /v2/definitions/status`, whether a following valid edit (the file
 * fixed, another action renamed) is served, whether SIGHUP still reloads,
 * and how a start with the file present ends. Wrong answers (a missing
 * located problem, an uncapped list, an edit not served, a start that exits)
 * set ok=false.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { gatewayCall, pollHealth, ROOT, round, sleep, startAttackGateway, timedFetch, type AttackGateway, type Attack, type AttackReport } from './support.ts';

/** The one valid folder every definitions test starts from. */
const VALID = path.join(ROOT, 'spec/fixtures/definitions/valid');
const BAD_FILE = 'acme/versions/1/actions/bad.yaml';
const EDITED_FILE = 'acme/versions/1/actions/list-lists.yaml';
/** How long a reload may take before the attack gives up waiting for it (the old code never finishes some). */
const RELOAD_WAIT_MS = 30_000;
/** The status answer is capped by the fix; anything over this is reported wrong. */
const STATUS_MAX_BYTES = 256 * 1024;

const action = (id: string, rest = '') => `id: ${id}\nslug: ${id}\nname: ${id}\noperation: list\nmethod: GET\npath: /lists\n${rest}response: '{ "success": true }'\n`;

function aliasBomb(): string {
  const lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]'];
  for (let level = 1; level < 9; level++) lines.push(`a${level}: &a${level} [${Array.from({ length: 9 }, () => `*a${level - 1}`).join(', ')}]`);
  return `${action('bad')}${lines.join('\n')}\n`;
}

/** A valid action: 101 arguments, the first anchoring its data type, the other 100 aliasing it. */
function hundredAliases(): string {
  const args = ['  - key: arg0\n    dataType: &type String\n    location: Query'];
  for (let i = 1; i <= 100; i++) args.push(`  - key: arg${i}\n    dataType: *type\n    location: Query`);
  return action('bad', `arguments:\n${args.join('\n')}\n`);
}

function unknownKeys(): string {
  return `${action('bad')}${Array.from({ length: 20_000 }, (_, i) => `unknown${i}: ${i}`).join('\n')}\n`;
}

interface Case {
  name: string;
  text: string;
  /** Whether the file is valid (served) or refused with a located problem. */
  valid: boolean;
}

const CASES: Case[] = [
  { name: 'alias bomb (9^9)', text: aliasBomb(), valid: false },
  { name: 'one anchor x 100', text: hundredAliases(), valid: true },
  { name: '20,000 unknown keys', text: unknownKeys(), valid: false },
];

async function validFiles(): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await fs.readdir(VALID, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    files[path.relative(VALID, full)] = await fs.readFile(full, 'utf8');
  }
  return files;
}

interface Status {
  answer: Awaited<ReturnType<typeof gatewayCall>>;
  data: { hash: string | null; errors: { file: string; line: number; column: number; code: string; message: string }[]; lastAttempt: { at: string; reason: string; ok: boolean } | null } | null;
}

async function status(gw: AttackGateway): Promise<Status> {
  const answer = await gatewayCall(gw, 'GET', '/v2/definitions/status', undefined, 10_000);
  return { answer, data: answer.status === 200 ? answer.body.data : null };
}

/** Polls the status route until `holds` or the wait runs out (or the process dies); null when it never held. */
async function waitFor(gw: AttackGateway, holds: (s: Status) => boolean, waitMs = RELOAD_WAIT_MS): Promise<{ status: Status; ms: number } | null> {
  const t0 = performance.now();
  while (performance.now() - t0 < waitMs && gw.alive()) {
    const s = await status(gw);
    if (holds(s)) return { status: s, ms: performance.now() - t0 };
    await sleep(50);
  }
  return null;
}

/** What a located problem of the bad file looks like in the status answer. */
function locatedInBadFile(s: Status): boolean {
  return !!s.data?.errors.some((e) => e.file === BAD_FILE && e.line >= 1 && e.column >= 1 && /^[A-Z_]+$/.test(e.code) && e.message.length > 0);
}

async function actionName(gw: AttackGateway, slug: string): Promise<string | null> {
  const answer = await gatewayCall(gw, 'GET', `/v2/universal/apps/acme-crm/actions/${slug}`, undefined, 10_000);
  return answer.status === 200 ? (answer.body.data?.[0]?.name ?? null) : null;
}

async function hotReload(kase: Case, files: Record<string, string>): Promise<Record<string, string | number | boolean>> {
  const gw = await startAttackGateway({ definitions: files });
  const problems: string[] = [];
  try {
    const before = await status(gw);
    const beforeAt = before.data?.lastAttempt?.at;
    const health = pollHealth(gw.url);
    const t0 = performance.now();
    await fs.writeFile(path.join(gw.definitionsDir, BAD_FILE), kase.text);
    const attempted = await waitFor(gw, (s) => !!s.data?.lastAttempt && s.data.lastAttempt.at !== beforeAt);
    const reloadMs = attempted ? performance.now() - t0 : -1;
    const figures = await health.stop();
    const after = attempted?.status ?? (await status(gw));
    const statusBytes = after.answer.text.length;
    const errors = after.data?.errors ?? [];
    if (!attempted) problems.push('no reload attempt was recorded');
    if (kase.valid) {
      if (!after.data?.lastAttempt?.ok) problems.push(`a valid file was refused: ${errors.slice(0, 2).map((e) => `${e.code} ${e.message}`).join('; ')}`);
    } else if (!locatedInBadFile(after)) problems.push('no located problem for the file');
    if (statusBytes > STATUS_MAX_BYTES) problems.push(`status answer ${statusBytes} bytes`);
    const ready = await timedFetch(`${gw.url}/ready`, {}, 10_000);
    if (ready.status !== 200) problems.push(`/ready ${ready.status} while the last good snapshot serves`);

    // A following valid edit: the file fixed (a plain valid action) and another action renamed.
    await fs.writeFile(path.join(gw.definitionsDir, BAD_FILE), action('bad'));
    const editedPath = path.join(gw.definitionsDir, EDITED_FILE);
    await fs.writeFile(editedPath, (await fs.readFile(editedPath, 'utf8')).replace('name: List lists', 'name: Renamed after the attack'));
    const renamed = 'Renamed after the attack';
    let editServed = false;
    for (const t1 = performance.now(); !editServed && performance.now() - t1 < 15_000 && gw.alive(); await sleep(50)) {
      editServed = (await actionName(gw, 'list-lists')) === renamed;
    }
    if (!editServed) problems.push('the following valid edit was not served');

    // SIGHUP reloads too.
    const lastAt = (await status(gw)).data?.lastAttempt?.at;
    gw.process.kill('SIGHUP');
    const hup = await waitFor(gw, (s) => s.data?.lastAttempt?.reason === 'SIGHUP' && s.data.lastAttempt.at !== lastAt, 15_000);
    if (!hup) problems.push('SIGHUP did not reload');
    if (!gw.alive()) problems.push('the gateway died');
    if (process.env.ATTACK_DEBUG && problems.length) process.stderr.write(`${kase.name}:\n${gw.output().slice(-4000)}\n`);

    return {
      case: kase.name,
      'mode': 'hot reload',
      'reload ms': round(reloadMs),
      'health max ms': figures.maxMs,
      'health failed': figures.failed,
      'status bytes': statusBytes,
      'problems shown': errors.length,
      'first problem': errors[0] ? `${errors[0].file}:${errors[0].line}:${errors[0].column} ${errors[0].code}` : '',
      'edit served': editServed,
      'SIGHUP reloads': !!hup,
      ok: problems.length === 0,
      wrong: problems.join('; '),
    };
  } finally {
    await gw.stop();
  }
}

async function coldStart(kase: Case, files: Record<string, string>): Promise<Record<string, string | number | boolean>> {
  const problems: string[] = [];
  const t0 = performance.now();
  let gw: AttackGateway;
  try {
    gw = await startAttackGateway({ definitions: { ...files, [BAD_FILE]: kase.text } });
  } catch (error) {
    const exited = (error as Error).message.split('\n')[0]!;
    return { case: kase.name, mode: 'start with the file', 'start ms': round(performance.now() - t0), ok: false, wrong: `did not start: ${exited}` };
  }
  try {
    const startMs = performance.now() - t0;
    const ready = await timedFetch(`${gw.url}/ready`, {}, 10_000);
    const s = await status(gw);
    const errors = s.data?.errors ?? [];
    if (kase.valid) {
      if (ready.status !== 200) problems.push(`/ready ${ready.status} with a valid file`);
    } else {
      if (ready.status !== 503 || ready.body?.error?.code !== 'NOT_READY') problems.push(`/ready ${ready.status} ${ready.body?.error?.code ?? ''}`);
      if (!locatedInBadFile(s)) problems.push('no located problem for the file');
    }
    if (s.answer.text.length > STATUS_MAX_BYTES) problems.push(`status answer ${s.answer.text.length} bytes`);
    return {
      case: kase.name,
      mode: 'start with the file',
      'start ms': round(startMs),
      ready: ready.status,
      'status bytes': s.answer.text.length,
      'problems shown': errors.length,
      'first problem': errors[0] ? `${errors[0].file}:${errors[0].line}:${errors[0].column} ${errors[0].code}` : '',
      ok: problems.length === 0,
      wrong: problems.join('; '),
    };
  } finally {
    await gw.stop();
  }
}

export const attack: Attack = {
  name: 'definitions',
  summary: 'an alias bomb, one anchor used 100 times and 20,000 unknown keys in a definition file: hot reload and start',
  async run(): Promise<AttackReport> {
    const files = await validFiles();
    const rows: AttackReport['rows'] = [];
    for (const kase of CASES) {
      rows.push(await hotReload(kase, files));
      rows.push(await coldStart(kase, files));
    }
    return {
      attack: 'definitions',
      rows,
      ok: rows.every((row) => row.ok === true),
      notes: [
        `reload ms: from writing the file to the status route showing the attempt (-1: none within ${RELOAD_WAIT_MS / 1000} s)`,
        'edit served: the file fixed and list-lists renamed, then the new name answered by GET /v2/universal/apps/acme-crm/actions/list-lists',
      ],
    };
  },
};
