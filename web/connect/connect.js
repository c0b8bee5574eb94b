// The Connect page (GET /connect): an end user connects their accounts of the apps their company enabled,
// reconnects one that needs it, and disconnects. Plain modern JavaScript, no build step; served under a strict
// Content-Security-Policy (this origin only, no inline script or style). The only secret it ever holds is the
// end-user token it was opened with, kept in memory (and, only while a sign-in redirect is under way, in this
// tab's sessionStorage, removed on return).
//
// HOW THE PAGE GETS ITS TOKEN
//
// 1. Direct or redirect: /connect#token=<END_USER_TOKEN>&app=<app slug, optional>. The fragment never reaches
//    the server nor a Referer; the page removes it from the address bar (history.replaceState) once read.
//    With app=, that app's connect step opens at once.
//
// 2. Opened by the browser SDK, in a popup (window.open) or an iframe, at /connect?origin=<the opener's origin>.
//    The origin parameter only decides framing: the answer's CSP is `frame-ancestors <origin>` when some
//    company allows that origin, else `frame-ancestors 'none'`. The postMessage protocol (version 1), where
//    "opener" is window.parent when framed, else window.opener:
//
//    page -> opener  {source: 'gateway-connect', version: 1, type: 'ready'}            targetOrigin '*' (no data)
//    opener -> page  {source: 'gateway-connect', version: 1, type: 'init', token, app?} targetOrigin: the gateway
//
//    The page takes `init` only from event.source === its opener, only once, then asks GET /v2/end-user/session
//    with the token and goes on only when event.origin is one of the token's company's allowedOrigins;
//    otherwise it shows an error and posts one `error` back to the sender (code ORIGIN_NOT_ALLOWED, or the
//    session's error code such as UNAUTHORIZED), naming nothing the sender did not know, and nothing more.
//    From then on it posts to that exact origin (never '*'):
//
//    {source, version: 1, type: 'connected', connection}      a new connection (as GET /v2/end-user/connections shows it)
//    {source, version: 1, type: 'reconnected', connection}    a connection got new credentials or tokens (same id)
//    {source, version: 1, type: 'disconnected', connectionId} the end user disconnected one
//    {source, version: 1, type: 'error', error: {code, message}}  a fatal error (the token expired or was refused...)
//    {source, version: 1, type: 'close'}                      the end user pressed Done (a popup then closes itself)
//    {source, version: 1, type: 'resize', height}             (framed only) the page's height, for the SDK to size its iframe
//
// OAUTH APPS open the provider in a popup named 'gateway-connect-oauth' through
// GET /v2/connect/{app}/authorize?returnUrl=<this origin>/connect/oauth-return (a reconnect through
// GET /v2/end-user/connections/{id}/reauthorize); the return page posts {source: 'gateway-connect-oauth',
// version: 1, choiceId} (the page then confirms it with this session's token, GET and POST /v2/connect/choices/{choiceId},
// or shows a step to choose one of several accounts the grant reaches) or {..., error, description} back to this page
// (same origin) and closes. The callback stores nothing for a sign-in an end-user session started: only that session's
// confirmation does, so a consent page opened by someone else connects nothing. When the
// browser blocks the popup the page offers a redirect instead; the return page then comes back to /connect.

import { currentLanguage, errorText, formatDate, oauthErrorText, t, useLanguage } from './messages.js';

const PROTOCOL = 'gateway-connect';
const OAUTH_PROTOCOL = 'gateway-connect-oauth';
const OAUTH_WINDOW = 'gateway-connect-oauth';
const RESUME_KEY = 'gateway-connect-resume';
const OUTCOME_KEY = 'gateway-connect-oauth-outcome';
/** Where a return page cut off from this page (no opener: a provider page that isolated itself) hands the outcome over. */
const OAUTH_CHANNEL = 'gateway-connect-oauth';
/** How long an outcome is still taken after the sign-in window seemed to close: the sign-in's own lifetime. */
const LATE_OUTCOME_MS = 10 * 60 * 1000;
/** The page's language, for the OAuth return page (this tab, and the sign-in popup's copy of its storage). */
const LANGUAGE_KEY = 'gateway-connect-language';

const $ = (id) => document.getElementById(id);
const framed = window.parent !== window;
/** The window that opened or framed this page (the SDK's), if any. */
const opener = framed ? window.parent : window.opener;

const state = {
  token: null,
  /** The opener's origin, once the handshake accepted it: every message goes there, and only there. */
  openerOrigin: null,
  session: null,
  apps: [],
  connections: [],
  /** More connections than the page lists (it shows the newest LISTED_AT_MOST). */
  moreConnections: false,
  /** The element focused before a step opened: focus goes back there when it closes. */
  returnFocus: null,
  fatal: false,
};

// ---------------------------------------------------------------------------------------------------- helpers

/** Builds an element: el('button', {type: 'button', class: 'x', onclick}, 'text', child...). Text only, never HTML. */
function el(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) element.addEventListener(name.slice(2), value);
    else if (name === 'class') element.className = value;
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) if (child !== null && child !== undefined) element.append(child);
  return element;
}

function post(type, extra = {}) {
  if (!state.openerOrigin || !opener) return;
  opener.postMessage({ source: PROTOCOL, version: 1, type, ...extra }, state.openerOrigin);
}

let announcing = null;

function announce(text) {
  const status = $('status');
  clearStatus();
  // A fresh text node, so a screen reader announces a repeated message too.
  announcing = setTimeout(() => (status.textContent = text), 30);
}

/** An outcome shown elsewhere (an alert, a step's error) takes the place of what the status said ("Waiting for you…"). */
function clearStatus() {
  clearTimeout(announcing);
  $('status').textContent = '';
}

function showAlert(text) {
  const alert = $('alert');
  alert.textContent = text;
  alert.hidden = !text;
}

function appName(slug) {
  return state.apps.find((a) => a.slug === slug)?.name ?? slug;
}

/** Who sent the end user here, for "go back to …". */
function productName() {
  return state.session?.company?.name ?? t('names.company');
}

/**
 * A refused API call. `message` is the API's own words (for the developer, sent to the SDK with the code);
 * the end user reads userText(error, app), a sentence from messages.js.
 */
class ApiError extends Error {
  constructor(status, code, message, problems = []) {
    super(message);
    this.status = status;
    this.code = code;
    this.problems = problems;
  }
}

/** The words the end user reads for an error: never the API's message, its code, a host or a path. */
function userText(error, app) {
  const names = { app: app?.name ?? t('names.app'), company: productName() };
  return error instanceof ApiError ? errorText(error.code, error.status, names) : errorText('', 500, names);
}

