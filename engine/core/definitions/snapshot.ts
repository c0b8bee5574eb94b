import type {
  ActionDefinition,
  ApiDefinition,
  AppDefinition,
  Argument,
  AuthDefinition,
  NoPagination,
  Pagination,
} from './generated/definition-types.ts';
import type { CompiledExpression } from './expressions.ts';
import type { VersionName } from './layout.ts';

/**
 * The loaded definitions as the request path sees them: immutable, fully
 * resolved (auth references are objects, expressions are compiled, implied
 * defaults are filled), and never changed after it is built. A reload builds
 * a new snapshot and swaps it in; a request keeps the one it started with.
 */
export interface DefinitionsSnapshot {
  /** sha256 over every file's path and content: equal hashes mean equal definitions. */
  readonly hash: string;
  readonly loadedAt: Date;
  readonly fileCount: number;
  /** By app id (v1 paths). */
  readonly apps: ReadonlyMap<string, AppEntry>;
  /** By app slug (universal paths). */
  readonly appsBySlug: ReadonlyMap<string, AppEntry>;
}

export interface AppEntry {
  readonly id: string;
  readonly slug: string;
  readonly name: string;
  readonly definition: Readonly<AppDefinition>;
  /** The numbered version `published` resolves to; undefined while the app has only a draft. */
  readonly published: number | undefined;
  readonly versions: ReadonlyMap<number, AppVersion>;
  readonly draft: AppVersion | undefined;
  /** Its app.yaml, relative to the definitions folder. */
  readonly file: string;
}

/** One version of an app: what a run resolves to before it picks an action. */
export interface AppVersion {
  readonly app: { readonly id: string; readonly slug: string; readonly name: string };
  readonly version: VersionName;
  readonly api: ApiEntry;
  /** Every auth of the version by id, including ones the API does not list. */
  readonly auths: ReadonlyMap<string, AuthEntry>;
  readonly actions: ReadonlyMap<string, ActionEntry>;
  readonly actionsBySlug: ReadonlyMap<string, ActionEntry>;
}

/** An argument as written, with its mapper compiled. */
export interface ArgumentEntry extends Readonly<Omit<Argument, 'mapper'>> {
  readonly mapper: CompiledExpression | undefined;
}

export interface ApiEntry {
  readonly definition: Readonly<ApiDefinition>;
  readonly baseUrl: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly bodyEncoding: NonNullable<ApiDefinition['bodyEncoding']>;
  readonly arguments: readonly ArgumentEntry[];
  /** The auths api.yaml lists, resolved, the default first. */
  readonly auths: readonly AuthEntry[];
  /** How long one call to the app may take in all (api.yaml timeoutMs); undefined: OUTBOUND_TOTAL_TIMEOUT_MS. */
  readonly timeoutMs: number | undefined;
  /** How many calls at once one connection may have to this app (api.yaml concurrency); undefined: no bound. */
  readonly concurrency: number | undefined;
  readonly retry: RetryEntry;
  /** As api.yaml writes it; an action's own pagination may override it (ActionEntry.pagination is what applies). */
  readonly pagination: Readonly<Pagination> | undefined;
  /** The compiled default meta.appError mapping of failed calls; undefined means the engine's default. */
  readonly appError: CompiledExpression | undefined;
  /** Its api.yaml, relative to the definitions folder. */
  readonly file: string;
}

export interface AuthEntry {
  readonly id: string;
  readonly type: AuthDefinition['type'];
  /** As written; narrow on `type` for the kind's fields. */
  readonly definition: Readonly<AuthDefinition>;
  readonly arguments: readonly ArgumentEntry[];
  /** CredentialExchange only: the compiled mapping of the exchange response. */
  readonly exchangeResponse: CompiledExpression | undefined;
  /** OAuth2AuthorizationCode with a postAuthorization only: its compiled expressions. */
  readonly postAuthorization: PostAuthorizationEntry | undefined;
  /** ApiKey, Basic or Bearer with a verify whose account is given: the compiled expression naming the account. */
  readonly verifyAccount?: CompiledExpression | undefined;
  /** Its file, relative to the definitions folder. */
  readonly file: string;
}

/** An OAuth auth's post-authorization request, its expressions compiled (the rest is in the auth's definition). */
export interface PostAuthorizationEntry {
  /** The options of the answer; the body when undefined. */
  readonly options: CompiledExpression | undefined;
  /** An option's label; its first metadata value when undefined. */
  readonly label: CompiledExpression | undefined;
  /** What the connection keeps of an option, by metadata key. */
  readonly metadata: Readonly<Record<string, CompiledExpression>>;
}

export interface ActionEntry {
  readonly id: string;
  readonly slug: string;
  readonly name: string;
  readonly description: string | undefined;
  readonly operation: ActionDefinition['operation'];
  readonly method: ActionDefinition['method'];
  /** With :param segments, relative to the API's baseUrl. */
  readonly path: string;
  readonly arguments: readonly ArgumentEntry[];
  /** The compiled response mapping; undefined means a 2xx body is the data as is. */
  readonly response: CompiledExpression | undefined;
  /** How the action pages: its own pagination, else the API's; undefined when it does not page (none, or { type: None }). */
  readonly pagination: PaginationEntry | undefined;
  readonly definition: Readonly<ActionDefinition>;
  /** Its file, relative to the definitions folder. */
  readonly file: string;
}

/** A pagination that applies to an action, with its expressions compiled. */
export interface PaginationEntry {
  readonly definition: Readonly<Exclude<Pagination, NoPagination>>;
  /** The compiled next, total, last and totalPages expressions the kind has. */
  readonly expressions: Readonly<Partial<Record<PaginationExpression, CompiledExpression>>>;
  /** The file it is written in (api.yaml or the action's), relative to the definitions folder. */
  readonly file: string;
}

/** The operations whose results come in pages, and so take the cursor argument. */
export const PAGED_OPERATIONS: ReadonlySet<string> = new Set(['list', 'search']);

/** The JSONata properties of a pagination. */
export const PAGINATION_EXPRESSIONS = ['next', 'total', 'last', 'totalPages'] as const;
export type PaginationExpression = (typeof PAGINATION_EXPRESSIONS)[number];

/** The retry policy a version gets for what its api.yaml leaves out (the schema's documented defaults). */
export const DEFAULT_RETRY = { delayMs: 1000, multiplier: 2, maxAttempts: 3, retryAfterCapMs: 60_000, budgetMs: 60_000 } as const;

/** The JSONata properties of a retry policy: which answers are rate limits, and which of them are not worth retrying. */
export const RETRY_EXPRESSIONS = ['when', 'giveUpWhen'] as const;
export type RetryExpression = (typeof RETRY_EXPRESSIONS)[number];

type RetryPolicy = NonNullable<ApiDefinition['retry']>;

/** An API's retry policy with its defaults filled in and its expressions compiled (see docs/definitions.md, Rate limits). */
export interface RetryEntry {
  readonly delayMs: number;
  readonly multiplier: number;
  readonly maxAttempts: number;
  readonly retryAfterCapMs: number;
  readonly budgetMs: number;
  /** The header holding the reset time, read when there is no Retry-After. */
  readonly resetHeader?: Readonly<{ name: string; format: NonNullable<NonNullable<RetryPolicy['resetHeader']>['format']> }>;
  /** Compiled `when`: true when an answer is a rate limit; undefined means status 429. */
  readonly when?: CompiledExpression;
  /** Compiled `giveUpWhen`: true when a rate limit is not worth retrying; undefined means never. */
  readonly giveUpWhen?: CompiledExpression;
}
