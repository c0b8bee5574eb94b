import type { Argument } from '../generated/definition-types.ts';
import type { FileAnalysis } from '../file-analysis.ts';
import { problemAt, type DefinitionProblem } from '../problems.ts';
import { headerText } from '../../arguments/host-variables.ts';

/** An HTTP field name (RFC 9110 token). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Headers a Header argument may not set, lower-case, with why: the outbound
 * client sets the connection and framing ones for each hop (a value would be
 * dropped), the body's encoding sets Content-Type (API `headers` may name
 * another JSON type), and credentials belong to an auth, which keeps them
 * sealed and drops them on a redirect to another origin.
 */
export const RESERVED_HEADERS: ReadonlyMap<string, string> = new Map([
  ...['host', 'connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'content-length'].map(
    (name) => [name, 'the gateway sets it for each call'] as const,
  ),
  ['content-type', "the body's encoding sets it (api.yaml headers may name another JSON type)"] as const,
  ...['authorization', 'proxy-authorization', 'cookie'].map((name) => [name, 'credentials belong in an auth, which keeps them secret'] as const),
]);

/**
 * The Header arguments of one arguments list (an action's, an auth's, the
 * API's): the header name (externalKey, else key) is an HTTP token, not one
 * the gateway owns nor one an auth of the version sets (`authHeaders`, by
 * auth id), and the value is a single value (not an Object or Array).
 */
export function headerArgumentProblems(file: FileAnalysis, args: readonly Argument[], authHeaders: ReadonlyMap<string, string>): DefinitionProblem[] {
  const problems: DefinitionProblem[] = [];
  args.forEach((arg, i) => {
    if (arg.location !== 'Header' || arg.parent !== undefined) return;
    const name = arg.externalKey ?? arg.key;
    const where = (field: string) => file.parsed!.locate(['arguments', i, ...(arg[field as keyof Argument] === undefined ? [] : [field])]);
    const nameAt = where(arg.externalKey === undefined ? 'key' : 'externalKey');
    const lower = name.toLowerCase();
    if (!TOKEN.test(name)) {
      problems.push(problemAt(nameAt, 'ARG_HEADER_NAME', `argument "${arg.key}" is a Header, but "${name}" is not a valid header name (letters, digits and !#$%&'*+-.^_\`|~, no spaces or colons)`));
    } else if (RESERVED_HEADERS.has(lower)) {
      problems.push(problemAt(nameAt, 'ARG_HEADER_RESERVED', `argument "${arg.key}" cannot be sent in header ${name}: ${RESERVED_HEADERS.get(lower)}`));
    } else if (authHeaders.has(lower)) {
      problems.push(problemAt(nameAt, 'ARG_HEADER_RESERVED', `argument "${arg.key}" cannot be sent in header ${name}: auth "${authHeaders.get(lower)}" sends its credentials there`));
    }
    if (arg.dataType === 'Object' || arg.dataType === 'Array') {
      problems.push(problemAt(where('dataType'), 'ARG_HEADER_TYPE', `argument "${arg.key}" is a Header, so it must be a single value (String, Number, Boolean, Date or List), not an ${arg.dataType}`));
    }
  });
  return problems;
}

/** The headers the version's auths put their credentials in, lower-case, with the auth id. */
export function authHeaderNames(auths: readonly FileAnalysis<'auth'>[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const auth of auths) {
    const def = auth.definition;
    if (!def) continue;
    if (def.type === 'ApiKey' && def.in === 'Header') names.set(def.parameterName.toLowerCase(), def.id);
    if (def.type === 'CredentialExchange' || def.type === 'OAuth2AuthorizationCode' || def.type === 'OAuth2ClientCredentials') {
      names.set((def.header ?? 'Authorization').toLowerCase(), def.id);
    }
  }
  return names;
}

const PLACEHOLDER = /\{\{[^{}]*\}\}/g;

/**
 * What an auth writes into a header as it is, held to what HTTP can send:
 * an ApiKey's header name (an HTTP token) and the text of its `value` around
 * the placeholders, and the `prefix` before an OAuth or exchanged token. A
 * value filled in from a connection is checked on each run; this text is the
 * author's, so it is a problem at load, never a caller's 400.
 */
export function authHeaderProblems(auth: FileAnalysis<'auth'>): DefinitionProblem[] {
  const def = auth.definition;
  if (!def || !auth.parsed) return [];
  const problems: DefinitionProblem[] = [];
  const unsendable = (text: string) => headerText(text) === null || typeof headerText(text) !== 'string';
  const rule = 'so it must be one line of Latin-1 text: no line break or NUL, and no character beyond U+00FF (typographic quotes or a euro sign), which HTTP cannot send';
  if (def.type === 'ApiKey' && def.in === 'Header') {
    if (!TOKEN.test(def.parameterName)) {
      problems.push(problemAt(auth.parsed.locate(['parameterName']), 'SCHEMA_PATTERN', `parameterName ${JSON.stringify(def.parameterName)} must be an HTTP header name (letters, digits and !#$%&'*+.^_\`|~- only) when in is Header`));
    } else if (unsendable(def.value.replace(PLACEHOLDER, ''))) {
      problems.push(problemAt(auth.parsed.locate(['value']), 'SCHEMA_PATTERN', `value ${JSON.stringify(def.value)} is sent in header ${def.parameterName}, ${rule}`));
    }
  }
  const withPrefix = def as { prefix?: unknown; header?: unknown };
  if (typeof withPrefix.prefix === 'string' && unsendable(withPrefix.prefix)) {
    const header = typeof withPrefix.header === 'string' ? withPrefix.header : 'Authorization';
    problems.push(problemAt(auth.parsed.locate(['prefix']), 'SCHEMA_PATTERN', `prefix ${JSON.stringify(withPrefix.prefix)} is sent in header ${header}, ${rule}`));
  }
  return problems;
}