/**
 * The developer's side of a failure the end user reads as a sentence: the code and the API's own words, in the
 * browser's console (a warning), where whoever embeds the page looks. The end user never reads them on the page.
 */
function tellDeveloper(text) {
  console.warn(`Connect page: ${text}`);
}

/**
 * Calls the gateway with the end-user token; a refusal is an ApiError with the API's own words, never raw JSON,
 * and is told to the developer (tellDeveloper): the request, the status, the code and the message.
 */
async function api(path, init = {}) {
  try {
    return await call(path, init);
  } catch (error) {
    const request = `${init.method ?? 'GET'} ${path.split('?')[0]}`;
    tellDeveloper(error.status ? `${request} answered ${error.status} ${error.code}: ${error.message}` : `${request} failed: ${error.message}`);
    throw error;
  }
}

async function call(path, init) {
  let response;
  try {
    response = await fetch(path, {
      ...init,
      headers: { Authorization: `Bearer ${state.token}`, ...(init.body ? { 'Content-Type': 'application/json' } : {}), ...init.headers },
      referrerPolicy: 'no-referrer',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, 'UNREACHABLE', 'the gateway cannot be reached (a network error in the browser)');
  }
  let body = null;
  try {
    body = await response.json();
  } catch {
    /* not JSON: a proxy's page; the status says enough */
  }
  if (response.ok && body && body.success) return body;
  const error = body && body.error;
  if (response.status === 401) throw new ApiError(401, 'UNAUTHORIZED', error?.message ?? 'the end-user token was refused');
  if (error && typeof error.message === 'string') throw new ApiError(response.status, typeof error.code === 'string' ? error.code : '', error.message, error.details?.problems ?? []);
  throw new ApiError(response.status, 'UNAVAILABLE', `the gateway answered ${response.status} without a JSON error`);
}

/** A fatal error: the page can do nothing more (no token, expired token, a refused opener). The SDK gets the code and the API's words. */
function fatal(message, code, detail = message) {
  state.fatal = true;
  clearStatus();
  closeStep();
  $('loading').hidden = true;
  $('apps-section').hidden = true;
  $('connections-section').hidden = true;
  showAlert(message);
  if (code) post('error', { error: { code, message: detail } });
  $('title').focus();
}

/**
 * After the gateway made (or renewed) a connection: the SDK learns of it and the end user reads it, even when
 * the list cannot be read again afterwards (the token expired meanwhile: a long sign-in at the provider, an app
 * slow to check a key). `made` is what the gateway answered; the list's own copy is sent when it could be read.
 */
async function madeConnection(made, type, doneText) {
  let failure = null;
  try {
    await refresh();
  } catch (error) {
    failure = error;
  }
  const shown = state.connections.find((c) => c.id === made.id) ?? (failure ? made : null);
  if (shown) post(type, { connection: shown });
  closeStep();
  if (!failure) return announce(doneText);
  if (failure instanceof ApiError && failure.status === 401) fatal(userText(failure), 'UNAUTHORIZED', failure.message);
  else showAlert(userText(failure));
  // Said above the session's message (fatal clears the status): the connection is there all the same.
  clearStatus();
  $('status').textContent = doneText;
}

function handle(error) {
  if (error instanceof ApiError && error.status === 401) return fatal(userText(error), 'UNAUTHORIZED', error.message);
  showAlert(userText(error));
}

// ---------------------------------------------------------------------------------------------------- start

async function start(token, appSlug, outcome) {
  state.token = token;
  try {
    if (!state.session) state.session = (await api('/v2/end-user/session')).data;
    applyTheme(state.session.theme);
    const who = state.session.name || state.session.email;
    const company = state.session.company.name;
    $('signed-in').textContent = who ? t('page.signedInAs', { who, company }) : t('page.signedInThrough', { company });
    $('signed-in').hidden = false;
    await refresh();
  } catch (error) {
    $('loading').hidden = true;
    return handle(error);
  }
  $('loading').hidden = true;
  if (outcome) await oauthOutcome(outcome.result, outcome.reconnect, state.apps.find((a) => a.slug === outcome.app) ?? null);
  if (appSlug) {
    const app = state.apps.find((a) => a.slug === appSlug);
    if (app) openConnect(app, null);
    else showAlert(errorText('APP_NOT_ENABLED', 403, {}));
  }
}

async function refresh() {
  const [apps, connections] = await Promise.all([api('/v2/end-user/apps'), allConnections()]);
  state.apps = apps.data;
  state.connections = connections.list;
  state.moreConnections = connections.more;
  renderApps();
  renderConnections();
}

/** Connections are read this many at a time, and at most LISTED_AT_MOST of them (the newest): a notice says so. */
const CONNECTIONS_PAGE = 250;
const LISTED_AT_MOST = 1000;

/** The end user's connections, newest first, page after page up to LISTED_AT_MOST; `more` when some are left out. */
async function allConnections() {
  const list = [];
  const seen = new Set();
  let more = true;
  while (more && list.length < LISTED_AT_MOST) {
    const limit = Math.min(CONNECTIONS_PAGE, LISTED_AT_MOST - list.length);
    const answer = await api(`/v2/end-user/connections?sort=-createdOn&limit=${limit}&offset=${list.length}`);
    // One created meanwhile shifts the pages by one: listed once.
    for (const connection of answer.data) if (!seen.has(connection.id) && seen.add(connection.id)) list.push(connection);
    more = answer.meta?.pagination?.hasNextPage === true && answer.data.length > 0;
  }
  return { list, more };
}

// ---------------------------------------------------------------------------------------------------- lists

/** The app's icon (the catalogue's, served by this gateway); its initials when the icon does not load. */
function tile(app) {
  const box = el('span', { class: 'tile', 'aria-hidden': 'true' });
  let src = null;
  try {
    src = new URL(app.iconUrl).pathname; // Same origin, whatever PUBLIC_BASE_URL says (the CSP allows only 'self').
  } catch {
    /* no icon: initials */
  }
  if (!src) {
    box.append(app.initials);
    return box;
  }
  const image = el('img', { src, alt: '', width: 28, height: 28, decoding: 'async' });
  image.addEventListener('error', () => box.replaceChildren(app.initials));
  box.append(image);
  return box;
}

/** Search shows once there are more than this many apps. */
const SEARCH_FROM = 9;

function matches(app, query) {
  if (!query) return true;
  const haystack = [app.name, app.slug, app.description ?? '', ...(app.categories ?? [])].join(' ').toLowerCase();
  return query.toLowerCase().split(/\s+/).filter(Boolean).every((word) => haystack.includes(word));
}

$('search').addEventListener('input', () => renderApps());

function renderApps() {
  const list = $('apps');
  const searching = state.apps.length >= SEARCH_FROM;
  $('search-box').hidden = !searching;
  const query = searching ? $('search').value.trim() : '';
  const shown = state.apps.filter((app) => matches(app, query));
  $('search-count').textContent = query ? t('apps.matches', { count: shown.length }) : '';
  list.replaceChildren(
    ...shown.map((app) => {
      const count = state.connections.filter((c) => c.appSlug === app.slug).length;
      return el(
        'li',
        {},
        el(
          'button',
          { type: 'button', class: 'app', 'data-app': app.slug, onclick: (event) => openConnect(app, event.currentTarget) },
          tile(app),
          el(
            'span',
            { class: 'app-text' },
            el('span', { class: 'app-name' }, app.name),
            el('span', { class: 'muted small' }, count ? t('apps.connected', { count }) : t('apps.connect')),
            app.description ? el('span', { class: 'description small' }, app.description) : null,
          ),
        ),
      );
    }),
  );
  $('apps-empty').hidden = state.apps.length > 0;
  $('apps-section').hidden = false;
}

const STATUS_TEXT = { active: 'connections.active', needs_reauthorization: 'connections.needsReauthorization' };

function renderConnections() {
  const list = $('connections');
  list.replaceChildren(
    ...state.connections.map((connection) => {
      const app = state.apps.find((a) => a.slug === connection.appSlug);
      // An app the company no longer offers (out of enabledApps): said so, never its slug; it can still be disconnected.
      const name = app ? app.name : t('connections.retiredName');
      const titleId = `connection-${connection.id}`;
      const actions = [];
      if (connection.status === 'needs_reauthorization' && app) {
        actions.push(el('button', { type: 'button', class: 'button', 'aria-describedby': titleId, onclick: (event) => openReconnect(app, connection, event.currentTarget) }, t('connections.reconnect')));
      }
      actions.push(el('button', { type: 'button', class: 'button secondary', 'aria-describedby': titleId, onclick: (event) => confirmDisconnect(connection, event.currentTarget) }, t('connections.disconnect')));
      return el(
        'li',
        { class: 'connection', 'data-connection': connection.id },
        app ? tile(app) : el('span', { class: 'tile retired', 'aria-hidden': 'true' }),
        el(
          'div',
          { class: 'connection-text' },
          el('span', { class: 'app-name', id: titleId }, connection.name ? `${name}: ${connection.name}` : name),
          // Who the account is at the app (the auth's verification): how two accounts of one app are told apart.
          connection.accountLabel ? el('span', { class: 'account' }, connection.accountLabel) : null,
          app
            ? el('span', { class: `badge ${connection.status}` }, Object.hasOwn(STATUS_TEXT, connection.status) ? t(STATUS_TEXT[connection.status]) : connection.status)
            : el('span', { class: 'retired-note' }, t('connections.retired', { company: productName() })),
          el('span', { class: 'muted small' }, t('connections.since', { date: formatDate(new Date(connection.createdOn)) })),
        ),
        el('div', { class: 'actions' }, actions),
      );
    }),
  );
  $('connections-empty').hidden = state.connections.length > 0;
  $('connections-more').textContent = state.moreConnections ? t('connections.more', { count: state.connections.length }) : '';
  $('connections-more').hidden = !state.moreConnections;
  $('connections-section').hidden = false;
}

// ---------------------------------------------------------------------------------------------------- steps

function openStep(title, ...content) {
  const dialog = $('step');
  $('step-title').textContent = title;
  $('step-body').replaceChildren(...content);
  if (!dialog.open) {
    state.returnFocus ??= document.activeElement;
    dialog.showModal();
  }
  placeStep();
  $('step-title').focus({ preventScroll: framed });
}

/**
 * Framed, the SDK grows the iframe to the page's height (thousands of pixels with many connections), so a modal
 * dialog centred in the frame can open far above or below the customer's window. The part of the frame the end
 * user sees there is what an IntersectionObserver reports for this document at once when it starts observing
 * (the top-level viewport is its root, even across origins; a standing observer would only report ratio
 * changes, not a scroll): the step opens inside it, beside the button that opened it.
 */
function seenPart() {
  return new Promise((resolve) => {
    if (typeof IntersectionObserver !== 'function') return resolve(null);
    const observer = new IntersectionObserver((entries) => {
      observer.disconnect();
      const entry = entries[entries.length - 1];
      resolve(entry.isIntersecting ? { top: entry.intersectionRect.top, bottom: entry.intersectionRect.bottom } : null);
    });
    observer.observe(document.documentElement);
  });
}

const STEP_MARGIN = 12;
let placing = 0;

async function placeStep() {
  const dialog = $('step');
  if (!framed || !dialog.open) return;
  const trigger = state.returnFocus?.isConnected ? state.returnFocus.getBoundingClientRect() : null;
  // At once beside the button (it is in view: it was just used), then inside what is seen, once known.
  if (!dialog.classList.contains('placed')) {
    dialog.classList.add('placed');
    dialog.style.setProperty('--step-top', `${Math.round(Math.max(STEP_MARGIN, trigger ? trigger.top : STEP_MARGIN))}px`);
  }
  const call = ++placing;
  const seen = await seenPart();
  if (call !== placing || !dialog.open) return;
  const top = Math.max(0, seen ? seen.top : 0);
  const bottom = Math.min(window.innerHeight, seen ? seen.bottom : top + 720);
  const room = Math.max(200, bottom - top - 2 * STEP_MARGIN);
  dialog.style.setProperty('--step-max-height', `${Math.round(room)}px`);
  const height = Math.min(dialog.getBoundingClientRect().height, room);
  const wanted = trigger && trigger.bottom > top && trigger.top < bottom ? trigger.top - height / 3 : top + (bottom - top - height) / 2;
  const at = Math.max(top + STEP_MARGIN, Math.min(wanted, bottom - STEP_MARGIN - height));
  dialog.style.setProperty('--step-top', `${Math.round(at)}px`);
}

function closeStep() {
  const dialog = $('step');
  if (!dialog.open) return;
  dialog.close();
}

$('step').addEventListener('close', () => {
  // The close event is queued: a step opened again before it runs (Escape, then Enter at once) keeps its
  // new content and its own way back.
  if ($('step').open) return;
  $('step').classList.remove('placed');
  $('step-body').replaceChildren();
  const back = state.returnFocus;
  state.returnFocus = null;
  // Back to the button that opened the step; when the list was redrawn meanwhile, to the same app's button.
  const target = back && back.isConnected ? back : back?.dataset?.app ? document.querySelector(`[data-app="${CSS.escape(back.dataset.app)}"]`) : null;
  (target ?? $('title')).focus();
});
$('step-close').addEventListener('click', () => closeStep());

/**
 * The step to connect an app: a form for key/basic/credential auths, a sign-in button for OAuth. An app with
 * several auths (the gateway lists OAuth only once the company configured its client) first asks which.
 */
function openConnect(app, trigger) {
  if (state.fatal) return;
  showAlert('');
  if (trigger) state.returnFocus = trigger;
  if (app.auths.length === 0) return openStep(t('step.connect', { app: app.name }), el('p', {}, t('step.cannotConnect')));
  if (app.auths.length === 1) return openAuth(app, app.auths[0]);
  openStep(
    t('step.connect', { app: app.name }),
    el('p', { class: 'muted' }, t('step.chooseAuth', { app: app.name })),
    el(
      'ul',
      { class: 'choices', 'aria-label': t('step.ways', { app: app.name }) },
      ...app.auths.map((auth) =>
        el(
          'li',
          {},
          el(
            'button',
            { type: 'button', class: 'choice', 'data-auth': auth.id, onclick: () => openAuth(app, auth) },
            el('span', { class: 'app-name' }, auth.name),
            auth.description ? el('span', { class: 'muted small' }, auth.description) : null,
          ),
        ),
      ),
    ),
  );
}

function openAuth(app, auth) {
  if (auth.connect === 'oauth') return openStep(t('step.connect', { app: app.name }), ...oauthStep(app, auth, null));
  openStep(t('step.connect', { app: app.name }), credentialForm(app, auth, null));
}

function openReconnect(app, connection, trigger) {
  showAlert('');
  state.returnFocus = trigger;
  const auth = app.auths.find((a) => a.id === connection.authId) ?? app.auths[0];
  if (connection.authType === 'OAuth2AuthorizationCode') return openStep(t('step.reconnect', { app: app.name }), ...oauthStep(app, auth, connection));
  openStep(t('step.reconnect', { app: app.name }), credentialForm(app, auth, connection));
}

const SECRET_KEY = /secret|password|token|key|pass/i;

/** One input for an argument as GET /v2/end-user/apps describes it; its name is the API's field (credentials.x, metadata.x). */
function field(argument, group, value) {
  const name = `${group}.${argument.key}`;
  const id = `field-${group}-${argument.key}`;
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const label = el('label', { for: id }, argument.label || argument.key, argument.required ? el('span', { class: 'required' }, ` ${t('form.required')}`) : null);
  const common = { id, name, 'data-type': argument.dataType, 'aria-describedby': argument.description ? hintId : null, required: argument.required || null };
  let input;
  if (argument.list && argument.list.type === 'Fixed' && Array.isArray(argument.list.options)) {
    input = el(
      'select',
      common,
      el('option', { value: '' }, argument.required ? t('form.choose') : t('form.none')),
      ...argument.list.options.map((o) => el('option', { value: String(o.value), selected: value !== undefined && String(value) === String(o.value) }, o.label ?? String(o.value))),
    );
  } else if (argument.dataType === 'Boolean') {
    input = el('input', { ...common, type: 'checkbox', checked: value === true, required: null });
  } else {
    const secret = group === 'credentials' && SECRET_KEY.test(`${argument.key} ${argument.label ?? ''}`);
    const numeric = argument.dataType === 'Number' || argument.dataType === 'Integer';
    input = el('input', {
      ...common,
      type: secret ? 'password' : 'text',
      inputmode: numeric ? (argument.integer ? 'numeric' : 'decimal') : null,
      autocomplete: secret ? 'new-password' : 'off',
      spellcheck: 'false',
      value: value !== undefined && value !== null ? String(value) : null,
    });
  }
  return el(
    'div',
    { class: argument.dataType === 'Boolean' ? 'field checkbox' : 'field' },
    label,
    argument.description ? el('p', { class: 'hint', id: hintId }, argument.description) : null,
    input,
    el('p', { class: 'field-error', id: errorId, hidden: true }),
  );
}

function credentialForm(app, auth, connection) {
  const credentialArguments = [
    ...auth.arguments.filter((a) => !a.hidden),
    // What the auth kind takes besides its arguments (a client-credentials auth's clientId and clientSecret).
    ...auth.credentialFields.filter((f) => !auth.arguments.some((a) => a.key === f.key)).map((f) => ({ key: f.key, label: f.key, dataType: 'String', required: f.required })),
  ];
  const metadataArguments = app.metadataArguments.filter((a) => !a.hidden);
  const summary = el('div', { class: 'form-errors', role: 'alert', hidden: true, tabindex: '-1' });
  const submit = el('button', { type: 'submit', class: 'button' }, connection ? t('form.submitReconnect') : t('form.submitConnect'));
  // While the app checks the credentials (the auth's verification) or the connection is saved: said, not only a disabled button.
  const checking = el('p', { class: 'checking muted', role: 'status', hidden: true }, t(auth.verifies ? 'form.checking' : 'form.saving', { app: app.name }));
  const form = el(
    'form',
    { novalidate: true, class: 'connect-form', 'data-app': app.slug },
    el('p', { class: 'muted' }, connection ? t('form.enterNew', { app: app.name }) : t('form.enterDetails', { app: app.name, auth: auth.name })),
    helpBox(app, auth),
    summary,
    credentialArguments.length ? el('fieldset', {}, el('legend', {}, auth.name), ...credentialArguments.map((a) => field(a, 'credentials'))) : null,
    metadataArguments.length ? el('fieldset', {}, el('legend', {}, t('form.accountSettings')), ...metadataArguments.map((a) => field(a, 'metadata', connection?.metadata?.[a.key]))) : null,
    checking,
    el('div', { class: 'actions' }, submit, el('button', { type: 'button', class: 'button secondary', onclick: () => closeStep() }, t('step.cancel'))),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearProblems(form, summary);
    const { credentials, metadata } = formValues(form);
    submit.disabled = true;
    submit.setAttribute('aria-busy', 'true');
    checking.hidden = false;
    try {
      const answer = connection
        ? await api(`/v2/end-user/connections/${encodeURIComponent(connection.id)}`, { method: 'PATCH', body: JSON.stringify({ credentials, metadata }) })
        : await api('/v2/end-user/connections', { method: 'POST', body: JSON.stringify({ appSlug: app.slug, authId: auth.id, credentials, metadata }) });
      checking.hidden = true;
      await madeConnection(answer.data, connection ? 'reconnected' : 'connected', t(connection ? 'done.reconnected' : 'done.connected', { app: app.name }));
    } catch (error) {
      checking.hidden = true;
      if (error instanceof ApiError && error.problems.length) showProblems(form, summary, error, app);
      else if (error instanceof ApiError && error.status === 401) fatal(userText(error), 'UNAUTHORIZED', error.message);
      else showFormError(summary, userText(error, app));
    } finally {
      checking.hidden = true;
      submit.disabled = false;
      submit.removeAttribute('aria-busy');
    }
  });
  return form;
}

