import type { KnownErrorCode } from '../../platform/errors/index.ts';
import { STORE, TRANSPORT, type Endpoint, type Schema } from './endpoint.ts';

/** What a proxied call may meet before, or instead of, the app's answer. */
const PROXY: KnownErrorCode[] = [
  ...TRANSPORT,
  ...STORE,
  'UNAUTHORIZED',
  'VALIDATION_ERROR',
  'PAYLOAD_TOO_LARGE',
  'NOT_FOUND',
  'APP_NOT_FOUND',
  'APP_VERSION_NOT_FOUND',
  'PROXY_DISABLED',
  'PROXY_PATH_NOT_ALLOWED',
  'CONFLICT',
  'APP_NOT_CONFIGURED',
  'AUTH_REFRESH_FAILED',
  'CONNECTION_NEEDS_REAUTHORIZATION',
  'CREDENTIALS_UNREADABLE',
  'TOKEN_EXCHANGE_FAILED',
  'CREDENTIAL_EXCHANGE_FAILED',
  'LOOKUP_FAILED',
  'EGRESS_DENIED',
  'UPSTREAM_UNREACHABLE',
  'UPSTREAM_PROTOCOL_ERROR',
  'RESPONSE_TOO_LARGE',
  'AUTH_PROVIDER_UNAVAILABLE',
  'UPSTREAM_TIMEOUT',
  'UPSTREAM_BUSY',
];

const PATH_PARAMETERS: Record<string, Schema> = {
  connectionId: { type: 'string', minLength: 1, description: 'The connection whose credentials the request is sent with.' },
  path: {
    type: 'string',
    minLength: 1,
    description:
      "The app's path under its base URL, slashes included (`users/42/files`), percent-encoded as the app should receive it; the query string goes on as it is. Refused with 400 VALIDATION_ERROR, field path, naming the rule: `..` or `.` segments (raw or %2e), an encoded slash hiding one (%2F..), a double-encoded one (%252e), `//`, a backslash (raw or %5C), a scheme (`http:`), `@` in the first segment, control characters, a bad escape. (A tool that encodes `/` in a parameter sends one segment `a%2Fb`: the app then receives it so.)",
  },
};

const HEADERS: Record<string, Schema> = {
  'X-Proxy-Retry': {
    type: 'string',
    enum: ['idempotent', 'always', 'never'],
    description:
      "Which rate-limited answers (429, or what api.yaml's retry.when says) the gateway sends again by the app's retry policy: idempotent methods only (GET, HEAD, PUT, DELETE; the default), always, or never. A body over PROXY_RETRY_BODY_BYTES streams once and is never sent again. Not forwarded.",
  },
};

const APP_ANSWER =
  "The app's own answer, as it came: its status, its body (any type; decoded from gzip, deflate or br, streamed) and its headers less hop-by-hop ones, Set-Cookie, Content-Length, CORS, HSTS, Alt-Svc and Clear-Site-Data, with Proxy-Status naming its status. The connection's secret values never appear in it: each occurrence is [redacted], and a header whose name holds one (in any letter case) is left out.";

const REQUEST_BODY =
  'Any body, of any type, sent on as it comes (streamed; at most PROXY_MAX_REQUEST_BYTES, else 413). Forwarded headers: Accept, Content-Type, Content-Encoding, If-*, and those api.yaml names; never Authorization, Cookie, Host or what the auth sets.';

const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete'] as const;

const title = (method: string) => method[0]!.toUpperCase() + method.slice(1);

/**
 * The proxy's operations, one per method on each path: /v2/proxy (API key)
 * and /v2/end-user/proxy (end-user token). Both live in the v2 document (the
 * v1 surface has no proxy).
 */
const WITH_PATH: Endpoint[] = METHODS.flatMap((method): Endpoint[] => [
  {
    method,
    path: '/v2/proxy/{connectionId}/{path}',
    operationId: `proxy${title(method)}`,
    tag: 'Proxy',
    summary: `${method.toUpperCase()} any endpoint of a connected app`,
    description:
      "Sends this request to the connection's app: `{path}` and the query string under the app's base URL (filled from the connection as runs fill it), with the connection's auth applied by the gateway, by the same rules as runs: the egress policy on every hop, redirects re-checked, a token renewed once on a 401 and the call sent again, the app's retry policy on rate limits (X-Proxy-Retry), timeouts, metrics, traces and the request log. api.yaml may switch the proxy off (403 PROXY_DISABLED) or limit its paths (403 PROXY_PATH_NOT_ALLOWED). See docs/proxy.md.",
    security: 'apiKey',
    pathParameters: PATH_PARAMETERS,
    headers: HEADERS,
    passthrough: { ...(method === 'get' || method === 'head' ? {} : { request: REQUEST_BODY }), response: APP_ANSWER },
    response: { description: APP_ANSWER },
    errorCodes: PROXY,
  },
  {
    method,
    path: '/v2/end-user/proxy/{connectionId}/{path}',
    operationId: `endUserProxy${title(method)}`,
    tag: 'End-user session',
    summary: `${method.toUpperCase()} any endpoint of an own connection's app`,
    description:
      "With an end-user token: what /v2/proxy/{connectionId}/{path} does, with one of that end user's own connections (another end user's or the company's is 404), for an app the company enabled (403 APP_NOT_ENABLED), only when the company allows it (PUT /v2/embedding endUserProxy: true; else 403 FORBIDDEN), and a draft-only app only for a test end user. CORS as the other end-user endpoints; the page may read the app's headers.",
    security: 'endUserToken',
    pathParameters: PATH_PARAMETERS,
    headers: HEADERS,
    passthrough: { ...(method === 'get' || method === 'head' ? {} : { request: REQUEST_BODY }), response: APP_ANSWER },
    response: { description: APP_ANSWER },
    errorCodes: [...PROXY, 'FORBIDDEN', 'APP_NOT_ENABLED'],
  },
]);

/**
 * The same operations without `{path}` (…/{connectionId}, or with a trailing
 * slash): the request goes to the app's base URL itself, held to the same
 * rules (api.yaml proxy.paths sees `/`).
 */
const BASE_URL: Endpoint[] = WITH_PATH.map((endpoint) => ({
  ...endpoint,
  path: endpoint.path.replace('/{path}', ''),
  operationId: `${endpoint.operationId}BaseUrl`,
  summary: `${endpoint.summary.replace(/ any endpoint of (a connected|an own connection's) app$/, ' the base URL of $1 app')}`,
  description: `What ${endpoint.path} does with an empty {path}: the request goes to the app's base URL itself (as \`<base URL>/\`), the query string on it; the trailing slash is optional.`,
  pathParameters: { connectionId: PATH_PARAMETERS.connectionId! },
}));

export const PROXY_ENDPOINTS: Endpoint[] = [...WITH_PATH, ...BASE_URL];
