import { sql, type Kysely } from 'kysely';
import { Migrator, type Migration } from 'kysely';
import { MIGRATIONS } from './migrations/index.ts';

export const MIGRATION_TABLE = 'igw_migrations';
const LOCK_TABLE = 'igw_migrations_lock';

/** The database was migrated by a newer release than this one: starting would read a schema it does not know. */
export class SchemaTooNewError extends Error {
  constructor(readonly unknown: string[], readonly latest: string) {
    super(
      `the database schema is newer than this gateway: it has migration ${unknown.join(', ')}, and this release knows migrations up to ${latest}. ` +
        'A newer release migrated it; run that release (or a later one), or restore a backup taken before the upgrade',
    );
    this.name = 'SchemaTooNewError';
  }
}

export class MigrationFailedError extends Error {
  constructor(readonly migration: string, cause: unknown) {
    super(`schema migration ${migration} failed and was rolled back (${(cause as Error)?.message ?? String(cause)}); the database is as it was before it`, { cause });
    this.name = 'MigrationFailedError';
  }
}

/**
 * Brings the schema to this release's: the migrations it has not run yet,
 * forward only, each in its own transaction, under PostgreSQL's advisory
 * lock (Kysely's Migrator), so gateways starting together on one server
 * migrate once. A database that already ran a migration this release does
 * not know is refused (SchemaTooNewError) before anything is written.
 * Answers the names of the migrations run now.
 */
export async function migrateToLatest(db: Kysely<any>, migrations: Readonly<Record<string, Migration>> = MIGRATIONS): Promise<string[]> {
  await refuseNewerSchema(db, migrations);
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => ({ ...migrations }) },
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: LOCK_TABLE,
  });
  const ran: string[] = [];
  for (;;) {
    const { error, results = [] } = await migrator.migrateUp();
    if (error) {
      const failed = results.find((r) => r.status === 'Error')?.migrationName ?? '(unknown)';
      if (/previously executed migration .* is missing/.test((error as Error).message ?? '')) await refuseNewerSchema(db, migrations);
      throw new MigrationFailedError(failed, error);
    }
    if (results.length === 0) return ran;
    ran.push(...results.map((r) => r.migrationName));
  }
}

/** The migrations the database has run, in order ([] for a new database). */
export async function executedMigrations(db: Kysely<any>): Promise<string[]> {
  const exists = await sql<{ t: string | null }>`SELECT to_regclass(${MIGRATION_TABLE}) AS t`.execute(db);
  if (!exists.rows[0]?.t) return [];
  const rows = await sql<{ name: string }>`SELECT name FROM ${sql.table(MIGRATION_TABLE)} ORDER BY name`.execute(db);
  return rows.rows.map((r) => r.name);
}

async function refuseNewerSchema(db: Kysely<any>, migrations: Readonly<Record<string, Migration>>): Promise<void> {
  const known = new Set(Object.keys(migrations));
  const unknown = (await executedMigrations(db)).filter((name) => !known.has(name));
  if (unknown.length) throw new SchemaTooNewError(unknown, Object.keys(migrations).sort().at(-1) ?? '(none)');
}
