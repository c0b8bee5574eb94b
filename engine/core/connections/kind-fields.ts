import type { ConnectionSecrets } from '../../tenancy/connections/connections.ts';
import type { AuthEntry } from '../definitions/index.ts';
import type { ExtraField } from './check-values.ts';

/** Values an auth kind keeps besides its own arguments, as a caller gives them on create. */
export const KIND_FIELDS: Record<string, readonly ExtraField[]> = {
  // Importing tokens obtained elsewhere; the usual way in is the connect flow.
  OAuth2AuthorizationCode: [
    { key: 'accessToken', type: 'string', required: true },
    { key: 'refreshToken', type: 'string', required: false },
    { key: 'expiresAt', type: 'string', required: false, format: 'date-time' },
  ],
  OAuth2ClientCredentials: [
    { key: 'clientId', type: 'string', required: true },
    { key: 'clientSecret', type: 'string', required: true },
  ],
};

/**
 * The values of the auth's arguments, as a run fills its host variables: what
 * secretsFrom kept as arguments, plus the kind's own fields (a client-credentials
 * auth's clientId and clientSecret) that the auth also declares as arguments,
 * which are kept once, where the token call reads them.
 */
export function authArgumentValues(auth: AuthEntry, secrets: Readonly<ConnectionSecrets>): Record<string, unknown> {
  const values: Record<string, unknown> = { ...secrets.arguments };
  for (const { key } of KIND_FIELDS[auth.type] ?? []) {
    const kept = (secrets as unknown as Record<string, unknown>)[key];
    if (kept !== undefined && auth.arguments.some((arg) => !arg.parent && arg.key === key)) values[key] = kept;
  }
  return values;
}

