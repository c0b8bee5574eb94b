import type { KnownErrorCode } from '../../platform/errors/index.ts';

export type Schema = Record<string, unknown>;

/** One operation, described from the schemas its handler validates and answers with. */
export interface Endpoint {
  method: 'get' | 'head' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI form, `{name}` for path parameters. */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description: string;
  security: 'apiKey' | 'endUserToken' | 'apiKeyOrEndUserToken' | null;
  pathParameters?: Record<string, Schema>;
  /** Request headers the handler reads, by name. */
  headers?: Record<string, Schema>;
  /**
   * Bodies passed through as they are (the proxy): `request`, the body of
   * any type the caller sends on (absent: none); `response`, the app's own
   * answer, of any status and type. The success schema then is none, and the
   * error codes' statuses say the gateway's own refusals.
   */
  passthrough?: { request?: string; response: string };
  /** An object schema whose properties are the query parameters. */
  query?: { properties: Record<string, Schema>; required?: readonly string[] };
  /**
   * 'ignored': query parameters it does not declare are ignored (the OAuth callback: a provider adds its own,
   * scope, iss, session_state). Otherwise each is 400 VALIDATION_ERROR naming it (refusesUnknownQuery).
   */
  unknownQuery?: 'ignored';
  body?: Schema;
  /** false when the body may be left out (the handler reads a missing body as {}). */
  bodyRequired?: boolean;
  /** The success answer: 200 unless `status` says otherwise; a redirect has no schema. */
  response: { status?: '200' | '201' | '302'; description: string; schema?: Schema; /** The success body's media type; application/json unless said. */ mediaType?: string };
  /**
   * Every error code it answers with the error shape; the document declares
   * each code's status (ERROR_STATUS) with `error.code` limited to these.
   */
  errorCodes: readonly KnownErrorCode[];
  /** Statuses it answers with the envelope (the runs: 429, 502), and when. */
  envelopeStatuses?: Record<string, string>;
}

/**
 * Whether a query parameter the operation does not declare is refused (middleware/known-query.ts): on every
 * operation but those that ignore them (unknownQuery) and the proxy's, which forward the query as it is.
 */
export function refusesUnknownQuery(endpoint: Endpoint): boolean {
  return endpoint.passthrough === undefined && endpoint.unknownQuery !== 'ignored';
}

/** What any request may meet before a handler runs: a malformed, slow or oversized request, or an unexpected failure. */
export const TRANSPORT: KnownErrorCode[] = ['BAD_REQUEST', 'REQUEST_TIMEOUT', 'HEADERS_TOO_LARGE', 'INTERNAL_ERROR'];
/** A JSON request body: parsed, decoded, size-checked and validated before the handler reads it. */
export const JSON_BODY: KnownErrorCode[] = ['VALIDATION_ERROR', 'INVALID_JSON', 'INVALID_BODY_ENCODING', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'];
/** Anything that reads the store: a query ended at STORE_QUERY_TIMEOUT_MS, or a store that cannot be reached. */
export const STORE: KnownErrorCode[] = ['QUERY_TIMEOUT', 'STORE_UNAVAILABLE'];

/** What running an action with a connection or an installation may meet, besides the envelope's 429 and 502 (both surfaces' run endpoints). */
export const RUN: KnownErrorCode[] = [
  'EGRESS_DENIED',
  'NOT_FOUND',
  'CONNECTION_APP_MISMATCH',
  'CONFLICT',
  'APP_NOT_CONFIGURED',
  'AUTH_REFRESH_FAILED',
  'CONNECTION_NEEDS_REAUTHORIZATION',
  'CREDENTIALS_UNREADABLE',
  'TOKEN_EXCHANGE_FAILED',
  'CREDENTIAL_EXCHANGE_FAILED',
  'LOOKUP_FAILED',
  'UPSTREAM_UNREACHABLE',
  'UPSTREAM_PROTOCOL_ERROR',
  'RESPONSE_TOO_LARGE',
  'MAPPING_ERROR',
  'AUTH_PROVIDER_UNAVAILABLE',
  'UPSTREAM_TIMEOUT',
  'UPSTREAM_BUSY',
];