/**
 * The auth's help (its definition's description, and help: where to find the key, in the page's language when
 * the definition translated it, with a link to the provider's page). The link is shown only when it is
 * https (the gateway refuses anything else when loading definitions; checked again here), opens in a new tab
 * without a window.opener or a Referer.
 */
function helpBox(app, auth) {
  const help = auth.help ?? null;
  const text = help ? (help.translations?.[currentLanguage()] ?? help.text) : null;
  let link = null;
  try {
    if (help?.url && new URL(help.url).protocol === 'https:') link = new URL(help.url).href;
  } catch {
    /* not a URL: no link */
  }
  if (!auth.description && !text && !link) return null;
  return el(
    'div',
    { class: 'help' },
    auth.description ? el('p', {}, auth.description) : null,
    text ? el('p', {}, text) : null,
    link
      ? el('p', {}, el('a', { href: link, target: '_blank', rel: 'noopener noreferrer', referrerpolicy: 'no-referrer', class: 'help-link' }, t('form.helpLink', { app: app.name }), el('span', { class: 'new-tab' }, ` ${t('form.newTab')}`)))
      : null,
  );
}

function formValues(form) {
  const credentials = {};
  const metadata = {};
  for (const input of form.querySelectorAll('input, select')) {
    const [group, ...rest] = input.name.split('.');
    const key = rest.join('.');
    const target = group === 'credentials' ? credentials : metadata;
    if (input.type === 'checkbox') {
      target[key] = input.checked;
      continue;
    }
    const raw = input.value.trim();
    if (raw === '') continue;
    const type = input.dataset.type;
    target[key] = (type === 'Number' || type === 'Integer') && raw !== '' && !Number.isNaN(Number(raw)) ? Number(raw) : raw;
  }
  return { credentials, metadata };
}

