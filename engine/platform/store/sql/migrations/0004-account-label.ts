import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely';

/**
 * Who a connection's account is at the app (ConnectionRecord.accountLabel: a
 * login, a workspace), from the auth's verification request or the account
 * chosen on an OAuth connection. NULL reads as absent, i.e. unknown: the
 * connections stored before it have none.
 */
export const accountLabel: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`ALTER TABLE connections ADD COLUMN account_label text`.execute(db);
  },
};
