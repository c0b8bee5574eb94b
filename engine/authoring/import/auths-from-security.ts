import type { AuthDefinition, Commented } from './imported-app.ts';
import { arr, entries, isObj, obj, str, type Obj } from './json-access.ts';
import { displayName, documentation, humanised, kebabId, unique } from './naming.ts';
import type { OperationInfo } from './operations.ts';

/** The auths of the app, default first, and where their credentials travel (so no argument sends them too). */
export interface Auths {
  auths: Commented<AuthDefinition>[];
  /** Headers an auth sends its credential in, lower-case. */
  credentialHeaders: Set<string>;
  /** Query parameters an auth sends its credential in. */
  credentialQuery: Set<string>;
  /** The credentials an offline case's connection holds for the default auth, and what the request then carries. */
  test: { credentials: Record<string, string>; headers: Record<string, string>; query: Record<string, string> };
}

/** Scopes asked for when no operation says which it needs, at most this many (a provider may list hundreds). */
const MAX_UNREQUESTED_SCOPES = 20;

/**
 * One auth per security scheme the model can hold: an API key in a header or
 * the query (ApiKey), HTTP bearer (Bearer) and basic (Basic), OAuth 2.0
 * authorization code and client credentials with their URLs and the scopes
 * the imported operations ask for. Other schemes (cookies, OpenID Connect
 * discovery, implicit and password flows, mutual TLS) are noted, not made.
 * The default is the first scheme of the description's own `security`.
 */
export function authsOf(document: Obj, operations: OperationInfo[], origin: string, note: (message: string) => void): Auths {
  const schemes = entries(obj(document.components)?.securitySchemes).filter(([, s]) => isObj(s)) as [string, Obj][];
  const order = new Map<string, number>();
  arr(document.security).forEach((requirement, i) => {
    for (const name of Object.keys(obj(requirement) ?? {})) if (!order.has(name)) order.set(name, i);
  });
  schemes.sort(([a], [b]) => (order.get(a) ?? Infinity) - (order.get(b) ?? Infinity));
  const scopes = requestedScopes(document, operations);
  const auths: Commented<AuthDefinition>[] = [];
  const ids = new Set<string>();
  const credentialHeaders = new Set<string>();
  const credentialQuery = new Set<string>();
  for (const [name, scheme] of schemes) {
    const made = authsFor(name, scheme, scopes.get(name), origin, note);
    for (const auth of made) {
      auth.definition.id = unique(auth.definition.id, ids, (base, n) => `${base}-${n}`);
      auths.push(auth);
      const definition = auth.definition;
      if (definition.type === 'ApiKey') (definition.in === 'Header' ? credentialHeaders : credentialQuery).add(definition.in === 'Header' ? definition.parameterName.toLowerCase() : definition.parameterName);
      else credentialHeaders.add('authorization');
    }
  }
  if (!auths.length) {
    note('the description declares no security scheme the model can hold: a Bearer auth stands in; replace it with how the API authenticates');
    auths.push({ comments: ['The description declares no usable security scheme: check how the API authenticates.'], definition: { type: 'Bearer', id: 'bearer', name: 'Access token', arguments: [{ key: 'token', label: 'Access token', dataType: 'String', required: true }], token: '{{token}}' } });
    credentialHeaders.add('authorization');
  }
  return { auths, credentialHeaders, credentialQuery, test: testCredentials(auths[0]!.definition) };
}

