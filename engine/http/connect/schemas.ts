/** The inputs and answer of the connect flow, as the OpenAPI document shows them. */
export const authorizeQuery = {
  required: ['returnUrl'],
  properties: {
    returnUrl: { type: 'string', minLength: 1, description: 'Where the browser goes when the connection is made (an absolute http(s) URL), with connectionId, or error and error_description, in its query.' },
    authId: { type: 'string', minLength: 1, description: "The OAuth 2.0 auth to use; the app version's default when omitted." },
    endUserId: { type: 'string', minLength: 1, description: "The end user the connection is for (API key only; with an end-user token it is the token's own)." },
    metadata: { type: 'string', description: 'Host variables of the connection as a JSON object, e.g. {"subdomain":"acme"}.' },
  },
} as const;

/** What GET /v2/connect/{appSlug}/authorize answers in `data`. */
export const authorization = {
  type: 'object',
  additionalProperties: false,
  required: ['authorizationUrl', 'expiresAt'],
  properties: {
    authorizationUrl: { type: 'string', description: "Send the browser here: the provider's consent page." },
    expiresAt: { type: 'string', format: 'date-time', description: 'The authorization must be completed before this.' },
  },
} as const;

export const callbackQuery = {
  properties: {
    state: { type: 'string', description: 'The state the gateway sent the provider.' },
    code: { type: 'string', description: 'The authorization code.' },
    error: { type: 'string', description: 'The provider refused: its error code.' },
    error_description: { type: 'string', description: "The provider's words." },
  },
} as const;
