/**
 * `npm run bench:pg-gc`: what a PostgreSQL query through Kysely leaves for
 * V8's young-generation GC (scavenges), with pg's promise-form query
 * (Kysely's PostgresDialect given pg's pool as it is) and with the store's
 * callbackQueries (engine/platform/store/sql/callback-queries.ts). A throwaway
 * cluster of Debian's server, one table of 1,000 rows like end users; each
 * side in its own node process run with `--trace-gc-nvp` sends 3,000 pages
 * of 100 rows, two at a time (a page and its count, as a list does), and the
 * scavenges of its second half are summarised: pause, bytes that survived
 * (copied or promoted), bytes allocated between two.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { commandLine, isEntry, usageLine } from '../../engine/platform/cli/command-line.ts';
import { callbackQueries } from '../../engine/platform/store/sql/callback-queries.ts';
import { startThrowawayCluster } from '../postgres/throwaway-cluster.ts';
import { median, round, table } from './stats.ts';

export const cli = {
  command: 'npm run bench:pg-gc --',
  summary: "Young-generation GC after PostgreSQL queries through Kysely: pg's promise-form query against the store's callbackQueries.",
  options: {
    child: { type: 'string' as const, value: '<side>', description: '(internal) run one side: promise or callback' },
    url: { type: 'string' as const, value: '<url>', description: '(internal) the database of the child' },
  },
  examples: ['npm run bench:pg-gc'],
};

const PAGES = 3_000;
const FILTER = 'lax $."region" ? (@ == "us")';

async function child(side: string, url: string): Promise<void> {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: side === 'callback' ? callbackQueries(pool) : pool }) });
  const where = sql<boolean>`metadata @? ${FILTER}::jsonpath`;
  for (let i = 0; i < PAGES; i++) {
    if (i === PAGES / 2) process.stdout.write('MEASURE\n');
    await Promise.all([
      db.selectFrom('rows').selectAll().where(where).orderBy('created_on').orderBy('id').limit(100).execute(),
      db.selectFrom(db.selectFrom('rows').select(sql`1`.as('one')).where(where).limit(1100).as('m')).select(sql<string>`count(*)`.as('n')).executeTakeFirstOrThrow(),
    ]);
  }
  await db.destroy();
}

interface Side {
  scavenges: number;
  pauseMs: number;
  maxPauseMs: number;
  survivedKb: number;
  allocatedKb: number;
}

/**
 * The fields read from a `--trace-gc-nvp` line (`pause=1.3 ... allocated=13875064 promoted=4192
 * new_space_survived=12672 ...`), compiled once. The lines are V8's, from this script's own child; each
 * pattern is a literal name and one character class, linear in the line whatever it holds.
 */
const TRACE_FIELDS = {
  pause: /\bpause=([0-9.]+)/,
  new_space_survived: /\bnew_space_survived=([0-9.]+)/,
  allocated: /\ballocated=([0-9.]+)/,
};

function runSide(side: string, url: string): Promise<Side> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--trace-gc-nvp', '--import', 'tsx', new URL(import.meta.url).pathname, '--child', side, '--url', url], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    proc.on('error', reject);
    proc.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`the ${side} side exited with ${code}`));
      const measured = out.slice(out.indexOf('MEASURE'));
      const field = (line: string, name: keyof typeof TRACE_FIELDS) => Number(TRACE_FIELDS[name].exec(line)?.[1] ?? NaN);
      const lines = measured.split('\n').filter((line) => line.includes('gc=s '));
      const pauses = lines.map((line) => field(line, 'pause'));
      resolve({
        scavenges: lines.length,
        pauseMs: round(median(pauses), 1),
        maxPauseMs: Math.max(...pauses),
        survivedKb: round(median(lines.map((line) => field(line, 'new_space_survived'))) / 1024, 0),
        allocatedKb: round(median(lines.map((line) => field(line, 'allocated'))) / 1024, 0),
      });
    });
  });
}

async function main(): Promise<void> {
  const cluster = await startThrowawayCluster({ fsync: false });
  try {
    const admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
    await admin.query('CREATE DATABASE bench_pg_gc');
    await admin.end();
    const url = cluster.urlOf('bench_pg_gc');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`CREATE TABLE rows (id text PRIMARY KEY, name text NOT NULL, email text NOT NULL, metadata jsonb NOT NULL, created_on timestamptz NOT NULL, updated_on timestamptz NOT NULL)`);
    await client.query(`INSERT INTO rows SELECT 'eu_' || lpad(i::text, 10, '0'), 'User ' || i, 'user' || i || '@example.test',
      jsonb_build_object('region', (ARRAY['eu','us','ap','sa'])[1 + i % 4], 'tier', i % 10), now() + (i || ' seconds')::interval, now() FROM generate_series(1, 1000) AS i`);
    await client.query('ANALYZE rows');
    await client.end();
    const rows: (string | number)[][] = [];
    for (const side of ['promise', 'callback']) {
      const s = await runSide(side, url);
      rows.push([side === 'promise' ? "pg's promise-form query (Kysely's default)" : 'callbackQueries (the store)', s.scavenges, s.pauseMs, s.maxPauseMs, s.survivedKb, s.allocatedKb]);
    }
    process.stdout.write(
      `${table(['query form', 'scavenges', 'pause ms (median)', 'pause ms (max)', 'survived KB (median)', 'allocated KB between two'], rows)}\n` +
        `(${PAGES / 2} pages of 100 rows and their counts measured per side; Node ${process.version}; load average ${os.loadavg().map((l) => round(l, 2)).join(' ')} on ${os.availableParallelism()} CPUs)\n`,
    );
  } finally {
    await cluster.stop();
  }
}

const args = isEntry(import.meta.url) ? commandLine(cli) : null;
const side = args?.values.child;
const refused =
  side !== undefined && side !== 'promise' && side !== 'callback' ? `--child takes promise or callback (got ${side})` : side !== undefined && !args?.values.url ? '--child needs --url' : undefined;
if (refused) {
  process.stderr.write(`${refused}\n${usageLine(cli)}\n`);
  process.exitCode = 2;
} else if (side) await child(side, args!.values.url!);
else if (args) await main();
