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

/** A stored connection to one account of a third-party app. Credentials are encrypted. */
export interface ConnectionRecord {
  id: string;
  companyId: string;
  [field: string]: unknown;
}

export interface InstallationRecord {
  id: string;
  companyId: string;
  [field: string]: unknown;
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
  /**
   * Private JWK. Stored as is for now: the credentials cipher that will
   * encrypt it at rest comes with the credentials issue.
   */
  privateJwk: Record<string, unknown>;
  createdOn: Date;
  retiredOn: Date | null;
}