function authsFor(name: string, scheme: Obj, scopes: Set<string> | undefined, origin: string, note: (message: string) => void): Commented<AuthDefinition>[] {
  const type = str(scheme.type);
  const id = kebabId(name) || 'auth';
  const title = displayName(humanised(name)) || 'Credentials';
  const text = documentation(str(scheme.description) ?? '');
  const about = text ? { description: text } : {};
  const comments = [`Security scheme ${name} (${type ?? 'no type'}${str(scheme.scheme) ? ` ${str(scheme.scheme)}` : ''}${str(scheme.in) ? ` in ${str(scheme.in)}` : ''}).`];
  if (type === 'apiKey') {
    const where = str(scheme.in);
    const parameterName = str(scheme.name);
    if ((where !== 'header' && where !== 'query') || !parameterName) {
      note(`security scheme ${name}: an API key ${where === 'cookie' ? 'in a cookie' : 'without a header or query name'} cannot be an auth; left out`);
      return [];
    }
    return [{ comments, definition: { type: 'ApiKey', id, name: title, ...about, arguments: [{ key: 'apiKey', label: 'API key', dataType: 'String', required: true }], in: where === 'header' ? 'Header' : 'Query', parameterName, value: '{{apiKey}}' } }];
  }
  if (type === 'http') {
    const kind = str(scheme.scheme)?.toLowerCase();
    if (kind === 'bearer') return [{ comments, definition: { type: 'Bearer', id, name: title, ...about, arguments: [{ key: 'token', label: 'Access token', dataType: 'String', required: true }], token: '{{token}}' } }];
    if (kind === 'basic') {
      const args = [
        { key: 'username', label: 'Username', dataType: 'String' as const, required: true },
        { key: 'password', label: 'Password', dataType: 'String' as const, required: true },
      ];
      return [{ comments, definition: { type: 'Basic', id, name: title, ...about, arguments: args, username: '{{username}}', password: '{{password}}' } }];
    }
    note(`security scheme ${name}: HTTP ${kind ?? 'without a scheme'} authentication is not one the model holds (Bearer, Basic); left out`);
    return [];
  }
  if (type === 'oauth2') {
    const flows = obj(scheme.flows) ?? {};
    const made: Commented<AuthDefinition>[] = [];
    const code = obj(flows.authorizationCode);
    const client = obj(flows.clientCredentials);
    const scopesOf = (flow: Obj) => {
      const listed = Object.keys(obj(flow.scopes) ?? {});
      const wanted = scopes && scopes.size ? [...scopes] : listed.length <= MAX_UNREQUESTED_SCOPES ? listed : [];
      if (!(scopes && scopes.size) && listed.length > MAX_UNREQUESTED_SCOPES) note(`security scheme ${name}: ${listed.length} scopes listed and no operation says which it needs; none asked for: choose them`);
      return wanted.length ? { scopes: wanted } : {};
    };
    if (code) {
      const authorizeUrl = absolute(str(code.authorizationUrl), origin);
      const tokenUrl = absolute(str(code.tokenUrl), origin);
      if (authorizeUrl && tokenUrl) {
        const refresh = absolute(str(code.refreshUrl), origin);
        made.push({ comments, definition: { type: 'OAuth2AuthorizationCode', id, name: title, ...about, authorizeUrl, tokenUrl, ...scopesOf(code), ...(refresh && refresh !== tokenUrl ? { refresh: { enabled: true, url: refresh } } : {}) } });
      } else note(`security scheme ${name}: its authorization code flow lacks an http(s) authorizationUrl or tokenUrl; left out`);
    }
    if (client) {
      const tokenUrl = absolute(str(client.tokenUrl), origin);
      if (tokenUrl) made.push({ comments, definition: { type: 'OAuth2ClientCredentials', id: code ? `${id}-client-credentials` : id, name: code ? `${title} (client credentials)` : title, ...about, tokenUrl, ...scopesOf(client) } });
      else note(`security scheme ${name}: its client credentials flow lacks an http(s) tokenUrl; left out`);
    }
    for (const flow of ['implicit', 'password']) if (flows[flow]) note(`security scheme ${name}: the OAuth 2.0 ${flow} flow is not one the model holds; left out`);
    return made;
  }
  note(`security scheme ${name}: ${type === 'openIdConnect' ? 'OpenID Connect discovery is not read: write an OAuth2AuthorizationCode auth with its authorize and token URLs' : `type ${type ?? '(none)'} is not one the model holds`}; left out`);
  return [];
}

/** The scopes each scheme's requirements name, over the imported operations (their own `security`, else the document's). */
function requestedScopes(document: Obj, operations: OperationInfo[]): Map<string, Set<string>> {
  const result = new Map<string, Set<string>>();
  for (const op of operations) {
    const requirements = Array.isArray(op.operation.security) ? op.operation.security : arr(document.security);
    for (const requirement of requirements) {
      for (const [scheme, list] of entries(requirement)) {
        const set = result.get(scheme) ?? new Set<string>();
        for (const scope of arr(list)) if (typeof scope === 'string' && scope) set.add(scope);
        result.set(scheme, set);
      }
    }
  }
  return result;
}

/** An http(s) URL, a relative one resolved against the API's origin. */
function absolute(url: string | undefined, origin: string): string | undefined {
  if (!url) return undefined;
  try {
    const resolved = new URL(url, `${origin}/`).href;
    return /^https?:\/\/[^\s{}]+$/.test(resolved) ? resolved : undefined;
  } catch {
    return undefined;
  }
}

function testCredentials(auth: AuthDefinition): Auths['test'] {
  switch (auth.type) {
    case 'ApiKey':
      return auth.in === 'Header'
        ? { credentials: { apiKey: 'test-api-key' }, headers: { [auth.parameterName.toLowerCase()]: 'test-api-key' }, query: {} }
        : { credentials: { apiKey: 'test-api-key' }, headers: {}, query: { [auth.parameterName]: 'test-api-key' } };
    case 'Bearer':
      return { credentials: { token: 'test-token' }, headers: { authorization: 'Bearer test-token' }, query: {} };
    case 'Basic':
      return { credentials: { username: 'test-user', password: 'test-password' }, headers: { authorization: `Basic ${Buffer.from('test-user:test-password').toString('base64')}` }, query: {} };
    default:
      return { credentials: { accessToken: 'test-access-token' }, headers: { authorization: 'Bearer test-access-token' }, query: {} };
  }
}
