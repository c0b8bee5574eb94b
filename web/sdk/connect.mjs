/**
 * The integration gateway's browser SDK: lets a customer's page open the gateway's Connect page for one end
 * user (a popup or an iframe), learn which connection they made, run actions with their token, and call any
 * endpoint of a connected app through the gateway's proxy.
 *
 * Served by the gateway twice from this one file: `/sdk/connect.mjs` (this ES module, named exports) and
 * `/sdk/connect.js` (a classic script defining `window.GatewayConnect` with the same functions). No
 * dependencies, no build step. The end-user token only ever travels in a postMessage to the gateway's own
 * origin or in an Authorization header: never in a URL.
 *
 * Every failure is a GatewayConnectError (an Error) with a `code`:
 * - from open(): 'CLOSED' (the end user closed the popup or the page closed without connecting),
 *   'POPUP_BLOCKED' (the browser refused the popup: call open() from a click handler), 'UNAVAILABLE' (the
 *   Connect page did not answer within readyTimeoutMs: the gateway is down, or refused to be framed here),
 *   'INVALID_OPTIONS', 'TOKEN_UNAVAILABLE' (your token function failed), or the code the Connect page sent
 *   in its error message (for example 'UNAUTHORIZED' for an expired or refused token). A page whose origin
 *   the company does not allow gets no connection: the Connect page says so to the end user, and open()
 *   rejects with 'CLOSED' when they close it (or 'UNAVAILABLE' in an iframe the gateway will not show there);
 * - from the API calls: the gateway's error code ('NOT_FOUND', 'APP_NOT_ENABLED', 'UNAUTHORIZED', ...),
 *   with `status` (HTTP) and `details`; 'NETWORK_ERROR' when no answer came.
 */

const SOURCE = 'gateway-connect';
const PROTOCOL_VERSION = 1;
const DEFAULT_READY_TIMEOUT_MS = 20000;
const CLOSED_POLL_MS = 400;
/** iframe mode: the frame's height until the Connect page reports its own, and the bounds kept to. */
const INITIAL_FRAME_HEIGHT = 560;
const MIN_FRAME_HEIGHT = 200;
const MAX_FRAME_HEIGHT = 4000;

/** An Error with a `code` (and for an API answer, `status` and `details`). */
class GatewayConnectError extends Error {
  /**
   * @param {string} code
   * @param {string} message
   * @param {{ status?: number, details?: unknown }} [extra]
   */
  constructor(code, message, extra = {}) {
    super(message);
    this.name = 'GatewayConnectError';
    this.code = code;
    if (extra.status !== undefined) this.status = extra.status;
    if (extra.details !== undefined) this.details = extra.details;
  }
}

