import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely';

/**
 * The first schema: one table per collection (tables.ts), text in code-point
 * order (COLLATE "C", the same on every server whatever its locale), and the
 * indexes the engine's queries and the list endpoints need: per company, for
 * each field a list filters or sorts on, with id after the sort field so a
 * page is read in index order. JSONB fields a list filters by key get a GIN
 * index (jsonb_path_ops answers `@?` and `@>`).
 *
 * Frozen once released: a change of schema is a new migration after this one.
 */
export const initial: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    for (const statement of STATEMENTS) await sql.raw(statement).execute(db);
  },
};

const STATEMENTS = [
  `CREATE TABLE companies (
    id text COLLATE "C" PRIMARY KEY,
    name text COLLATE "C" NOT NULL,
    description text COLLATE "C",
    is_personal boolean NOT NULL,
    timezone text COLLATE "C" NOT NULL,
    settings jsonb NOT NULL,
    is_deleted boolean NOT NULL,
    created_on timestamptz NOT NULL,
    updated_on timestamptz NOT NULL,
    plan text COLLATE "C" NOT NULL,
    billing_subscription_product_id text COLLATE "C",
    subscription_is_legacy boolean NOT NULL,
    subscription_updated_on timestamptz,
    member_count integer NOT NULL,
    bootstrap_pending boolean
  )`,
  `CREATE TABLE members (
    id text COLLATE "C" PRIMARY KEY,
    company_id text COLLATE "C" NOT NULL,
    user_id text COLLATE "C" NOT NULL,
    name text COLLATE "C" NOT NULL,
    email text COLLATE "C" NOT NULL,
    role text COLLATE "C" NOT NULL,
    created_on timestamptz NOT NULL
  )`,
  `CREATE UNIQUE INDEX members_company_user ON members (company_id, user_id)`,
  `CREATE UNIQUE INDEX members_company_email ON members (company_id, email)`,
  `CREATE INDEX members_user ON members (user_id)`,
  `CREATE TABLE api_keys (
    id text COLLATE "C" PRIMARY KEY,
    company_id text COLLATE "C" NOT NULL,
    user_id text COLLATE "C" NOT NULL,
    name text COLLATE "C" NOT NULL,
    prefix text COLLATE "C" NOT NULL,
    hash text COLLATE "C" NOT NULL,
    created_on timestamptz NOT NULL,
    revoked_on timestamptz
  )`,
  `CREATE UNIQUE INDEX api_keys_hash ON api_keys (hash)`,
  `CREATE INDEX api_keys_company ON api_keys (company_id)`,
  `CREATE TABLE end_users (
    id text COLLATE "C" PRIMARY KEY,
    company_id text COLLATE "C" NOT NULL,
    external_id text COLLATE "C",
    external_key text COLLATE "C",
    name text COLLATE "C",
    email text COLLATE "C",
    is_test_user boolean NOT NULL,
    metadata jsonb NOT NULL,
    created_on timestamptz NOT NULL,
    updated_on timestamptz NOT NULL
  )`,
  `CREATE UNIQUE INDEX end_users_external_key ON end_users (external_key)`,
  `CREATE INDEX end_users_company_created ON end_users (company_id, created_on, id)`,
  `CREATE INDEX end_users_company_updated ON end_users (company_id, updated_on, id)`,
  `CREATE INDEX end_users_company_email ON end_users (company_id, email)`,
  `CREATE INDEX end_users_company_external_id ON end_users (company_id, external_id)`,
  `CREATE INDEX end_users_company_name ON end_users (company_id, name)`,
  `CREATE INDEX end_users_metadata ON end_users USING gin (metadata jsonb_path_ops)`,
  `CREATE TABLE connections (
    id text COLLATE "C" PRIMARY KEY,
    company_id text COLLATE "C" NOT NULL,
    app_id text COLLATE "C" NOT NULL,
    app_slug text COLLATE "C" NOT NULL,
    auth_id text COLLATE "C" NOT NULL,
    auth_type text COLLATE "C" NOT NULL,
    end_user_id text COLLATE "C",
    name text COLLATE "C",
    metadata jsonb NOT NULL,
    credentials jsonb NOT NULL,
    credentials_version integer NOT NULL,
    status text COLLATE "C" NOT NULL,
    token_expires_at timestamptz,
    created_on timestamptz NOT NULL,
    updated_on timestamptz NOT NULL
  )`,
  `CREATE INDEX connections_company_created ON connections (company_id, created_on, id)`,
  `CREATE INDEX connections_company_updated ON connections (company_id, updated_on, id)`,
  `CREATE INDEX connections_company_app ON connections (company_id, app_slug)`,
  `CREATE INDEX connections_company_end_user ON connections (company_id, end_user_id)`,
  `CREATE INDEX connections_company_status ON connections (company_id, status)`,
  `CREATE INDEX connections_company_name ON connections (company_id, name)`,
  `CREATE INDEX connections_metadata ON connections USING gin (metadata jsonb_path_ops)`,
  `CREATE TABLE installations (
    id text COLLATE "C" PRIMARY KEY,
    company_id text COLLATE "C" NOT NULL,
    end_user_id text COLLATE "C" NOT NULL,
    apps jsonb NOT NULL,
    metadata jsonb NOT NULL,
    created_on timestamptz NOT NULL,
    updated_on timestamptz NOT NULL
  )`,
  `CREATE INDEX installations_company_created ON installations (company_id, created_on, id)`,
  `CREATE INDEX installations_company_updated ON installations (company_id, updated_on, id)`,
  `CREATE INDEX installations_company_end_user ON installations (company_id, end_user_id)`,
  `CREATE INDEX installations_apps ON installations USING gin (apps jsonb_path_ops)`,
  `CREATE INDEX installations_metadata ON installations USING gin (metadata jsonb_path_ops)`,
  `CREATE TABLE signing_keys (
    id text COLLATE "C" PRIMARY KEY,
    algorithm text COLLATE "C" NOT NULL,
    public_jwk jsonb NOT NULL,
    private_key jsonb NOT NULL,
    created_on timestamptz NOT NULL,
    retired_on timestamptz
  )`,
  `CREATE TABLE app_configurations (
    id text COLLATE "C" PRIMARY KEY,
    company_id text COLLATE "C" NOT NULL,
    app_slug text COLLATE "C" NOT NULL,
    config_key text COLLATE "C" NOT NULL,
    client_id text COLLATE "C",
    redirect_uri text COLLATE "C",
    exchange_url text COLLATE "C",
    secrets jsonb NOT NULL,
    has_client_secret boolean NOT NULL,
    has_exchange_secret boolean NOT NULL,
    created_on timestamptz NOT NULL,
    updated_on timestamptz NOT NULL
  )`,
  `CREATE UNIQUE INDEX app_configurations_config_key ON app_configurations (config_key)`,
  `CREATE INDEX app_configurations_company ON app_configurations (company_id)`,
  `CREATE TABLE pending_authorizations (
    id text COLLATE "C" PRIMARY KEY,
    company_id text COLLATE "C" NOT NULL,
    app_slug text COLLATE "C" NOT NULL,
    auth_id text COLLATE "C" NOT NULL,
    end_user_id text COLLATE "C",
    metadata jsonb NOT NULL,
    secrets jsonb NOT NULL,
    expires_at timestamptz NOT NULL,
    created_on timestamptz NOT NULL
  )`,
  `CREATE INDEX pending_authorizations_expires ON pending_authorizations (expires_at)`,
  `CREATE INDEX pending_authorizations_company_end_user ON pending_authorizations (company_id, end_user_id)`,
  `CREATE TABLE embedding_settings (
    id text COLLATE "C" PRIMARY KEY,
    company_id text COLLATE "C" NOT NULL,
    allowed_origins jsonb NOT NULL,
    enabled_apps jsonb NOT NULL,
    created_on timestamptz NOT NULL,
    updated_on timestamptz NOT NULL
  )`,
  `CREATE UNIQUE INDEX embedding_settings_company ON embedding_settings (company_id)`,
  `CREATE INDEX embedding_settings_allowed_origins ON embedding_settings USING gin (allowed_origins jsonb_path_ops)`,
  `CREATE TABLE webhook_endpoints (
    id text COLLATE "C" PRIMARY KEY,
    company_id text COLLATE "C" NOT NULL,
    url text COLLATE "C" NOT NULL,
    events jsonb NOT NULL,
    description text COLLATE "C",
    enabled boolean NOT NULL,
    disabled_reason text COLLATE "C",
    secret jsonb NOT NULL,
    created_on timestamptz NOT NULL,
    updated_on timestamptz NOT NULL
  )`,
  `CREATE INDEX webhook_endpoints_company ON webhook_endpoints (company_id)`,
  `CREATE TABLE webhook_deliveries (
    id text COLLATE "C" PRIMARY KEY,
    company_id text COLLATE "C" NOT NULL,
    endpoint_id text COLLATE "C" NOT NULL,
    event_id text COLLATE "C" NOT NULL,
    event_type text COLLATE "C" NOT NULL,
    payload text COLLATE "C" NOT NULL,
    status text COLLATE "C" NOT NULL,
    attempts integer NOT NULL,
    claims integer NOT NULL,
    next_attempt_at timestamptz,
    give_up_at timestamptz NOT NULL,
    last_attempt_at timestamptz,
    response_status integer,
    duration_ms integer,
    error text COLLATE "C",
    created_on timestamptz NOT NULL,
    updated_on timestamptz NOT NULL,
    finished_on timestamptz
  )`,
  `CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at)`,
  `CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (company_id, endpoint_id, status)`,
];
