/** The inputs and answer of the connect flow, as the OpenAPI document shows them. */
export const authorizeQuery = {
  required: ['returnUrl'],
  properties: {
    returnUrl: { type: 'string', minLength: 1, description: 'Where the browser goes when the connection is made (an absolute http(s) URL), with connectionId, or error and error_description, in its query.' },
    authId: { type: 'string', minLength: 1, description: "The OAuth 2.0 auth to use; the app version's default when omitted." },
    endUserId: { type: 'string', minLength: 1, description: "The end user the connection is for (API key only; with an end-user token it is the token's own)." },
    confirm: {
      type: 'string',
      enum: ['true', 'false'],
      description:
        "true: the callback stores nothing and redirects with choiceId, a choice of one that POST /v2/connect/choices/{choiceId} (optionId 1) makes, so your backend can first check the browser that came back is the one it sent. Always so with an end-user token; false (the default) with the API key: the callback stores the connection.",
    },
    metadata: { type: 'string', description: 'Host variables of the connection as a JSON object, e.g. {"subdomain":"acme"}: at most 16384 bytes, nested at most 32 levels, without a __proto__ member, a number beyond a double or a string or key that is not well-formed Unicode (a lone surrogate escape such as \\ud800) (as request bodies).' },
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

/** What GET /v2/connect/choices/{choiceId} answers in `data`: the accounts an authorization reaches, to choose one. */
export const choiceView = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'appSlug', 'authId', 'endUserId', 'connectionId', 'expiresAt', 'confirm', 'options'],
  properties: {
    id: { type: 'string', description: 'The pending choice (cho_…), as the callback handed it to the return URL (choiceId).' },
    appSlug: { type: 'string' },
    authId: { type: 'string' },
    endUserId: { type: ['string', 'null'], description: 'The end user the connection is for.' },
    connectionId: { type: ['string', 'null'], description: 'A reconnect: the connection the choice renews; null for a new connection.' },
    expiresAt: { type: 'string', format: 'date-time', description: 'The choice must be made before this (10 minutes after the callback).' },
    confirm: {
      type: 'boolean',
      description:
        "true: the end user's session (end-user token) started this authorization and confirms it, with optionId 1 (the one option: the account the grant reached, or the app's name when the account is not known); the Connect page does it at once. false: the end user chooses one of several accounts.",
    },
    options: {
      type: 'array',
      minItems: 1,
      maxItems: 100,
      description: "The accounts the provider's grant reaches, in its order (the auth's postAuthorization options); one, to confirm, when confirm is true.",
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'label', 'metadata'],
        properties: {
          id: { type: 'string', description: 'What POST /v2/connect/choices/{choiceId} takes as optionId: 1, 2, …' },
          label: { type: 'string', description: 'The name to choose it by (a Xero organisation name, say).' },
          metadata: { type: 'object', additionalProperties: { type: 'string' }, description: 'What the connection keeps of it as host variables (tenantId, …).' },
        },
      },
    },
  },
} as const;

/** The body of POST /v2/connect/choices/{choiceId}. */
export const chooseBody = {
  type: 'object',
  additionalProperties: false,
  required: ['optionId'],
  properties: {
    optionId: { type: 'string', minLength: 1, maxLength: 3, description: 'The id of the chosen option, as GET answered it.' },
  },
} as const;

export interface ChooseBody {
  optionId: string;
}

/** What POST /v2/connect/choices/{choiceId} answers in `data`. */
export const chosenConnection = {
  type: 'object',
  additionalProperties: false,
  required: ['connectionId', 'created'],
  properties: {
    connectionId: { type: 'string', description: 'The connection made (or, for a reconnect, renewed) with the chosen account.' },
    created: { type: 'boolean', description: 'true for a new connection, false for a reconnect.' },
  },
} as const;