/** The gateway's base URL (no trailing slash) and origin; only http(s). */
function gatewayOf(gatewayUrl) {
  let url;
  try {
    url = new URL(String(gatewayUrl), globalThis.location ? globalThis.location.href : undefined);
  } catch {
    throw new GatewayConnectError('INVALID_OPTIONS', `gatewayUrl: must be the gateway's URL, e.g. https://gateway.example.com (got ${JSON.stringify(gatewayUrl)})`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new GatewayConnectError('INVALID_OPTIONS', `gatewayUrl: must be an http(s) URL (got ${url.protocol})`);
  }
  return { base: url.origin + url.pathname.replace(/\/+$/, ''), origin: url.origin };
}

/** The token: a string, or a function answering one (or a promise of one), asked when it is needed. */
async function tokenOf(token) {
  let value;
  try {
    value = typeof token === 'function' ? await token() : token;
  } catch (error) {
    throw new GatewayConnectError('TOKEN_UNAVAILABLE', `token: the token function failed: ${error && error.message ? error.message : error}`);
  }
  if (typeof value !== 'string' || value === '') {
    throw new GatewayConnectError('INVALID_OPTIONS', 'token: must be the end-user token (a string from GET /v1/users/{userId}/token on your backend), or a function answering one');
  }
  return value;
}

/**
 * Opens the gateway's Connect page for the end user whose token you pass, and resolves when they connect
 * (or reconnect) an app.
 *
 * In popup mode call it straight from a click handler (before any `await`), or the browser blocks the
 * popup. In iframe mode the page is shown in an iframe appended to `container`.
 *
 * @param {object} options
 * @param {string} options.gatewayUrl The gateway's URL, e.g. 'https://gateway.example.com'.
 * @param {string | (() => string | Promise<string>)} options.token The end-user token, or a function answering
 *   a fresh one (called when the page is ready, so a token fetched from your backend on click is never stale).
 * @param {string} [options.app] An app slug: the page opens straight on that app.
 * @param {'popup' | 'iframe'} [options.mode] 'popup' (default) or 'iframe'.
 * @param {Element | string} [options.container] For iframe mode: the element (or a CSS selector) the iframe goes in.
 * @param {(event: object) => void} [options.onEvent] Called with every message of the page
 *   (`{source, version, type: 'ready' | 'connected' | 'reconnected' | 'disconnected' | 'error' | 'close', ...}`).
 * @param {number} [options.readyTimeoutMs] How long the page may take to say it is ready (default 20000).
 * @param {boolean} [options.closeOnConnect] Close the popup / remove the iframe once connected (default true).
 * @param {string} [options.language] The page's language as a BCP 47 tag ('de', 'fr-CA', 'en'): used when the
 *   page speaks it (English, German, French), else the end user's browser languages choose (the default).
 * @returns {Promise<{ connection: object, type: 'connected' | 'reconnected' }>} The connection as
 *   GET /v2/end-user/connections shows it. Rejects with a GatewayConnectError (see the codes above); the
 *   message listener, the popup watch and the iframe are cleaned up in every case.
 */
function open(options) {
  try {
    return openConnect(options || {});
  } catch (error) {
    return Promise.reject(error);
  }
}

function openConnect({ gatewayUrl, token, app, mode = 'popup', container, onEvent, readyTimeoutMs = DEFAULT_READY_TIMEOUT_MS, closeOnConnect = true, language }) {
  const gateway = gatewayOf(gatewayUrl);
  if (token === undefined || token === null || token === '') {
    throw new GatewayConnectError('INVALID_OPTIONS', 'token: is required (the end-user token, or a function answering one)');
  }
  if (mode !== 'popup' && mode !== 'iframe') throw new GatewayConnectError('INVALID_OPTIONS', `mode: must be 'popup' or 'iframe' (got ${JSON.stringify(mode)})`);
  const doc = globalThis.document;
  let host = null;
  if (mode === 'iframe') {
    host = typeof container === 'string' ? doc.querySelector(container) : container;
    if (!host || typeof host.appendChild !== 'function') {
      throw new GatewayConnectError('INVALID_OPTIONS', 'container: iframe mode needs the element (or a CSS selector of the element) the Connect page goes in');
    }
  }
  if (language !== undefined && (typeof language !== 'string' || !/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/.test(language))) {
    throw new GatewayConnectError('INVALID_OPTIONS', `language: must be a language tag such as 'de' or 'fr-CA' (got ${JSON.stringify(language)})`);
  }
  const url = `${gateway.base}/connect?origin=${encodeURIComponent(globalThis.location.origin)}${app ? `&app=${encodeURIComponent(app)}` : ''}${language ? `&lang=${encodeURIComponent(language)}` : ''}`;

  return new Promise((resolve, reject) => {
    let target = null; // the Connect page's window
    let frame = null;
    let popup = null;
    let ready = false;
    let settled = false;
    let closedWatch = null;
    let readyTimer = null;

    const cleanup = (closeWindow) => {
      globalThis.removeEventListener('message', onMessage);
      if (closedWatch) clearInterval(closedWatch);
      if (readyTimer) clearTimeout(readyTimer);
      if (frame && closeWindow) frame.remove();
      if (popup && closeWindow && !popup.closed) popup.close();
    };
    const fail = (code, message) => {
      if (settled) return;
      settled = true;
      cleanup(true);
      reject(new GatewayConnectError(code, message));
    };
    const succeed = (type, connection) => {
      if (settled) return;
      settled = true;
      cleanup(closeOnConnect);
      resolve({ connection, type });
    };

    function onMessage(event) {
      if (event.origin !== gateway.origin || !target || event.source !== target) return;
      const message = event.data;
      if (!message || typeof message !== 'object' || message.source !== SOURCE || message.version !== PROTOCOL_VERSION) return;
      if (onEvent) {
        try {
          onEvent(message);
        } catch (error) {
          setTimeout(() => {
            throw error; // the customer's handler failing is theirs to see, and stops nothing here
          });
        }
      }
      switch (message.type) {
        case 'ready':
          // Sent again after every load of the page (the OAuth flow returns to it): answered each time.
          ready = true;
          if (readyTimer) clearTimeout(readyTimer);
          tokenOf(token).then(
            (value) => {
              if (settled) return;
              target.postMessage({ source: SOURCE, version: PROTOCOL_VERSION, type: 'init', token: value, ...(app ? { app } : {}) }, gateway.origin);
            },
            (error) => fail(error.code, error.message),
          );
          break;
        case 'connected':
        case 'reconnected':
          succeed(message.type, message.connection);
          break;
        case 'error': {
          const error = message.error || {};
          fail(typeof error.code === 'string' ? error.code : 'ERROR', typeof error.message === 'string' ? error.message : 'the Connect page reported an error');
          break;
        }
        case 'close':
          fail('CLOSED', 'the Connect page was closed before an app was connected');
          break;
        case 'resize':
          // The page's own height (iframe mode): the frame fits its content, within sane bounds.
          if (frame && typeof message.height === 'number' && Number.isFinite(message.height)) {
            frame.style.height = `${Math.min(Math.max(Math.ceil(message.height), MIN_FRAME_HEIGHT), MAX_FRAME_HEIGHT)}px`;
          }
          break;
        default:
          break; // 'disconnected' and anything newer: passed to onEvent only
      }
    }

    globalThis.addEventListener('message', onMessage);
    if (mode === 'popup') {
      const width = 480;
      const height = 720;
      const left = Math.max(0, Math.round((globalThis.screenX || 0) + ((globalThis.outerWidth || width) - width) / 2));
      const top = Math.max(0, Math.round((globalThis.screenY || 0) + ((globalThis.outerHeight || height) - height) / 2));
      popup = globalThis.open(url, 'gateway-connect', `popup,width=${width},height=${height},left=${left},top=${top}`);
      if (!popup) {
        fail('POPUP_BLOCKED', 'the browser blocked the Connect popup: call GatewayConnect.open() from a click handler, before any await');
        return;
      }
      target = popup;
      closedWatch = setInterval(() => {
        if (popup.closed) fail('CLOSED', 'the Connect popup was closed before an app was connected');
      }, CLOSED_POLL_MS);
    } else {
      frame = doc.createElement('iframe');
      frame.src = url;
      frame.title = 'Connect an app';
      frame.setAttribute('data-gateway-connect', '');
      frame.style.border = '0';
      frame.style.width = '100%';
      frame.style.height = `${INITIAL_FRAME_HEIGHT}px`; // until the page says how tall it is
      host.appendChild(frame);
      target = frame.contentWindow;
    }
    readyTimer = setTimeout(() => {
      if (!ready) fail('UNAVAILABLE', `the Connect page at ${gateway.base}/connect did not answer within ${readyTimeoutMs} ms (is the gateway reachable, and this page's origin in the company's allowedOrigins?)`);
    }, readyTimeoutMs);
  });
}

/** A call to an end-user endpoint with the token: the parsed JSON body, or a GatewayConnectError. */
async function request(gatewayUrl, token, method, path, body, resolveEnvelope = false) {
  const gateway = gatewayOf(gatewayUrl);
  const headers = { Authorization: `Bearer ${await tokenOf(token)}` };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let response;
  try {
    response = await fetch(gateway.base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'omit' });
  } catch (error) {
    throw new GatewayConnectError('NETWORK_ERROR', `the gateway did not answer ${method} ${path}: ${error && error.message ? error.message : error}`);
  }
  let answer = null;
  try {
    answer = await response.json();
  } catch {
    /* not JSON: handled below */
  }
  if (answer && resolveEnvelope && typeof answer.success === 'boolean' && answer.meta && !answer.error) return answer;
  if (response.ok && answer && answer.success === true) return answer;
  const error = (answer && answer.error) || {};
  throw new GatewayConnectError(
    typeof error.code === 'string' ? error.code : 'HTTP_ERROR',
    typeof error.message === 'string' ? error.message : `${method} ${path} answered ${response.status}`,
    { status: response.status, ...(error.details !== undefined ? { details: error.details } : {}) },
  );
}

