import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely';

/** The lease of a token renewal under way (ConnectionRecord.renewingUntil): one gateway of a fleet calls the token endpoint, the others wait for its token. */
export const renewalLease: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`ALTER TABLE connections ADD COLUMN renewing_until timestamptz`.execute(db);
  },
};
