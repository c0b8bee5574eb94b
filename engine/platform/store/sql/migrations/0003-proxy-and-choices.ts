import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely';

/**
 * Two fields that came with the proxy and the OAuth model, written by the
 * other stores as they are: whether end users may use the proxy
 * (EmbeddingSettingsRecord.endUserProxy; NULL reads as absent, i.e. off), and
 * the accounts a grant reaches while the end user chooses one
 * (PendingAuthorizationRecord.choice).
 */
export const proxyAndChoices: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`ALTER TABLE embedding_settings ADD COLUMN end_user_proxy boolean`.execute(db);
    await sql`ALTER TABLE pending_authorizations ADD COLUMN choice jsonb`.execute(db);
  },
};