/** A required string option, or an INVALID_OPTIONS error naming it. */
function required(name, value) {
  if (typeof value !== 'string' || value === '') throw new GatewayConnectError('INVALID_OPTIONS', `${name}: is required (a non-empty string)`);
  return value;
}

/**
 * Runs an action with one of the end user's own connections
 * (POST /v2/end-user/apps/{app}/actions/{action}/run).
 *
 * Resolves with the run envelope `{ success, data, meta }` whenever the app was called, also when the app
 * failed (`success: false`, `meta.appError`, HTTP 429 or 502): that is the action's result. Rejects with a
 * GatewayConnectError when the gateway refused the run before calling the app (`code` 'NOT_FOUND' for a
 * connection that is not the end user's, 'APP_NOT_ENABLED', 'VALIDATION_ERROR' naming the argument,
 * 'UNAUTHORIZED' for an expired token, ...; with `status` and `details`).
 *
 * @param {object} options
 * @param {string} options.gatewayUrl
 * @param {string | (() => string | Promise<string>)} options.token
 * @param {string} options.app The app slug.
 * @param {string} options.action The action slug.
 * @param {string} options.connectionId One of the end user's connections.
 * @param {Record<string, unknown>} [options.arguments] The action's arguments.
 * @param {string} [options.version] 'published' (default), 'draft' (test end users only) or a version number.
 * @returns {Promise<{ success: boolean, data: unknown, meta: object }>}
 */