function clearProblems(form, summary) {
  summary.hidden = true;
  summary.replaceChildren();
  for (const error of form.querySelectorAll('.field-error')) {
    error.hidden = true;
    error.textContent = '';
  }
  for (const input of form.querySelectorAll('[aria-invalid]')) {
    input.removeAttribute('aria-invalid');
    input.setAttribute('aria-describedby', (input.getAttribute('aria-describedby') ?? '').split(' ').filter((id) => id && !id.endsWith('-error')).join(' '));
    if (!input.getAttribute('aria-describedby')) input.removeAttribute('aria-describedby');
  }
}

/** The sentence under a field for the rule it broke (the API's own message is for a developer, in English). */
const RULE_TEXT = {
  required: 'field.required',
  minLength: 'field.tooShort',
  minimum: 'field.invalid',
  maxLength: 'field.tooLong',
  maxBytes: 'field.tooLong',
  pattern: 'field.format',
  format: 'field.format',
  option: 'field.choice',
  list: 'field.choice',
};

/** The API's problems next to their fields (by `field`), linked with aria-describedby; the first invalid field gets focus. */
function showProblems(form, summary, error, app) {
  let first = null;
  const elsewhere = [];
  const appName = app?.name ?? t('names.app');
  for (const problem of error.problems) {
    const input = form.querySelector(`[name="${CSS.escape(problem.field)}"]`);
    // The app itself refused the credentials (the auth's verification): said as the app's answer, never with its status.
    const refused = problem.rule === 'accepted';
    if (!input) {
      // A field the form does not show (the API's path such as credentials.x means nothing to the end user).
      elsewhere.push(errorText(refused ? 'CREDENTIALS_REJECTED' : 'VALIDATION_ERROR', 400, { app: appName }));
      continue;
    }
    const message = form.querySelector(`#${CSS.escape(input.id)}-error`);
    const label = form.querySelector(`label[for="${CSS.escape(input.id)}"]`)?.firstChild?.textContent ?? problem.field;
    // A rule in words (a pattern is a regular expression, which means nothing to the end user).
    message.textContent = refused ? t('field.refused', { app: appName, label }) : t(Object.hasOwn(RULE_TEXT, problem.rule) ? RULE_TEXT[problem.rule] : 'field.invalid', { label });
    message.hidden = false;
    input.setAttribute('aria-invalid', 'true');
    input.setAttribute('aria-describedby', [input.getAttribute('aria-describedby'), message.id].filter(Boolean).join(' '));
    first ??= input;
  }
  summary.replaceChildren(el('p', {}, t('form.fix', { count: error.problems.length })), ...[...new Set(elsewhere)].map((text) => el('p', {}, text)));
  summary.hidden = false;
  (first ?? summary).focus();
}

