// The OAuth return page: GET /v2/connect/callback redirected the browser here, with connectionId, choiceId (the
// end user chooses one of several accounts next), or error and error_description, in the query. Opened as the Connect page's popup, it posts the outcome to that page (same
// origin only) and closes. Opened in the Connect page's own window (the popup was blocked: a redirect), it keeps
// the outcome for that page in sessionStorage and goes back to /connect, which picks it up.
//
// It speaks the Connect page's language: that page leaves it in this tab's sessionStorage before the sign-in
// (a popup opened by it starts with a copy), else the browser's languages choose (messages.js).
import { t, useLanguage } from './messages.js';

/** How long a Connect page has to answer the outcome handed over on the channel. */
const HANDOVER_MS = 800;

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
  done();
} else {
  // No opener: the popup was cut off from the Connect page (a provider page that sends Cross-Origin-Opener-Policy
  // does that, and clears the window's name), or this is the Connect page's own tab (the popup was blocked). A
  // Connect page of this origin waiting for a sign-in hears the outcome on the channel and answers; else the
  // outcome is kept for the Connect page this tab goes back to.
  handOver(outcome).then((heard) => {
    if (heard) return done();
    sessionStorage.setItem('gateway-connect-oauth-outcome', JSON.stringify(outcome));
    location.replace('/connect');
  });
}

function done() {
  window.close();
  document.getElementById('message').textContent = t('return.done');
}

/** Whether a Connect page waiting for a sign-in took the outcome (it answers within HANDOVER_MS). */
function handOver(outcome) {
  if (typeof BroadcastChannel !== 'function') return Promise.resolve(false);
  return new Promise((resolve) => {
    const channel = new BroadcastChannel('gateway-connect-oauth');
    const nonce = `${Date.now()}-${Math.random()}`;
    const finish = (heard) => {
      clearTimeout(timer);
      channel.close();
      resolve(heard);
    };
    const timer = setTimeout(() => finish(false), HANDOVER_MS);
    channel.onmessage = (event) => {
      if (event.data?.source === 'gateway-connect-oauth' && event.data.ack === nonce) finish(true);
    };
    channel.postMessage({ source: 'gateway-connect-oauth', version: 1, nonce, ...outcome });
  });
}
