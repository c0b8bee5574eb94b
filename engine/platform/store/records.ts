import type { SealedSecret } from '../crypto/cipher.ts';

/**
 * What the store keeps. Every record has a string `id` the gateway chose
 * (prefixed, e.g. `cmp_…`), and every tenant-owned record a `companyId`:
 * queries for tenant data always carry it.
 */
export interface CompanyRecord {
  id: string;
  name: string;
  description: string | null;
  isPersonal: boolean;
  timezone: string;
  settings: Record<string, unknown>;
  isDeleted: boolean;
  createdOn: Date;
  updatedOn: Date;
  plan: string;
  billingSubscriptionProductId: string | null;
  subscriptionIsLegacy: boolean;
  subscriptionUpdatedOn: Date | null;
  /** Kept in step with the members collection, so it can be filtered and sorted on. */
  memberCount: number;
  /** Set on the "Default" company while the first start's bootstrap is unfinished (internal; never answered). */
  bootstrapPending?: true;
}

export type MemberRole = 'owner' | 'admin' | 'member';

/** A person's membership of one company; `userId` identifies the person across companies. */
export interface MemberRecord {
  id: string;
  companyId: string;
  userId: string;
  name: string;
  email: string;
  role: MemberRole;
  createdOn: Date;
}

export interface ApiKeyRecord {
  id: string;
  companyId: string;
  /** The member (person) the key acts for. */
  userId: string;
  name: string;
  /** The first characters of the key, to recognise it in a listing. */
  prefix: string;
  /** SHA-256 of the whole key, hex. The key itself is never stored. */
  hash: string;
  createdOn: Date;
  revokedOn: Date | null;
}

export interface EndUserRecord {
  id: string;
  companyId: string;
  externalId: string | null;
  /** `companyId:externalId` when externalId is set: one unique index serves both stores. */
  externalKey?: string;
  name: string | null;
  email: string | null;
  isTestUser: boolean;
  metadata: Record<string, unknown>;
  createdOn: Date;
  updatedOn: Date;
}

/** A stored connection to one account of a third-party app. Credentials are sealed (engine/platform/crypto/cipher.ts). */
export interface ConnectionRecord {
  id: string;
  companyId: string;
  appId: string;
  appSlug: string;
  /** The auth definition (by id) the credentials are for. */
  authId: string;
  authType: string;
  /** The end user who owns the account, when one does. */
  endUserId: string | null;
  name: string | null;
  /** Who the account is at the app (a login, a workspace): from the auth's verification or the OAuth choice; null (or absent, on records older than it) when unknown. */
  accountLabel?: string | null;
  /** Host variables (a subdomain, say): not secret, returned by the API. */
  metadata: Record<string, unknown>;
  /** The auth's argument values and any tokens, encrypted with the record id bound in. */
  credentials: SealedSecret;
  /** Bumped on every credential change; a refresh is a compare-and-set on it. */
  credentialsVersion: number;
  status: 'active' | 'needs_reauthorization';
  /** When the stored access token expires, if the provider said. */
  tokenExpiresAt: Date | null;
  /**
   * A token renewal under way holds the connection until then (a lease taken with a compare-and-set): other
   * gateways wait for its token instead of calling the token endpoint too. Absent or past: nobody renews.
   */
  renewingUntil?: Date | null;
  createdOn: Date;
  updatedOn: Date;
}

export interface InstallationAppRecord {
  appId: string;
  appSlug: string;
  connectionId: string;
}

/** An end user's installation of one or more apps, each bound to a connection. */
export interface InstallationRecord {
  id: string;
  companyId: string;
  endUserId: string;
  apps: InstallationAppRecord[];
  /** Host variables for credential exchange and argument templates. */
  metadata: Record<string, unknown>;
  createdOn: Date;
  updatedOn: Date;
}

/**
 * A company's embedding settings (one record per company): which browser
 * origins may call the end-user endpoints and receive the OAuth return, and
 * which apps its end users may connect themselves.
 */
export interface EmbeddingSettingsRecord {
  id: string;
  /** Unique: one record per company. */
  companyId: string;
  /** Exact origins (`https://app.example.com`), normalised as URL.origin writes them. */
  allowedOrigins: string[];
  /** Slugs of the apps end users may see and connect on their own. */
  enabledApps: string[];
  /** Whether end users may use /v2/end-user/proxy with their own connections; absent on records written before it existed (off). */
  endUserProxy?: boolean;
  /** The Connect page's look (absent: the default). */
  theme?: { primaryColor: string | null; mode: 'light' | 'dark' | 'system'; logoUrl?: string | null };
  createdOn: Date;
  updatedOn: Date;
}