function showFormError(summary, text) {
  summary.replaceChildren(el('p', {}, text));
  summary.hidden = false;
  summary.focus();
}

// ---------------------------------------------------------------------------------------------------- OAuth

function oauthStep(app, auth, connection) {
  // Asked before the redirect (Shopify's shop); what the authorization itself gives (QuickBooks' realmId) is not.
  const given = auth.authorizationMetadata ?? [];
  const metadataArguments = connection ? [] : app.metadataArguments.filter((a) => !a.hidden && !given.includes(a.key));
  const summary = el('div', { class: 'form-errors', role: 'alert', hidden: true, tabindex: '-1' });
  const submit = el('button', { type: 'submit', class: 'button' }, t('oauth.continue', { app: app.name }));
  const form = el(
    'form',
    { novalidate: true, class: 'connect-form', 'data-app': app.slug },
    el('p', {}, t('oauth.intro', { app: app.name })),
    auth.scopes?.length
      ? el('div', { class: 'scopes' }, el('p', { id: `scopes-${auth.id}` }, t('oauth.scopes', { app: app.name })), el('ul', { 'aria-labelledby': `scopes-${auth.id}` }, ...auth.scopes.map((scope) => el('li', {}, el('code', {}, scope)))))
      : null,
    helpBox(app, auth),
    summary,
    metadataArguments.length ? el('fieldset', {}, el('legend', {}, t('form.accountSettings')), ...metadataArguments.map((a) => field(a, 'metadata'))) : null,
    el('div', { class: 'actions' }, submit, el('button', { type: 'button', class: 'button secondary', onclick: () => closeStep() }, t('step.cancel'))),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearProblems(form, summary);
    // Opened now, in the click: a window opened after an await is blocked as a pop-up nobody asked for.
    const popup = window.open('about:blank', OAUTH_WINDOW, 'popup,width=520,height=720');
    submit.disabled = true;
    try {
      const returnUrl = `${location.origin}/connect/oauth-return`;
      const { metadata } = formValues(form);
      const path = connection
        ? `/v2/end-user/connections/${encodeURIComponent(connection.id)}/reauthorize?returnUrl=${encodeURIComponent(returnUrl)}`
        : `/v2/connect/${encodeURIComponent(app.slug)}/authorize?returnUrl=${encodeURIComponent(returnUrl)}&authId=${encodeURIComponent(auth.id)}${Object.keys(metadata).length ? `&metadata=${encodeURIComponent(JSON.stringify(metadata))}` : ''}`;
      const { data } = await api(path);
      if (!popup || popup.closed) return popupBlocked(app, data.authorizationUrl, connection);
      popup.location.href = data.authorizationUrl;
      announce(t('oauth.waiting', { app: app.name }));
      const result = await waitForPopup(popup, (late) => oauthOutcome(late, connection, app));
      await oauthOutcome(result, connection, app);
    } catch (error) {
      popup?.close();
      if (error instanceof ApiError && error.problems.length) showProblems(form, summary, error, app);
      else if (error instanceof ApiError && error.status === 401) fatal(userText(error), 'UNAUTHORIZED', error.message);
      else showFormError(summary, userText(error, app));
    } finally {
      submit.disabled = false;
    }
  });
  return [form];
}

