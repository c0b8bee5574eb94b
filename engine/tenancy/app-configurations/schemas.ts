/** JSON Schema of PUT /v2/apps/{appSlug}/configuration. */
const httpsUrl = { type: 'string', format: 'uri', pattern: '^https?://', maxLength: 2000 } as const;

export const putAppConfigurationBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    clientId: { type: 'string', minLength: 1, maxLength: 500, description: "Your OAuth 2.0 client id at the app's provider; one with a control character is 400 (rule pattern)." },
    clientSecret: { type: 'string', minLength: 1, maxLength: 2000, description: 'Your OAuth 2.0 client secret. Stored encrypted; never returned. Omit to keep the stored one.' },
    redirectUri: { ...httpsUrl, description: "The redirect URI registered with the provider; the gateway's /v2/connect/callback on PUBLIC_BASE_URL when omitted." },
    exchangeUrl: { ...httpsUrl, description: 'Credential exchange: your endpoint the gateway POSTs {integrationId, installationId, endUserId} to. An address the egress policy refuses (EGRESS_ALLOW; loopback, private, link-local, metadata) is 400 (rule egress); a host name is checked when each exchange resolves it.' },
    exchangeSecret: { type: 'string', minLength: 16, maxLength: 500, description: 'Credential exchange: the shared secret of the X-Signature HMAC. Stored encrypted; never returned. Omit to keep the stored one.' },
  },
} as const;

export interface PutAppConfigurationBody {
  clientId?: string;
  clientSecret?: string;
  redirectUri?: string;
  exchangeUrl?: string;
  exchangeSecret?: string;
}

/** The sealed part of an app configuration. */
export interface AppConfigurationSecrets {
  clientSecret?: string;
  exchangeSecret?: string;
}

/** What the API answers for an app configuration: the secrets only as whether they are set. */
export const appConfigurationView = {
  type: 'object',
  additionalProperties: false,
  required: ['appSlug', 'clientId', 'hasClientSecret', 'redirectUri', 'exchangeUrl', 'hasExchangeSecret', 'createdOn', 'updatedOn'],
  properties: {
    appSlug: { type: 'string' },
    clientId: { type: ['string', 'null'] },
    hasClientSecret: { type: 'boolean' },
    redirectUri: { type: ['string', 'null'] },
    exchangeUrl: { type: ['string', 'null'] },
    hasExchangeSecret: { type: 'boolean' },
    createdOn: { type: 'string', format: 'date-time' },
    updatedOn: { type: 'string', format: 'date-time' },
  },
} as const;
