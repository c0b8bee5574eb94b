/**
 * The store at scale, as a client sees it: N end users, N connections and N
 * installations in one company, on the embedded store (PGlite in DATA_DIR)
 * and on PostgreSQL (a throwaway cluster of Debian's server, fsync on), the
 * real gateway (`npm start`'s compiled entry) in its own process:
 *
 *   start      from spawn to /health answering, on the seeded store (an empty
 *              DEFINITIONS_DIR: the catalogue's load is measured by `npm run bench -- --only=scale`)
 *   RSS        of the gateway process after the lists ran
 *   disk       DATA_DIR/pglite, or pg_database_size
 *   lists      p50/p99 of GET /v2/{end-users,connections,installations} with
 *              where=<indexed equality> (email for end users, endUserId for the others),
 *              where=metadata.region==us, and where=createdOn>… sorted -createdOn
 *   /health    p99 of GET /health sent every 10 ms while BENCH_LIST_CONCURRENCY lists run
 *
 * Records are written with bulk SQL (INSERT … SELECT generate_series), not
 * through the API. Run:
 *
 *   npm run bench:store -- --records=1000,100000 --stores=embedded,postgres
 *
 * Prints the machine's load (uptime) before and after each case, and a JSON
 * line per case. Needs `npm run build` (done here) and, for postgres,
 * Debian's postgresql server binaries.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { commandLine, isEntry, usageLine } from '../../engine/platform/cli/command-line.ts';
import { PACKAGE_ROOT } from '../../engine/platform/package-root.ts';
import pg from 'pg';
import { ensureBuilt, START_ARGS } from '../../spec/helpers/start-command.ts';
import { startThrowawayCluster } from '../postgres/throwaway-cluster.ts';
import { percentile as sortedPercentile } from './stats.ts';

const percentile = (values: number[], p: number) => sortedPercentile([...values].sort((a, b) => a - b), p);

const ROOT = PACKAGE_ROOT;
const API_KEY = 'bench-store-key-0123456789abcdefgh';
const BASE = new Date('2025-01-01T00:00:00Z');

export const cli = {
  command: 'npm run bench:store --',
  summary:
    'The store at scale: N end users, connections and installations in one company (written with bulk SQL), the real gateway on the embedded store and on PostgreSQL (a throwaway cluster): start, RSS, disk, list p50/p99, /health p99 under list load. Reports figures; never fails on speed.',
  options: {
    records: { type: 'string' as const, value: '<n,n,...>', description: 'record counts, each of end users, connections and installations (default 1000,100000)' },
    stores: { type: 'string' as const, value: '<stores>', description: 'embedded, postgres or both, comma-separated (default both)' },
    samples: { type: 'string' as const, value: '<n>', description: 'sequential requests per list query (default 200)' },
    'load-seconds': { type: 'string' as const, value: '<s>', description: 'how long the lists run while /health is probed (default 10)' },
    concurrency: { type: 'string' as const, value: '<n>', description: 'clients sending lists meanwhile (default 4)' },
    'pg-port': { type: 'string' as const, value: '<port>', description: "the throwaway PostgreSQL cluster's port on 127.0.0.1 (default a free one)" },
  },
  examples: ['npm run bench:store -- --records=1000,100000', 'npm run bench:store -- --records=1000000 --stores=embedded'],
};

const args = isEntry(import.meta.url) ? commandLine(cli) : null;
const values: Partial<Record<keyof typeof cli.options, string>> = (args?.values ?? {}) as Partial<Record<keyof typeof cli.options, string>>;
const RECORDS = (values.records ?? '1000,100000').split(',').map(Number);
const STORES = (values.stores ?? 'embedded,postgres').split(',') as ('embedded' | 'postgres')[];
const SAMPLES = Number(values.samples ?? 200);
const LOAD_SECONDS = Number(values['load-seconds'] ?? 10);
const CONCURRENCY = Number(values.concurrency ?? 4);
const PG_PORT = values['pg-port'] ? Number(values['pg-port']) : undefined;

/** The first option given a value it does not take, as the refusal naming it and what it got; undefined when all are good. */
function refusal(): string | undefined {
  const whole = (value: number, least: number, most = Number.MAX_SAFE_INTEGER) => Number.isInteger(value) && value >= least && value <= most;
  if (!RECORDS.every((n) => whole(n, 1))) return `--records takes whole numbers of 1 or more, comma-separated (got ${values.records})`;
  if (!STORES.every((s) => s === 'embedded' || s === 'postgres')) return `--stores takes embedded, postgres or both, comma-separated (got ${values.stores})`;
  for (const [name, value] of [['samples', SAMPLES], ['load-seconds', LOAD_SECONDS], ['concurrency', CONCURRENCY]] as const) {
    if (!whole(value, 1)) return `--${name} must be a whole number, 1 or more (got ${values[name]})`;
  }
  if (PG_PORT !== undefined && !whole(PG_PORT, 1, 65535)) return `--pg-port must be a port, 1 to 65535 (got ${values['pg-port']})`;
  return undefined;
}