/** The channel listener of the last sign-in, still taking a late outcome; a new sign-in ends it. */
let lateListener = null;

/**
 * The return page's message from this popup (same origin), or a closed window. A provider's page that sends
 * Cross-Origin-Opener-Policy cuts the popup off from this page: it reads as closed while the end user is still
 * signing in there, and the return page has no opener to post to. That page then hands the outcome over on a
 * BroadcastChannel of this origin; it is taken here, and after the window seemed to close (for LATE_OUTCOME_MS)
 * by `late`, so the page still updates when the sign-in ends.
 */
function waitForPopup(popup, late) {
  lateListener?.close();
  const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(OAUTH_CHANNEL) : null;
  lateListener = channel;
  return new Promise((resolve) => {
    let settled = false;
    const done = (result) => {
      window.removeEventListener('message', onMessage);
      clearInterval(timer);
      settled = true;
      if (result.closed && channel) setTimeout(() => channel === lateListener && stopListening(), LATE_OUTCOME_MS);
      else stopListening();
      resolve(result);
    };
    const stopListening = () => {
      channel?.close();
      if (lateListener === channel) lateListener = null;
    };
    const onMessage = (event) => {
      if (event.origin !== location.origin || event.source !== popup) return;
      const result = outcomeOf(event.data);
      if (result) done(result);
    };
    window.addEventListener('message', onMessage);
    if (channel) {
      channel.onmessage = (event) => {
        const result = outcomeOf(event.data);
        if (!result) return;
        // Heard: the return page closes its window.
        channel.postMessage({ source: OAUTH_PROTOCOL, version: 1, ack: event.data.nonce });
        if (!settled) return done(result);
        stopListening();
        late(result);
      };
    }
    // A window closed without an answer: the end user gave up (or the provider's page cut it off, see above).
    const timer = setInterval(() => {
      if (popup.closed) setTimeout(() => settled || done({ closed: true }), 300);
    }, 400);
  });
}

/** The return page's outcome in a message, or null when the message is not one. */
function outcomeOf(data) {
  if (!data || data.source !== OAUTH_PROTOCOL || data.version !== 1 || data.ack !== undefined) return null;
  if (typeof data.connectionId === 'string') return { connectionId: data.connectionId };
  if (typeof data.choiceId === 'string') return { choiceId: data.choiceId };
  return { error: String(data.error), description: String(data.description) };
}

async function oauthOutcome(result, connection, app) {
  if (result.closed) {
    return showStepOrAlert(t('oauth.closed', { app: app?.name ?? '' }));
  }
  if (result.error) {
    // The provider's or the gateway's description is for a developer (it may name hosts, ports, codes): the
    // end user reads a sentence chosen by the error alone, the developer the error and description in the console.
    tellDeveloper(`the sign-in to ${app?.slug ?? 'the app'} came back without a connection: ${result.error}: ${result.description}`);
    return showStepOrAlert(oauthErrorText(result.error, { app: app?.name, company: productName() }));
  }
  if (result.choiceId) return chooseAccount(result.choiceId, connection, app);
  const reconnect = Boolean(connection);
  // All the return page knows is the id: the list tells the rest, when it can still be read.
  const made = { id: result.connectionId, appSlug: connection?.appSlug ?? app?.slug ?? null };
  await madeConnection(made, reconnect ? 'reconnected' : 'connected', t(reconnect ? 'done.reconnected' : 'done.connected', { app: appName(made.appSlug ?? '') }));
}

// ---------------------------------------------------------------------------------------------------- account choice

/**
 * The provider's grant reaches several accounts (Xero organisations): a step of its own, one radio button per
 * account (arrows move between them, Space or Enter on the button connects), then POST the choice.
 */
async function chooseAccount(choiceId, connection, app) {
  let choice;
  try {
    choice = (await api(`/v2/connect/choices/${encodeURIComponent(choiceId)}`)).data;
  } catch (error) {
    return choiceFailed(error, app);
  }
  const name = app?.name ?? appName(choice.appSlug);
  if (choice.confirm) return confirmAuthorization(choice, name, app);
  const summary = el('div', { class: 'form-errors', role: 'alert', hidden: true, tabindex: '-1' });
  const submit = el('button', { type: 'submit', class: 'button' }, connection ? t('form.submitReconnect') : t('form.submitConnect'));
  const options = choice.options.map((option, i) =>
    el(
      'div',
      { class: 'field checkbox' },
      // Label first, as field() writes a checkbox: .field.checkbox lays them out in reverse, the radio before its name.
      el('label', { for: `choice-${option.id}` }, option.label),
      el('input', { type: 'radio', name: 'optionId', id: `choice-${option.id}`, value: option.id, checked: i === 0, required: true }),
    ),
  );
  const form = el(
    'form',
    { novalidate: true, class: 'connect-form choose-account', 'data-choice': choice.id },
    el('p', {}, t('choice.intro', { app: name, count: choice.options.length })),
    summary,
    el('fieldset', {}, el('legend', {}, t('choice.legend', { app: name })), ...options),
    el('div', { class: 'actions' }, submit, el('button', { type: 'button', class: 'button secondary', onclick: () => closeStep() }, t('step.cancel'))),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    summary.hidden = true;
    const optionId = form.querySelector('input[name="optionId"]:checked')?.value;
    submit.disabled = true;
    submit.setAttribute('aria-busy', 'true');
    try {
      await makeChoice(choice, optionId, name);
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) fatal(userText(error), 'UNAUTHORIZED', error.message);
      else showFormError(summary, choiceErrorText(error, app));
    } finally {
      submit.disabled = false;
      submit.removeAttribute('aria-busy');
    }
  });
  openStep(t('choice.title', { app: name }), form);
}

