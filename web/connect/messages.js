// What the Connect page says to an end user when something goes wrong: a sentence in their words, never a
// host, a port, a path, an HTTP verb or an error code. The code (and the API's own message, written for a
// developer) stays in the error the SDK receives; the end user reads only these.
//
// errorText(code, status, names) answers the sentence for an API error; oauthErrorText(error, names) the one
// for a sign-in that came back without a connection (the `error` of the return page: the provider's OAuth
// error such as access_denied, or a gateway code in lower case such as token_exchange_failed).
// `names` is {app, company}: the app's display name and the end user's company (or a neutral stand-in).

const fill = (text, names) => text.replace(/\{(\w+)\}/g, (_, key) => names[key] ?? '');

/** Sentences by the gateway's error code. */
const BY_CODE = {
  UNREACHABLE: 'The connection service cannot be reached. Check your internet connection and try again.',
  UNAVAILABLE: 'The connection service is not available right now. Try again in a moment.',
  UNAUTHORIZED: 'Your session has expired: go back to {company} and open this page again.',
  FORBIDDEN: 'You are not allowed to do this here. Go back to {company} and open this page again.',
  ORIGIN_NOT_ALLOWED: 'This page was opened from a site that may not connect accounts for {company}. Go back to {company} and try again from there.',
  APP_NOT_ENABLED: 'This app is not available to connect here.',
  APP_NOT_FOUND: 'This app is not available to connect here.',
  APP_VERSION_NOT_FOUND: 'This app is not available to connect here.',
  APP_NOT_CONFIGURED: 'Signing in to {app} is not set up yet, so it cannot be connected here. Please let {company} know.',
  EGRESS_DENIED: '{app} cannot be reached from here. Please let {company} know.',
  NOT_FOUND: 'This connection no longer exists: it may have been removed in another window. Reload the page to see your connections.',
  CONFLICT: 'Something changed in the meantime. Reload the page and try again.',
  CONNECTION_NEEDS_REAUTHORIZATION: 'This account needs to be connected again: choose Reconnect.',
  AUTH_REFRESH_FAILED: 'This account needs to be connected again: choose Reconnect.',
  CREDENTIALS_REJECTED: '{app} did not accept these details. Check them and try again.',
  VERIFICATION_FAILED: '{app} could not check these details right now, so nothing was connected. Try again in a moment.',
  TOKEN_EXCHANGE_FAILED: '{app} did not finish the sign-in. Try again in a moment.',
  CREDENTIAL_EXCHANGE_FAILED: '{app} did not accept these details. Check them and try again.',
  AUTH_PROVIDER_UNAVAILABLE: '{app} is not answering right now. Try again in a moment.',
  UPSTREAM_UNREACHABLE: '{app} is not answering right now. Try again in a moment.',
  UPSTREAM_TIMEOUT: '{app} is not answering right now. Try again in a moment.',
  UPSTREAM_PROTOCOL_ERROR: '{app} gave an answer that could not be understood. Try again in a moment.',
  RESPONSE_TOO_LARGE: '{app} gave an answer that could not be understood. Try again in a moment.',
  MAPPING_ERROR: '{app} gave an answer that could not be understood. Try again in a moment.',
  VALIDATION_ERROR: 'Some details were not accepted. Check them and try again.',
  BAD_REQUEST: 'Some details were not accepted. Check them and try again.',
  PAYLOAD_TOO_LARGE: 'What you entered is too long. Shorten it and try again.',
  RATE_LIMITED: 'Too many attempts: wait a moment and try again.',
  CREDENTIALS_UNREADABLE: 'Something went wrong on our side. Try again in a moment, and let {company} know if it keeps happening.',
};

/** Sentences by HTTP status, for a code without its own sentence. */
function byStatus(status) {
  if (status === 429) return BY_CODE.RATE_LIMITED;
  if (status === 413) return BY_CODE.PAYLOAD_TOO_LARGE;
  if (status >= 500 || status === 0) return 'Something went wrong on our side. Try again in a moment, and let {company} know if it keeps happening.';
  return 'This could not be done. Try again, and let {company} know if it keeps happening.';
}

export function errorText(code, status, names) {
  return fill(Object.hasOwn(BY_CODE, code) ? BY_CODE[code] : byStatus(status), names);
}

/** Sign-in outcomes by the return page's `error`. */
const OAUTH = {
  // The end user's own choice at the provider: not a failure.
  access_denied: 'You chose not to connect {app}, so nothing was shared. You can connect it whenever you like.',
  egress_denied: BY_CODE.EGRESS_DENIED,
  token_exchange_failed: BY_CODE.TOKEN_EXCHANGE_FAILED,
  auth_provider_unavailable: BY_CODE.AUTH_PROVIDER_UNAVAILABLE,
  temporarily_unavailable: BY_CODE.AUTH_PROVIDER_UNAVAILABLE,
  oauth_state_invalid: 'This sign-in took too long or was already used. Start again from this page.',
  app_not_configured: BY_CODE.APP_NOT_CONFIGURED,
};

export function oauthErrorText(error, names) {
  return fill(Object.hasOwn(OAUTH, error) ? OAUTH[error] : 'The sign-in to {app} did not finish, so nothing was connected. Try again, and let {company} know if it keeps happening.', names);
}

/** Every code and sign-in error with its own sentence: the spec walks each one through the page. */
export const KNOWN_CODES = Object.keys(BY_CODE);
export const KNOWN_OAUTH_ERRORS = Object.keys(OAUTH);
