import type { FieldProblem } from '../../platform/errors/index.ts';
import { headerText, placeholderNames } from '../arguments/host-variables.ts';
import type { AppVersion, AuthEntry } from '../definitions/index.ts';
import type { ApiKeyAuth, BearerAuth, CredentialExchangeAuth, OAuth2AuthorizationCodeAuth, OAuth2ClientCredentialsAuth } from '../definitions/generated/definition-types.ts';

/**
 * Credentials and metadata that every run would put in a header, holding a character beyond Latin-1 (U+00FF),
 * which no HTTP/1.1 header carries (a key pasted with typographic quotes): each a problem naming the field and
 * the header, so such a connection is refused where it is given, not stored to fail every run. A value goes in a
 * header when the API's `headers`, an ApiKey auth `in: Header` or a Bearer auth's `token` name it in a
 * placeholder, when its argument's `location` is Header, or when it is the access token an OAuth 2.0 (or
 * credential-exchange) auth sends. Line breaks and other control characters are the `control` rule's
 * (credentialProblems), not repeated here.
 */
export function headerValueProblems(version: AppVersion, auth: AuthEntry, credentials: Record<string, unknown>, metadata: Record<string, unknown>): FieldProblem[] {
  const headerOf = new Map<string, string>();
  const named = (template: string | undefined, header: string) => {
    for (const name of placeholderNames(template ?? '')) if (!headerOf.has(name)) headerOf.set(name, header);
  };
  for (const [header, template] of Object.entries(version.api.headers)) named(template, header);
  for (const arg of [...version.api.arguments, ...auth.arguments]) if (arg.location === 'Header' && !arg.parent && !headerOf.has(arg.key)) headerOf.set(arg.key, arg.externalKey ?? arg.key);
  switch (auth.type) {
    case 'ApiKey': {
      const definition = auth.definition as ApiKeyAuth;
      if (definition.in === 'Header') named(definition.value, definition.parameterName);
      break;
    }
    case 'Bearer':
      named((auth.definition as BearerAuth).token, 'Authorization');
      break;
    case 'OAuth2AuthorizationCode':
    case 'OAuth2ClientCredentials':
    case 'CredentialExchange':
      headerOf.set('accessToken', (auth.definition as OAuth2AuthorizationCodeAuth | OAuth2ClientCredentialsAuth | CredentialExchangeAuth).header ?? 'Authorization');
      break;
  }
  const problems: FieldProblem[] = [];
  for (const [name, header] of headerOf) {
    const [field, value] = Object.hasOwn(credentials, name) ? [`credentials.${name}`, credentials[name]] : Object.hasOwn(metadata, name) ? [`metadata.${name}`, metadata[name]] : [null, undefined];
    if (field === null || typeof value !== 'string') continue;
    const checked = headerText(value);
    if (checked !== null && typeof checked === 'object') {
      problems.push({ field, rule: 'header', message: `is sent in a header (${header}), so it must be Latin-1 text (no character beyond U+00FF, such as typographic quotes or a euro sign)` });
    }
  }
  return problems;
}
