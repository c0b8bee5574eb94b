import { fillTemplate, headerText } from '../arguments/index.ts';
import type { ConnectionSecrets } from '../../tenancy/connections/connections.ts';
import type { AuthEntry } from '../definitions/index.ts';
import type { ApiKeyAuth, BasicAuth, BearerAuth, CredentialExchangeAuth, OAuth2AuthorizationCodeAuth, OAuth2ClientCredentialsAuth } from '../definitions/generated/definition-types.ts';
import { secretValues } from '../../platform/secrets/secret-values.ts';
import { validationError, type FieldProblem } from '../../platform/errors/index.ts';
import type { RedirectPolicy } from '../../platform/outbound/index.ts';

/** What an auth adds to a request: headers and query parameters, and what a redirect to another origin must not carry on. */
export interface AppliedAuth {
  headers: Record<string, string>;
  query: Record<string, string>;
  /** The redirect policy of the call: the auth's header and query names, and every secret value it holds, are dropped off-origin. */
  redirect: RedirectPolicy;
  /** Everything secret the connection holds and what the auth made of it (values, objects of them): what must never be answered back (the proxy redacts it). */
  secretSources: readonly unknown[];
}

/**
 * Puts a connection's credentials on a request as its auth definition says.
 * `variables` are the run's host variables (the auth's and API's argument
 * values, end-user metadata as metadata.<field>); `token` is the access
 * token an OAuth 2.0 or credential-exchange auth obtained for this run.
 *
 *   type: ApiKey, in: Header, parameterName: Authorization, value: Bearer {{apiKey}}
 *   -> headers: { authorization: 'Bearer k-123' }
 *
 * `fill` fills the auth's templates: fillTemplate, or a run plan's filler of
 * the same result that splits each template once (engine/core/plan/).
 */
export function applyAuth(auth: AuthEntry, secrets: ConnectionSecrets, variables: Record<string, string>, token: string | undefined, fill: typeof fillTemplate = fillTemplate): AppliedAuth {
  const headers: Record<string, string> = {};
  const query: Record<string, string> = {};
  const credentialHeaders: string[] = [];
  const problems: FieldProblem[] = [];
  const filled = (template: string, where: string) => fill(template, variables, where, problems, headerText);
  const header = (name: string, value: string) => {
    headers[name.toLowerCase()] = value;
    credentialHeaders.push(name.toLowerCase());
  };
  switch (auth.type) {
    case 'ApiKey': {
      const definition = auth.definition as ApiKeyAuth;
      const value = filled(definition.value, `auth ${auth.id}`);
      if (definition.in === 'Header') header(definition.parameterName, value);
      else query[definition.parameterName] = value;
      break;
    }
    case 'Basic': {
      const definition = auth.definition as BasicAuth;
      const pair = `${filled(definition.username, `auth ${auth.id} username`)}:${filled(definition.password, `auth ${auth.id} password`)}`;
      header('authorization', `Basic ${Buffer.from(pair, 'utf8').toString('base64')}`);
      break;
    }
    case 'Bearer': {
      const definition = auth.definition as BearerAuth;
      header('authorization', `Bearer ${filled(definition.token, `auth ${auth.id}`)}`);
      break;
    }
    case 'OAuth2AuthorizationCode':
    case 'OAuth2ClientCredentials': {
      const definition = auth.definition as OAuth2AuthorizationCodeAuth | OAuth2ClientCredentialsAuth;
      header(definition.header ?? 'Authorization', `${definition.prefix ?? 'Bearer '}${token ?? secrets.accessToken ?? ''}`);
      break;
    }
    case 'CredentialExchange': {
      const definition = auth.definition as CredentialExchangeAuth;
      header(definition.header ?? 'Authorization', `${definition.prefix ?? 'Bearer '}${token ?? ''}`);
      break;
    }
  }
  if (problems.length) throw validationError(problems);
  // Everything secret the connection holds, and what the auth made of it, in case the app echoes any of it into a redirect.
  const sources = [Object.values(headers), Object.values(query), token, secrets.arguments, secrets.accessToken, secrets.refreshToken, secrets.clientSecret];
  return { headers, query, redirect: new StripCredentials(credentialHeaders, Object.keys(query), sources), secretSources: sources };
}

/**
 * The redirect policy of an app call (`strip`), whose secret values are
 * worked out (~7 µs: every value in three encodings, sorted) only when a
 * redirect to another origin asks for them, from the values the auth was
 * applied with; a getter of the class, not of an object literal, which would
 * be made anew for every run.
 */
class StripCredentials {
  readonly crossOrigin = 'strip' as const;
  readonly credentialHeaders: string[];
  readonly credentialQuery: string[];
  readonly #sources: unknown[];
  #held: string[] | undefined;

  constructor(credentialHeaders: string[], credentialQuery: string[], sources: unknown[]) {
    this.credentialHeaders = credentialHeaders;
    this.credentialQuery = credentialQuery;
    this.#sources = sources;
  }

  get secrets(): string[] {
    return (this.#held ??= secretValues(...this.#sources));
  }
}