/**
 * A sign-in this page started comes back as a choice of one to confirm: only this session can make it, so a
 * consent page someone else was sent to never connects their account here. Made at once, without a step.
 */
async function confirmAuthorization(choice, name, app) {
  try {
    await makeChoice(choice, choice.options[0].id, name);
  } catch (error) {
    choiceFailed(error, app ?? { name });
  }
}

/** Makes the choice (POST /v2/connect/choices/{id}) and shows the connection made or renewed. */
async function makeChoice(choice, optionId, name) {
  const made = (await api(`/v2/connect/choices/${encodeURIComponent(choice.id)}`, { method: 'POST', body: JSON.stringify({ optionId }) })).data;
  await madeConnection({ id: made.connectionId, appSlug: choice.appSlug }, made.created ? 'connected' : 'reconnected', t(made.created ? 'done.connected' : 'done.reconnected', { app: name }));
}

/** A choice this session cannot see or make (404: another session's sign-in, made already, or expired) in the end user's words. */
function choiceErrorText(error, app) {
  if (error instanceof ApiError && error.status === 404) return t('choice.gone', { app: app?.name ?? t('names.app') });
  return userText(error, app);
}

function choiceFailed(error, app) {
  if (error instanceof ApiError && error.status === 401) return fatal(userText(error), 'UNAUTHORIZED', error.message);
  return showStepOrAlert(choiceErrorText(error, app));
}

function showStepOrAlert(text) {
  clearStatus();
  const summary = $('step').open ? $('step-body').querySelector('.form-errors') : null;
  if (summary) {
    summary.replaceChildren(el('p', {}, text));
    summary.hidden = false;
    summary.focus();
  } else {
    showAlert(text);
  }
}

function popupBlocked(app, authorizationUrl, connection) {
  const go = () => {
    // The token goes with this tab only, until the return page brings the browser back here.
    sessionStorage.setItem(RESUME_KEY, JSON.stringify({ token: state.token, openerOrigin: state.openerOrigin, app: app.slug, reconnect: connection ? { id: connection.id } : null, language: currentLanguage() }));
    location.assign(authorizationUrl);
  };
  const content = [el('p', { class: 'form-errors', role: 'alert' }, t('oauth.blocked'))];
  if (framed) content.push(el('p', {}, t('oauth.allowPopups')));
  else content.push(el('p', {}, t('oauth.sameWindow', { app: app.name })), el('div', { class: 'actions' }, el('button', { type: 'button', class: 'button', onclick: go }, t('oauth.continueHere'))));
  openStep(t(connection ? 'step.reconnect' : 'step.connect', { app: app.name }), ...content);
}

// ---------------------------------------------------------------------------------------------------- disconnect

function confirmDisconnect(connection, trigger) {
  showAlert('');
  state.returnFocus = trigger;
  const retired = !state.apps.some((a) => a.slug === connection.appSlug);
  const name = retired ? t('connections.retiredName') : appName(connection.appSlug);
  const summary = el('div', { class: 'form-errors', role: 'alert', hidden: true, tabindex: '-1' });
  const confirm = el('button', { type: 'button', class: 'button danger' }, t('connections.disconnect'));
  confirm.addEventListener('click', async () => {
    confirm.disabled = true;
    try {
      await api(`/v2/end-user/connections/${encodeURIComponent(connection.id)}`, { method: 'DELETE' });
      post('disconnected', { connectionId: connection.id });
      state.returnFocus = null;
      closeStep();
      await refresh();
      announce(retired ? t('done.disconnectedRetired') : t('done.disconnected', { app: name }));
      $('connections-title').focus();
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) fatal(userText(error), 'UNAUTHORIZED', error.message);
      // 409: an installation of the company's uses this connection; reloading never changes that, only the company can.
      else if (error instanceof ApiError && error.status === 409) showFormError(summary, t('disconnect.inUse', { app: name, company: productName() }));
      else showFormError(summary, userText(error, state.apps.find((a) => a.slug === connection.appSlug)));
    } finally {
      confirm.disabled = false;
    }
  });
  openStep(
    retired ? t('disconnect.retiredTitle') : t('disconnect.title', { app: name }),
    el('p', {}, retired ? t('disconnect.retiredText', { company: productName() }) : t('disconnect.text', { app: name, company: productName() })),
    summary,
    el('div', { class: 'actions' }, confirm, el('button', { type: 'button', class: 'button secondary', onclick: () => closeStep() }, t('step.cancel'))),
  );
}

// ---------------------------------------------------------------------------------------------------- theme

/**
 * The company's theme (PUT /v2/embedding): its logo, its primary colour on buttons, links and the focus ring (the
 * text on it white or black, whichever contrasts more; the ring the ink when the colour would not show), and
 * light, dark or the browser's setting. Set through CSS
 * variables (CSSOM, which the page's CSP allows; no inline style).
 */
function applyTheme(theme) {
  if (!theme) return;
  const root = document.documentElement;
  root.dataset.theme = theme.mode === 'dark' || theme.mode === 'system' ? theme.mode : 'light';
  showLogo(theme.logoUrl);
  const color = typeof theme.primaryColor === 'string' && /^#[0-9a-f]{6}$/i.test(theme.primaryColor) ? theme.primaryColor : null;
  if (!color) return;
  root.style.setProperty('--accent', color);
  root.style.setProperty('--accent-ink', contrastInk(color));
  // The focus ring must stand out at 3:1 (WCAG 1.4.11) from the card and the page around it; a colour that does
  // not (yellow on the light card, navy on the dark one) gives way to the ink.
  root.style.setProperty('--focus-light', Math.min(contrast(color, '#ffffff'), contrast(color, '#f6f7f9')) >= 3 ? color : '#1b1f24');
  root.style.setProperty('--focus-dark', Math.min(contrast(color, '#1e232a'), contrast(color, '#14171c')) >= 3 ? color : '#e6e9ee');
  // As text on a card (a secondary button's label), the colour must read at 4.5:1; a light colour on the light
  // card (or a dark one on the dark card) gives way to the ink.
  root.style.setProperty('--accent-text-light', contrast(color, '#ffffff') >= 4.5 ? color : '#1b1f24');
  root.style.setProperty('--accent-text-dark', contrast(color, '#1e232a') >= 4.5 ? color : '#e6e9ee');
}

