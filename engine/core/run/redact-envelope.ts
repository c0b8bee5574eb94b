import { jsonHolds, jsonTextMayHold, redactJson, secretForms, type SecretForms } from '../../platform/secrets/redact.ts';
import type { Envelope } from './envelope.ts';
import { jsonSourceOf } from './envelope-json.ts';
import { copyBody } from '../../platform/outbound/index.ts';
import { redactHeaderNames } from '../../platform/secrets/header-names.ts';

/**
 * The one change the gateway makes to the app's raw response: every occurrence of a secret of the run
 * (see secretFormsOfRun) in `meta.response` (its body, strings and keys at any depth, and its headers'
 * values and names) becomes `[redacted]` before the envelope leaves the gateway, and so it does in
 * everything the envelope derived from what the run saw (`data`, `meta.appError`, `meta.error`,
 * `meta.cursor`, the mapping's own meta) and in `meta.action` (what was sent: an argument may carry a
 * connection's value). An app that
 * answers `401 {"error":"bad key <the key>"}` would otherwise hand the connection's credential to
 * whoever ran the action: an end user's browser, or an AI agent. Every run endpoint's envelope passes here
 * (runAction), lookups' included.
 *
 * A large JSON body is written into the answer as the app's own bytes (envelope-json.ts). Its text is
 * searched first (a secret as a JSON string writes it, or a `\u` escape that could spell one); only on a
 * "maybe" is the parsed body walked, and a body that held a secret is replaced by its redacted copy, which
 * is serialised instead of spliced: the app's bytes holding a secret never reach the answer. The rest of
 * the envelope is walked only when what the mapping read held a secret (the response, `meta.action`, the
 * arguments): from input without one, a mapping cannot make one.
 *
 * A header's name is searched in any letter case (header-names.ts: the HTTP client reads names lower-cased,
 * so an app echoing a key with capitals into a name, `X-Echo-<key>`, gives it lower-cased); the header stays
 * under its redacted name (`x-echo-[redacted]`), as a body's key does. When a name held one so, the rest is
 * searched for the lower-cased forms too: the mapping read the names as they are (`data: [headers]`).
 */
export function redactEnvelope(envelope: Envelope, secrets: SecretForms, mapped: { arguments: unknown }): void {
  if (secrets.plain.length === 0) return;
  const { meta } = envelope;
  const response = meta.response;
  const text = jsonSourceOf(response);
  // The body is read only when its text may hold a secret: a large one may not be parsed here yet (deferred-json.ts).
  const searched = text === undefined || jsonTextMayHold(text, secrets);
  const body = searched ? redactJson(response.body, secrets) : undefined;
  const valued = redactJson(response.headers, secrets);
  const headers = redactHeaderNames(valued, secrets.plain) as typeof valued;
  const responseHeld = (searched && body !== response.body) || headers !== response.headers;
  // A new object: the old one's note of its JSON text (what envelopeBytes splices) does not come along.
  if (responseHeld) meta.response = searched ? { ...response, headers, body } : copyBody(response, { status: response.status, headers, body: null as unknown });
  if (!responseHeld && !jsonHolds(meta.action, secrets) && !jsonHolds(mapped.arguments, secrets)) return;
  // A name held a secret lower-cased: the mapping read it so (`headers`), and may have put it in a row.
  const derived = headers !== valued ? withLowerCase(secrets) : secrets;
  envelope.data = redactJson(envelope.data, derived);
  for (const key of Object.keys(meta)) {
    if (key !== 'response') (meta as Record<string, unknown>)[key] = redactJson((meta as Record<string, unknown>)[key], derived);
  }
}

/** `secrets` and each of its forms lower-cased, longest first. */
function withLowerCase(secrets: SecretForms): SecretForms {
  const both = (forms: readonly string[]) => [...new Set([...forms, ...forms.map((form) => form.toLowerCase())])].sort((a, b) => b.length - a.length);
  return { plain: both(secrets.plain), inJsonText: both(secrets.inJsonText) };
}

/** The forms of a connection's opened secrets and what was sent with them, by that secrets object (frozen, remembered across runs). */
const remembered = new WeakMap<object, Map<string, SecretForms>>();
/** Different `sent` values one connection's secrets are remembered with (an exchanged token changes). */
const REMEMBERED_PER_CONNECTION = 8;

/**
 * What a run redacts: `held`, the connection's opened credentials (its auth's argument values, access and
 * refresh tokens, client id and secret: every string it keeps sealed), one object per version of them the
 * run used (a renewal opens new ones); `sent`, what else went out as a credential (the token a renewal or
 * an exchange obtained, the auth's header and query values as applied, HTTP Basic's base64 pair) and the
 * company's OAuth client secret. Worked out once per connection and set of values (a few µs), not per run.
 */
export function secretFormsOfRun(held: readonly object[], sent: readonly (string | undefined)[]): SecretForms {
  const values = [...new Set(sent.filter((value): value is string => typeof value === 'string'))];
  if (held.length !== 1) return secretForms(...held, ...values);
  const key = values.join('\0');
  let byValues = remembered.get(held[0]!);
  if (!byValues) remembered.set(held[0]!, (byValues = new Map()));
  let forms = byValues.get(key);
  if (!forms) {
    forms = secretForms(held[0], ...values);
    if (byValues.size >= REMEMBERED_PER_CONNECTION) byValues.clear();
    byValues.set(key, forms);
  }
  return forms;
}

/** The credential in each applied header and query value: the value, and what follows its scheme (`Basic <pair>`, `Bearer <token>`). */
export function appliedCredentials(applied: { headers: Record<string, string>; query: Record<string, string> }): string[] {
  const out: string[] = [];
  for (const value of [...Object.values(applied.headers), ...Object.values(applied.query)]) {
    out.push(value);
    const scheme = /^[A-Za-z][\w-]*\s+(\S.*)$/.exec(value);
    if (scheme) out.push(scheme[1]!);
  }
  return out;
}
