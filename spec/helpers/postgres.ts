import pg from 'pg';
import { postgresBinaries, startThrowawayCluster, type ThrowawayCluster } from '../../scripts/postgres/throwaway-cluster.ts';

/**
 * The PostgreSQL server the specs run against: TEST_DATABASE_URL when set
 * (a server you run; each spec makes and drops its own database in it),
 * else a throwaway cluster started on first use from Debian's binaries and
 * stopped when the run ends. With neither, `postgresOrSkip` prints
 * SKIPPED with the reason and skips the suite, unless TEST_POSTGRES=required
 * (CI): then the suite runs and fails, naming what is missing.
 */
let cluster: Promise<ThrowawayCluster | { url: string; urlOf(db: string): string; stop(): Promise<void> }> | null = null;

export function postgresUnavailableReason(): string | null {
  if (process.env.TEST_DATABASE_URL) return null;
  if (process.env.TEST_POSTGRES === 'off') return 'TEST_POSTGRES=off';
  // TEST_POSTGRES=required (.ci/run): never skipped; with no server the specs fail, saying why.
  if (process.env.TEST_POSTGRES === 'required') return null;
  return postgresBinaries() ? null : "no PostgreSQL server: neither TEST_DATABASE_URL nor Debian's postgresql binaries (apt-get install postgresql) are there";
}

function server() {
  cluster ??= process.env.TEST_DATABASE_URL
    ? Promise.resolve(external(process.env.TEST_DATABASE_URL))
    : startThrowawayCluster();
  return cluster;
}

function external(url: string) {
  return {
    url,
    urlOf(database: string) {
      const u = new URL(url);
      u.pathname = `/${database}`;
      return u.toString();
    },
    async stop() {},
  };
}

// The cluster lives for the whole run: stopped after the last spec, whichever file started it.
after(async function () {
  this.timeout(60_000);
  // A cluster that never started (no binaries, TEST_POSTGRES=required) has failed its specs already.
  if (cluster) await (await cluster.catch(() => null))?.stop();
});

let serial = 0;

/** A new, empty database on the server; `drop` removes it (its connections must be closed first). */
export async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const s = await server();
  const name = `igw_${process.pid}_${Date.now().toString(36)}_${serial++}`;
  await admin(s.url, `CREATE DATABASE ${name}`);
  return { url: s.urlOf(name), drop: () => admin(s.url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

async function admin(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** In a describe's before: skips the suite, saying why, when there is no PostgreSQL server to run it on. */
export function postgresOrSkip(context: Mocha.Context, what: string): void {
  const reason = postgresUnavailableReason();
  if (reason) {
    console.log(`      SKIPPED: ${what} did not run: ${reason}`);
    context.skip();
  }
}