/** The WCAG contrast ratio of two #rrggbb colours. */
function contrast(a, b) {
  const [la, lb] = [luminance(a), luminance(b)];
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

function luminance(hex) {
  const channel = (i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/**
 * The company's logo beside the title: an https image (PUT /v2/embedding refuses anything else; checked again
 * here), loaded by the browser from the company's host without a Referer (the CSP's img-src allows https:).
 * Decorative: the company's name is written beside it. An image that does not load is hidden.
 */
function showLogo(url) {
  const logo = $('logo');
  let src = null;
  try {
    if (typeof url === 'string' && new URL(url).protocol === 'https:') src = new URL(url).href;
  } catch {
    /* not a URL: no logo */
  }
  if (!src) return;
  logo.addEventListener('error', () => (logo.hidden = true), { once: true });
  logo.src = src;
  logo.hidden = false;
}

/** #ffffff or #000000, whichever has the higher WCAG contrast ratio on `hex`. */
function contrastInk(hex) {
  return contrast(hex, '#ffffff') >= contrast(hex, '#000000') ? '#ffffff' : '#000000';
}

// ---------------------------------------------------------------------------------------------------- iframe size

/**
 * In an iframe, the page tells the SDK how tall it is ({type: 'resize', height}), so the frame fits its content:
 * nothing cut off, no empty band. An open step (a modal dialog, drawn above the page) counts too.
 */
function reportHeight() {
  if (!framed) return;
  let last = 0;
  let queued = false;
  const measure = () => {
    queued = false;
    if (!state.openerOrigin) return;
    const dialog = $('step');
    // The body's own height (the document's scrollHeight is never less than the frame, so it could not shrink).
    const content = Math.ceil(document.body.getBoundingClientRect().height);
    const step = dialog.open ? Math.ceil(Math.max(dialog.scrollHeight + 24, dialog.getBoundingClientRect().bottom + STEP_MARGIN)) : 0;
    const height = Math.max(content, step);
    if (height === last) return;
    last = height;
    post('resize', { height });
  };
  const queue = () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(measure);
  };
  new ResizeObserver(queue).observe(document.body);
  new ResizeObserver(() => {
    placeStep(); // a step whose content grew (an error shown) stays inside what the end user sees
    queue();
  }).observe($('step'));
  new MutationObserver(queue).observe($('step'), { attributes: true, attributeFilter: ['open'] });
  return queue;
}
const heightChanged = reportHeight();

// ---------------------------------------------------------------------------------------------------- boot

$('close').addEventListener('click', () => {
  post('close');
  if (!framed && window.opener) window.close();
});
$('connections-title').setAttribute('tabindex', '-1');

function handshake() {
  if (!opener) return fatal(t('page.needsSession'));
  $('close').hidden = false;
  $('loading').textContent = t('page.waitingForOpener');
  let answered = false;
  window.addEventListener('message', async (event) => {
    const data = event.data;
    if (answered || event.source !== opener || !data || data.source !== PROTOCOL || data.version !== 1 || data.type !== 'init') return;
    if (typeof data.token !== 'string' || !data.token) return;
    answered = true;
    state.token = data.token;
    // A refusal goes back to the window that sent the token, at its own origin, with nothing it did not know
    // (not the company's name): so the SDK there rejects with the code at once instead of waiting for a close.
    const refuse = (code, message, shown) => {
      opener.postMessage({ source: PROTOCOL, version: 1, type: 'error', error: { code, message } }, event.origin);
      fatal(shown);
    };
    try {
      state.session = (await api('/v2/end-user/session')).data;
    } catch (error) {
      return refuse(error instanceof ApiError && error.code ? error.code : 'UNAVAILABLE', error.message, userText(error));
    }
    if (!state.session.allowedOrigins.includes(event.origin)) {
      state.token = null;
      return refuse(
        'ORIGIN_NOT_ALLOWED',
        `origin ${event.origin} is not one of the allowedOrigins of this end user's company: add it with PUT /v2/embedding`,
        errorText('ORIGIN_NOT_ALLOWED', 403, { company: state.session.company.name }),
      );
    }
    state.openerOrigin = event.origin;
    heightChanged?.();
    await start(data.token, typeof data.app === 'string' ? data.app : null);
  });
  // No data: the opener answers with the token, to this window, for this origin.
  opener.postMessage({ source: PROTOCOL, version: 1, type: 'ready' }, '*');
}

/**
 * The page's language (messages.js): ?lang= in its address (the SDK's `language` option), else the browser's.
 * Kept in this tab's sessionStorage for the OAuth return page (and back from a sign-in in this window).
 */
function pickLanguage(resumed) {
  const requested = new URLSearchParams(location.search).get('lang') ?? resumed;
  const language = useLanguage(requested, navigator.languages ?? []);
  try {
    sessionStorage.setItem(LANGUAGE_KEY, language);
  } catch {
    /* storage refused (a framed page in a strict browser): the return page goes by the browser's languages */
  }
}

function boot() {
  let resumedLanguage = null;
  try {
    resumedLanguage = JSON.parse(sessionStorage.getItem(RESUME_KEY) ?? 'null')?.language ?? null;
  } catch {
    /* unreadable: the browser's language */
  }
  pickLanguage(resumedLanguage);
  const fragment = new URLSearchParams(location.hash.slice(1));
  const token = fragment.get('token');
  if (token) {
    // Never left in the address bar, the history or a bookmark.
    history.replaceState(null, '', location.pathname + location.search);
    if (opener) $('close').hidden = false;
    return start(token, fragment.get('app'));
  }
  const resume = sessionStorage.getItem(RESUME_KEY);
  const outcome = sessionStorage.getItem(OUTCOME_KEY);
  sessionStorage.removeItem(RESUME_KEY);
  sessionStorage.removeItem(OUTCOME_KEY);
  if (resume) {
    // Back from a sign-in made in this window (the pop-up was blocked).
    try {
      const saved = JSON.parse(resume);
      state.openerOrigin = saved.openerOrigin ?? null;
      if (opener && state.openerOrigin) $('close').hidden = false;
      const result = outcome ? JSON.parse(outcome) : { closed: true };
      return start(saved.token, null, { result, reconnect: saved.reconnect, app: typeof saved.app === 'string' ? saved.app : null });
    } catch {
      /* unreadable: start over below */
    }
  }
  handshake();
}

boot();
