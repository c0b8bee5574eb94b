// The OAuth return page: GET /v2/connect/callback redirected the browser here, with connectionId, choiceId (the
// end user chooses one of several accounts next), or error and error_description, in the query. Opened as the Connect page's popup, it posts the outcome to that page (same
// origin only) and closes. Opened in the Connect page's own window (the popup was blocked: a redirect), it keeps
// the outcome for that page in sessionStorage and goes back to /connect, which picks it up.
//
// It speaks the Connect page's language: that page leaves it in this tab's sessionStorage before the sign-in
// (a popup opened by it starts with a copy), else the browser's languages choose (messages.js).
import { t, useLanguage } from './messages.js';

let kept = null;
try {
  kept = sessionStorage.getItem('gateway-connect-language');
} catch {
  /* storage refused: the browser's languages */
}
useLanguage(kept, navigator.languages ?? []);
const query = new URLSearchParams(location.search);
const outcome = query.has('connectionId')
  ? { connectionId: query.get('connectionId') }
  : query.has('choiceId')
    ? { choiceId: query.get('choiceId') }
    : { error: query.get('error') || 'unknown_error', description: query.get('error_description') || 'The connection was not made.' };
// The outcome is not kept in the address bar or the history.
history.replaceState(null, '', location.pathname);

// The Connect page names its sign-in popup; in any other window (the redirect), the opener, if any, is not it.
const opener = window.name === 'gateway-connect-oauth' ? window.opener : null;
if (opener && !opener.closed) {
  // targetOrigin is this origin: only a Connect page of this gateway receives it.
  opener.postMessage({ source: 'gateway-connect-oauth', version: 1, ...outcome }, location.origin);
  window.close();
  document.getElementById('message').textContent = t('return.done');
} else {
  sessionStorage.setItem('gateway-connect-oauth-outcome', JSON.stringify(outcome));
  location.replace('/connect');
}