async function runAction({ gatewayUrl, token, app, action, connectionId, arguments: args = {}, version } = {}) {
  const path = `/v2/end-user/apps/${encodeURIComponent(required('app', app))}/actions/${encodeURIComponent(required('action', action))}/run${version ? `?version=${encodeURIComponent(version)}` : ''}`;
  return request(gatewayUrl, token, 'POST', path, { connectionId: required('connectionId', connectionId), arguments: args }, true);
}

/**
 * The end user's own connections (GET /v2/end-user/connections).
 *
 * @param {object} options
 * @param {string} options.gatewayUrl
 * @param {string | (() => string | Promise<string>)} options.token
 * @param {{ where?: string, sort?: string, fields?: string, limit?: number, offset?: number }} [options.query]
 * @returns {Promise<{ connections: object[], pagination: object }>}
 */
async function listConnections({ gatewayUrl, token, query = {} } = {}) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== null) search.set(key, String(value));
  const answer = await request(gatewayUrl, token, 'GET', `/v2/end-user/connections${search.toString() ? `?${search}` : ''}`);
  return { connections: answer.data, pagination: answer.meta ? answer.meta.pagination : undefined };
}

/**
 * The apps the end user may connect (GET /v2/end-user/apps): the company's enabled apps with `slug`, `name`,
 * `initials` and what each connect form asks for; for showing app names beside connections.
 *
 * @param {object} options
 * @param {string} options.gatewayUrl
 * @param {string | (() => string | Promise<string>)} options.token
 * @returns {Promise<object[]>}
 */
async function listApps({ gatewayUrl, token } = {}) {
  return (await request(gatewayUrl, token, 'GET', '/v2/end-user/apps')).data;
}

/**
 * Deletes one of the end user's own connections (DELETE /v2/end-user/connections/{id}).
 *
 * @param {object} options
 * @param {string} options.gatewayUrl
 * @param {string | (() => string | Promise<string>)} options.token
 * @param {string} options.connectionId
 * @returns {Promise<{ id: string, deleted: true }>}
 */
async function disconnect({ gatewayUrl, token, connectionId } = {}) {
  const answer = await request(gatewayUrl, token, 'DELETE', `/v2/end-user/connections/${encodeURIComponent(required('connectionId', connectionId))}`);
  return answer.data;
}

/** A proxied path as the gateway takes it: a string split at its slashes, or an array of segments, each percent-encoded. */
function proxyPath(path) {
  const segments = Array.isArray(path) ? path.map(String) : typeof path === 'string' ? path.replace(/^\/+/, '').split('/') : null;
  if (!segments || segments.length === 0 || segments.every((segment) => segment === '')) {
    throw new GatewayConnectError('INVALID_OPTIONS', "path: is required: the app's path under its base URL, e.g. 'users/42' (or ['users', '42'])");
  }
  // The browser resolves . and .. before sending (%2E too), which would leave the proxy's path: refused here.
  if (segments.some((segment) => segment === '.' || segment === '..')) {
    throw new GatewayConnectError('INVALID_OPTIONS', "path: must not have . or .. segments (the browser would resolve them away from the app's path)");
  }
  return segments.map((segment) => encodeURIComponent(segment)).join('/');
}

/** A query as URLSearchParams take it: a string, an object (arrays repeat the key) or URLSearchParams. */
function proxyQuery(query) {
  if (query === undefined || query === null || query === '') return '';
  if (typeof query === 'string') return query.replace(/^\?/, '');
  const search = new URLSearchParams();
  const entries = query instanceof URLSearchParams ? query.entries() : Object.entries(query);
  for (const [key, value] of entries) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) search.append(key, String(item));
  }
  return search.toString();
}