type Sql = (text: string, params?: unknown[]) => Promise<unknown[]>;

const load = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');

/**
 * Bulk SQL: one company's N end users, connections and installations, created one second apart.
 * `vacuum` (PostgreSQL): VACUUM (ANALYZE) after the load, as PostgreSQL's documentation advises after a bulk
 * load and as autovacuum would have long done in a store that grew to N by traffic: left to autovacuum, its
 * first pass over the 3,000,000 fresh rows ran, throttled, through the whole measurement (seen in
 * pg_stat_activity), and the figures were those of a table being vacuumed. The embedded store is left as the
 * gateway leaves it: PGlite never vacuums, and its tables are analysed by the gateway (pglite-analyze.ts).
 */
async function seed(sql: Sql, companyId: string, n: number, vacuum = false): Promise<void> {
  const chunk = 100_000;
  for (let from = 1; from <= n; from += chunk) {
    const to = Math.min(n, from + chunk - 1);
    const id = (prefix: string) => `'${prefix}' || lpad(i::text, 10, '0')`;
    const at = `($2::timestamptz + (i || ' seconds')::interval)`;
    const region = `jsonb_build_object('region', (ARRAY['eu','us','ap','sa'])[1 + i % 4], 'tier', i % 10)`;
    await sql(
      `INSERT INTO end_users (id, company_id, external_id, external_key, name, email, is_test_user, metadata, created_on, updated_on)
       SELECT ${id('eu_b')}, $1, 'ext-' || i, $1 || ':ext-' || i, 'User ' || i, 'user' || i || '@example.test', false, ${region}, ${at}, ${at}
       FROM generate_series($3::int, $4::int) AS i`,
      [companyId, BASE, from, to],
    );
    await sql(
      `INSERT INTO connections (id, company_id, app_id, app_slug, auth_id, auth_type, end_user_id, name, metadata, credentials, credentials_version, status, created_on, updated_on)
       SELECT ${id('con_b')}, $1, 'acme', (ARRAY['acme-crm','github','slack'])[1 + i % 3], 'api-key', 'ApiKey', ${id('eu_b')}, 'Connection ' || i, ${region},
              '{"v":1,"kid":"bench","iv":"","tag":"","data":""}'::jsonb, 1, 'active', ${at}, ${at}
       FROM generate_series($3::int, $4::int) AS i`,
      [companyId, BASE, from, to],
    );
    await sql(
      `INSERT INTO installations (id, company_id, end_user_id, apps, metadata, created_on, updated_on)
       SELECT ${id('ins_b')}, $1, ${id('eu_b')}, jsonb_build_array(jsonb_build_object('appId', 'acme', 'appSlug', 'acme-crm', 'connectionId', ${id('con_b')})), ${region}, ${at}, ${at}
       FROM generate_series($3::int, $4::int) AS i`,
      [companyId, BASE, from, to],
    );
  }
  for (const table of ['end_users', 'connections', 'installations']) await sql(vacuum ? `VACUUM (ANALYZE) ${table}` : `ANALYZE ${table}`);
}