/** A company's own settings for one app: OAuth client, credential-exchange endpoint. Secrets sealed. */
export interface AppConfigurationRecord {
  id: string;
  companyId: string;
  appSlug: string;
  /** `companyId:appSlug`: one configuration per app and company. */
  configKey: string;
  clientId: string | null;
  /** Where the provider sends the browser back; the gateway's own callback URL unless set. */
  redirectUri: string | null;
  exchangeUrl: string | null;
  /** {clientSecret?, exchangeSecret?} */
  secrets: SealedSecret;
  hasClientSecret: boolean;
  hasExchangeSecret: boolean;
  createdOn: Date;
  updatedOn: Date;
}

/** An OAuth authorization under way: created by authorize, consumed once by the callback. */
export interface PendingAuthorizationRecord {
  id: string;
  companyId: string;
  appSlug: string;
  authId: string;
  endUserId: string | null;
  /** Host variables given at authorize, for the connection the callback creates. */
  metadata: Record<string, unknown>;
  /** {codeVerifier?} sealed; for a pending choice, {connection: the tokens} sealed. */
  secrets: SealedSecret;
  expiresAt: Date;
  createdOn: Date;
  /**
   * Set on a pending choice (id cho_…): the provider answered, its grant reaches
   * several accounts, and the end user picks one (POST /v2/connect/choices/{id}),
   * or the end user's session that started it confirms the one it reached.
   */
  choice?: {
    /** The accounts, in the provider's order: what the connection keeps of each (host variables) and its name. */
    options: { label: string; metadata: Record<string, string> }[];
    /** What the provider gave besides (callback parameters, token response fields). */
    given: Record<string, unknown>;
    returnUrl: string;
    /** A reconnect: the connection the choice renews. */
    connectionId: string | null;
    tokenExpiresAt: Date | null;
    /** The end user's session that started the authorization confirms its one option (OAuthState.confirm). */
    confirm?: boolean;
    /** With confirm: the account's name as the connection keeps it (null: not known). */
    accountLabel?: string | null;
  };
}

/**
 * A key pair that signs end-user tokens; `id` is the JWT `kid`. The newest
 * key without `retiredOn` signs; every key without `retiredOn` verifies.
 */
export interface SigningKeyRecord {
  id: string;
  algorithm: 'EdDSA';
  /** Public JWK (OKP, Ed25519), as published at /.well-known/jwks.json. */
  publicJwk: Record<string, unknown>;
  /** The private JWK, sealed with the encryption keys like every other secret. */
  privateKey: SealedSecret;
  createdOn: Date;
  retiredOn: Date | null;
}

/** A company's webhook endpoint: where connection events are sent, signed with its secret. */
export interface WebhookEndpointRecord {
  id: string;
  companyId: string;
  url: string;
  /** The event types sent; empty for every type. */
  events: string[];
  description: string | null;
  enabled: boolean;
  /** Why the gateway disabled it (a 410 Gone, or failing for a whole retry window), null when enabled or disabled by the company. */
  disabledReason: string | null;
  /** {secret} sealed with the record id bound in: shown once on create and on rotation, never again. */
  secret: SealedSecret;
  createdOn: Date;
  updatedOn: Date;
}

/**
 * One event for one endpoint: written in the request that made the change
 * (the outbox), sent by the delivery worker, kept as the endpoint's delivery
 * history once delivered or given up (the newest WEBHOOK_DELIVERIES_KEPT).
 */
export interface WebhookDeliveryRecord {
  id: string;
  companyId: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  /** The JSON body as sent, the same bytes on every attempt (the signature covers them). */
  payload: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  /** Bumped by each claim: the worker's lease is a compare-and-set on it, so two gateways never send one attempt twice. */
  claims: number;
  /** When it is due (pending), or when the lease of the worker sending it ends; null once finished. */
  nextAttemptAt: Date | null;
  /** Past this, a failed attempt is the last (WEBHOOK_RETRY_WINDOW_MS after the event). */
  giveUpAt: Date;
  lastAttemptAt: Date | null;
  responseStatus: number | null;
  durationMs: number | null;
  /** What went wrong in the last attempt (never a secret, never the response body). */
  error: string | null;
  createdOn: Date;
  updatedOn: Date;
  finishedOn: Date | null;
}