/** A plain object or array is sent as JSON; strings, Blobs, ArrayBuffers, FormData, URLSearchParams as fetch sends them. */
function isJsonBody(body) {
  if (body === null || typeof body !== 'object') return false;
  const kinds = [globalThis.Blob, globalThis.ArrayBuffer, globalThis.FormData, globalThis.URLSearchParams, globalThis.ReadableStream].filter(Boolean);
  return !kinds.some((kind) => body instanceof kind) && !ArrayBuffer.isView(body);
}

/**
 * Calls any endpoint of the app behind one of the end user's own connections
 * (`/v2/end-user/proxy/{connectionId}/{path}`): the gateway adds the connection's credentials and sends
 * the request to the app by the app's rules. The company turns this on for end users with
 * PUT /v2/embedding (`endUserProxy: true`), for the apps in `enabledApps`.
 *
 * Resolves with the app's answer as a fetch `Response`, whatever its status (a 404 of the app is a
 * Response with status 404): read it with `json()`, `text()`, `blob()`; its headers are readable
 * (`Proxy-Status` says the status is the app's). Rejects with a GatewayConnectError when the gateway
 * itself refused or failed (`code` 'FORBIDDEN' when the company has not turned the proxy on,
 * 'NOT_FOUND' for a connection that is not the end user's, 'APP_NOT_ENABLED', 'VALIDATION_ERROR'
 * naming the path rule, 'UNAUTHORIZED', 'UPSTREAM_TIMEOUT', ...; with `status` and `details`), or
 * 'NETWORK_ERROR' when no answer came.
 *
 * @param {object} options
 * @param {string} options.gatewayUrl
 * @param {string | (() => string | Promise<string>)} options.token
 * @param {string} options.connectionId One of the end user's connections.
 * @param {string | string[]} options.path The app's path under its base URL: 'users/42' (split at its
 *   slashes, each segment percent-encoded), or ['files', 'a/b.txt'] (segments, a slash inside one encoded).
 * @param {'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'} [options.method] 'GET' by default.
 * @param {string | URLSearchParams | Record<string, unknown>} [options.query] The query string.
 * @param {Record<string, string>} [options.headers] Headers for the app: Accept, Content-Type, If-* and
 *   those the app's api.yaml lists go on; credentials never do (the gateway sets them).
 * @param {unknown} [options.body] A plain object or array (sent as JSON), or a string, Blob,
 *   ArrayBuffer, FormData or URLSearchParams, sent as it is.
 * @param {'idempotent' | 'always' | 'never'} [options.retry] Which rate-limited answers the gateway
 *   sends again by the app's retry policy (X-Proxy-Retry): idempotent methods only by default.
 * @returns {Promise<Response>}
 */
async function proxy({ gatewayUrl, token, connectionId, path, method = 'GET', query, headers = {}, body, retry } = {}) {
  const gateway = gatewayOf(gatewayUrl);
  const verb = String(method).toUpperCase();
  if (!['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(verb)) {
    throw new GatewayConnectError('INVALID_OPTIONS', `method: must be GET, HEAD, POST, PUT, PATCH or DELETE (got ${JSON.stringify(method)})`);
  }
  const search = proxyQuery(query);
  const target = `/v2/end-user/proxy/${encodeURIComponent(required('connectionId', connectionId))}/${proxyPath(path)}${search ? `?${search}` : ''}`;
  const sent = { ...headers, Authorization: `Bearer ${await tokenOf(token)}` };
  if (retry !== undefined) sent['X-Proxy-Retry'] = retry;
  let payload = body;
  if (isJsonBody(body)) {
    payload = JSON.stringify(body);
    if (!Object.keys(sent).some((name) => name.toLowerCase() === 'content-type')) sent['Content-Type'] = 'application/json';
  }
  let response;
  try {
    response = await fetch(gateway.base + target, { method: verb, headers: sent, body: payload === undefined || verb === 'GET' || verb === 'HEAD' ? undefined : payload, credentials: 'omit' });
  } catch (error) {
    throw new GatewayConnectError('NETWORK_ERROR', `the gateway did not answer ${verb} ${target}: ${error && error.message ? error.message : error}`);
  }
  if (response.headers.get('Proxy-Status')) return response;
  let answer = null;
  try {
    answer = await response.json();
  } catch {
    /* a HEAD, or not JSON: the status says it */
  }
  const error = (answer && answer.error) || {};
  throw new GatewayConnectError(
    typeof error.code === 'string' ? error.code : 'HTTP_ERROR',
    typeof error.message === 'string' ? error.message : `${verb} ${target} answered ${response.status}`,
    { status: response.status, ...(error.details !== undefined ? { details: error.details } : {}) },
  );
}

export { open, runAction, listConnections, listApps, disconnect, proxy, GatewayConnectError };