interface Gateway {
  url: string;
  pid: number;
  startMs: number;
  stop(): Promise<void>;
}

/** No definitions: the start measured is the process and its store, not the catalogue's load (benchmarked apart). */
let NO_DEFINITIONS = '';

async function startGateway(env: Record<string, string>): Promise<Gateway> {
  const started = performance.now();
  const args = START_ARGS.map((arg) => (arg.endsWith('.js') ? path.join(ROOT, arg) : arg));
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', BOOTSTRAP_API_KEY: API_KEY, SHUTDOWN_DRAIN_MS: '0', DEFINITIONS_DIR: NO_DEFINITIONS, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c) => (out += String(c)));
  child.stderr.on('data', (c) => (out += String(c)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // LOG_LEVEL=warn hides "gateway listening": the port is read from /proc instead, once /health answers on it.
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start in 600 s:\n${out}`)), 600_000);
    const poll = setInterval(async () => {
      const found = await listeningPort(child.pid!);
      if (found === null) return;
      try {
        if ((await fetch(`http://127.0.0.1:${found}/health`)).ok) {
          clearInterval(poll);
          clearTimeout(timer);
          resolve(found);
        }
      } catch {
        // not yet
      }
    }, 20);
    void exited.then(() => reject(new Error(`the gateway exited:\n${out}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    startMs: Math.round(performance.now() - started),
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The TCP port a process listens on, from /proc (Linux). */
async function listeningPort(pid: number): Promise<number | null> {
  try {
    const inodes = new Set<string>();
    for (const fd of await fs.readdir(`/proc/${pid}/fd`)) {
      const link = await fs.readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
      const m = /^socket:\[(\d+)\]$/.exec(link);
      if (m) inodes.add(m[1]!);
    }
    for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[3] === '0A' && inodes.has(cols[9]!)) return parseInt(cols[1]!.split(':')[1]!, 16);
    }
  } catch {
    // gone or not yet there
  }
  return null;
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : -1;
}

async function duMb(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await fs.stat(path.join(entry.parentPath, entry.name))).size;
  }
  return Math.round(total / 1024 / 1024);
}

async function get(url: string): Promise<number> {
  const t = performance.now();
  const r = await fetch(url, { headers: { authorization: `Bearer ${API_KEY}` } });
  const body = (await r.json()) as { success?: boolean };
  if (r.status !== 200 || body.success === false) throw new Error(`${url}: ${r.status} ${JSON.stringify(body).slice(0, 300)}`);
  return performance.now() - t;
}

function listQueries(n: number): Record<string, string> {
  const k = Math.max(1, Math.floor(n / 2));
  const pad = String(k).padStart(10, '0');
  const mid = new Date(BASE.getTime() + k * 1000).toISOString();
  const out: Record<string, string> = {};
  for (const [kind, equality] of [['end-users', `email==user${k}@example.test`], ['connections', `endUserId==eu_b${pad}`], ['installations', `endUserId==eu_b${pad}`]] as const) {
    out[`${kind} ${equality.split('==')[0]}==`] = `/v2/${kind}?where=${encodeURIComponent(equality)}`;
    out[`${kind} metadata.region==us`] = `/v2/${kind}?where=${encodeURIComponent('metadata.region==us')}`;
    out[`${kind} createdOn> sorted`] = `/v2/${kind}?where=${encodeURIComponent(`createdOn>${mid}`)}&sort=-createdOn`;
  }
  return out;
}

async function measure(gateway: Gateway, n: number) {
  const queries = listQueries(n);
  const lists: Record<string, { p50: number; p99: number }> = {};
  for (const [name, query] of Object.entries(queries)) {
    for (let i = 0; i < 5; i++) await get(gateway.url + query);
    const times: number[] = [];
    for (let i = 0; i < SAMPLES; i++) times.push(await get(gateway.url + query));
    lists[name] = { p50: round(percentile(times, 50)), p99: round(percentile(times, 99)) };
  }
  // /health while lists run: CONCURRENCY clients cycling through every list query.
  const health: number[] = [];
  let listsDone = 0;
  const until = Date.now() + LOAD_SECONDS * 1000;
  const all = Object.values(queries);
  const clients = Array.from({ length: CONCURRENCY }, async (_, c) => {
    for (let i = c; Date.now() < until; i++) {
      await get(gateway.url + all[i % all.length]!);
      listsDone++;
    }
  });
  const prober = (async () => {
    while (Date.now() < until) {
      const t = performance.now();
      await fetch(`${gateway.url}/health`).then((r) => r.arrayBuffer());
      health.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  await Promise.all([...clients, prober]);
  return { lists, healthP99: round(percentile(health, 99)), healthP50: round(percentile(health, 50)), healthSamples: health.length, listsDuringLoad: listsDone, rssMb: rssMb(gateway.pid) };
}

function round(x: number): number {
  return Math.round(x * 10) / 10;
}

async function embeddedCase(n: number) {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'igw-bench-store-'));
  try {
    // An empty start bootstraps the company (and its key); then the records are written beside it with SQL.
    const first = await startGateway({ DATA_DIR: dataDir });
    await first.stop();
    const db = await PGlite.create(path.join(dataDir, 'pglite'));
    const sql: Sql = async (text, params) => (await db.query(text, params)).rows;
    const companyId = ((await sql('SELECT id FROM companies LIMIT 1')) as { id: string }[])[0]!.id;
    const seeded = performance.now();
    await seed(sql, companyId, n);
    await db.query('CHECKPOINT');
    await db.close();
    const seedMs = Math.round(performance.now() - seeded);
    const gateway = await startGateway({ DATA_DIR: dataDir });
    try {
      const figures = await measure(gateway, n);
      return { store: 'embedded', records: n, seedMs, startMs: gateway.startMs, diskMb: await duMb(path.join(dataDir, 'pglite')), ...figures };
    } finally {
      await gateway.stop();
    }
  } finally {
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

async function postgresCase(n: number, clusterUrl: (db: string) => string, adminUrl: string) {
  const name = `bench_${n}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = clusterUrl(name);
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'igw-bench-store-'));
  const env = { DATA_DIR: dataDir, DATABASE_URL: url, ENCRYPTION_KEY: randomBytes(32).toString('base64') };
  try {
    const first = await startGateway(env);
    await first.stop();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const sql: Sql = async (text, params) => (await client.query(text, params as unknown[])).rows;
    const companyId = ((await sql('SELECT id FROM companies LIMIT 1')) as { id: string }[])[0]!.id;
    const seeded = performance.now();
    await seed(sql, companyId, n, true);
    const seedMs = Math.round(performance.now() - seeded);
    const size = Number(((await sql('SELECT pg_database_size(current_database()) AS s')) as { s: string }[])[0]!.s);
    await client.end();
    const gateway = await startGateway(env);
    try {
      const figures = await measure(gateway, n);
      return { store: 'postgres', records: n, seedMs, startMs: gateway.startMs, diskMb: Math.round(size / 1024 / 1024), ...figures };
    } finally {
      await gateway.stop();
    }
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  ensureBuilt();
  NO_DEFINITIONS = await fs.mkdtemp(path.join(os.tmpdir(), 'igw-bench-no-definitions-'));
  const cluster = STORES.includes('postgres') ? await startThrowawayCluster({ fsync: true, port: PG_PORT }) : null;
  try {
    for (const n of RECORDS) {
      for (const store of STORES) {
        const before = load();
        const result = store === 'embedded' ? await embeddedCase(n) : await postgresCase(n, cluster!.urlOf, cluster!.url);
        console.log(JSON.stringify({ ...result, loadBefore: before, loadAfter: load(), cpus: os.cpus().length }));
      }
    }
  } finally {
    await cluster?.stop();
    await fs.rm(NO_DEFINITIONS, { recursive: true, force: true });
  }
}

const refused = args ? refusal() : undefined;
if (refused) {
  process.stderr.write(`${refused}\n${usageLine(cli)}\n`);
  process.exitCode = 2;
} else if (args) await main();
