import type { Middleware } from 'koa';
import { refuseUnknownQuery } from '../../../platform/query/list-query.ts';
import { refusesUnknownQuery, type Endpoint } from '../../openapi/endpoint.ts';
import { routedPattern } from '../../openapi/path-pattern.ts';
import type { AppState } from '../context.ts';
import { GatewayError } from '../../../platform/errors/index.ts';

interface QueryRule {
  pattern: RegExp;
  known: readonly string[];
  /** The operation takes a credential (an API key or an end-user token), in the Authorization header only. */
  secured: boolean;
}

/** Names a client puts a token under in a query string (compared in lower case, `-` read as `_`). */
const TOKEN_PARAMETERS = new Set(['access_token', 'token', 'jwt', 'api_key', 'apikey', 'key', 'bearer', 'auth', 'authorization', 'id_token']);

/**
 * The undeclared parameter of a secured operation, asked without an Authorization header, that carries its
 * token: the request has no credential the gateway takes, so it is the 401 saying where the token goes, not
 * a 400 that reads as a misspelt parameter. (The token is in no message and no log line: only its name.)
 */
function tokenInQuery(query: Record<string, unknown>, rule: QueryRule, authorization: string | undefined): string | undefined {
  if (!rule.secured || authorization) return undefined;
  return Object.keys(query).find((name) => !rule.known.includes(name) && TOKEN_PARAMETERS.has(name.toLowerCase().replaceAll('-', '_')));
}

/**
 * A query parameter a documented operation does not declare is 400 VALIDATION_ERROR naming it, on every
 * operation the OpenAPI documents describe (but the proxy's and those that ignore them: refusesUnknownQuery), as
 * the lists always did: a misspelt `limt=5`, or a `ttl=60` the token endpoint never read, is refused, not
 * silently ignored. The rules come from the documents' own endpoint lists, so a parameter is accepted by
 * describing it. A request without a query string (most, and the runs) costs one comparison; a path no
 * operation matches (the pages, /health, /mcp) is left alone.
 */
export function knownQuery(endpoints: readonly Endpoint[]): Middleware<AppState> {
  const byMethod = new Map<string, QueryRule[]>();
  for (const endpoint of endpoints) {
    if (!refusesUnknownQuery(endpoint)) continue;
    // Every form of the path the router serves the operation at (any letter case, one trailing slash): with the
    // template alone, `/v1/users/{id}/token/?ttl=60` was served a token, its ttl silently ignored.
    const rule = { pattern: routedPattern(endpoint.path), known: Object.keys(endpoint.query?.properties ?? {}), secured: endpoint.security !== null };
    const methods = endpoint.method === 'get' ? ['GET', 'HEAD'] : [endpoint.method.toUpperCase()];
    for (const method of methods) byMethod.set(method, [...(byMethod.get(method) ?? []), rule]);
  }
  return (ctx, next) => {
    if (ctx.querystring === '') return next();
    const rules = byMethod.get(ctx.method);
    const path = ctx.path;
    const rule = rules?.find((candidate) => candidate.pattern.test(path));
    if (!rule) return next();
    const inQuery = tokenInQuery(ctx.query, rule, ctx.get('authorization') || undefined);
    if (inQuery !== undefined) {
      throw GatewayError.of(
        'UNAUTHORIZED',
        `the token goes in the Authorization header, not in the query string (${inQuery}): send Authorization: Bearer <token>; a query string is kept in logs, proxies and browser history`,
      );
    }
    refuseUnknownQuery(ctx.query, rule.known);
    return next();
  };
}
