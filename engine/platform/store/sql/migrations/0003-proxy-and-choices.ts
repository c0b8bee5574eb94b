import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely';

/**
 * Three fields that came with the proxy, the OAuth model and the Connect
 * page's theme, written by the other stores as they are: whether end users
 * may use the proxy (EmbeddingSettingsRecord.endUserProxy; NULL reads as
 * absent, i.e. off), the accounts a grant reaches while the end user chooses
 * one (PendingAuthorizationRecord.choice), and the Connect page's look
 * (EmbeddingSettingsRecord.theme; NULL: the default).
 */
export const proxyAndChoices: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`ALTER TABLE embedding_settings ADD COLUMN end_user_proxy boolean`.execute(db);
    await sql`ALTER TABLE pending_authorizations ADD COLUMN choice jsonb`.execute(db);
    await sql`ALTER TABLE embedding_settings ADD COLUMN theme jsonb`.execute(db);
  },
};
