/** JSON Schemas of the embedding settings endpoints: requests are validated with them, the OpenAPI document is built from them. */
export const MAX_ALLOWED_ORIGINS = 50;
export const MAX_ENABLED_APPS = 500;
export const MAX_LOGO_URL_LENGTH = 1000;

export const putEmbeddingBody = {
  type: 'object',
  additionalProperties: false,
  required: ['allowedOrigins', 'enabledApps'],
  properties: {
    allowedOrigins: {
      type: 'array',
      maxItems: MAX_ALLOWED_ORIGINS,
      items: { type: 'string', minLength: 1, maxLength: 300 },
      description:
        'The exact browser origins your pages are served from, such as https://app.example.com: scheme, host and optional port, no path, no wildcards; http:// only for localhost and 127.0.0.1. Browsers on these origins may call the end-user endpoints (CORS), and the OAuth returnUrl must be on one of them. Replaces the list whole.',
    },
    enabledApps: {
      type: 'array',
      maxItems: MAX_ENABLED_APPS,
      uniqueItems: true,
      items: { type: 'string', minLength: 1, maxLength: 100 },
      description: 'Slugs of the loaded apps your end users may see and connect themselves (empty: none). Replaces the list whole.',
    },
    endUserProxy: {
      type: 'boolean',
      default: false,
      description:
        "Whether end users may call their own connections' apps directly through /v2/end-user/proxy/{connectionId}/{path} (any endpoint the app's api.yaml allows the proxy, with the connection's credentials applied by the gateway), for the apps in enabledApps only. Off unless set: a PUT without it turns it off.",
    },
    theme: themeSchema('The Connect page\'s look. Omitted: the default (the gateway\'s blue, light).'),
  },
} as const;

/** The Connect page's theme: a primary colour (buttons, links, focus ring), light, dark or the browser's choice, a logo. */
function themeSchema(description: string) {
  return {
    type: 'object',
    additionalProperties: false,
    description,
    properties: {
      primaryColor: { type: ['string', 'null'], pattern: '^#[0-9a-fA-F]{6}$', description: 'A colour as #rrggbb; null: the default. The text on it is white or black, whichever contrasts more.' },
      mode: { enum: ['light', 'dark', 'system'], description: "light (default), dark, or system: the end user's browser setting." },
      logoUrl: {
        type: ['string', 'null'],
        minLength: 1,
        maxLength: MAX_LOGO_URL_LENGTH,
        description:
          "Your logo, shown beside the Connect page's title: an absolute https URL (no user name or password), at most 1000 characters; null: none. The end user's browser loads it from your host, without a Referer (the page's Content-Security-Policy allows https images for it); it is shown at most 3 rem high and 12 rem wide, its proportions kept, and hidden if it does not load.",
      },
    },
  } as const;
}

export interface PutEmbeddingBody {
  allowedOrigins: string[];
  enabledApps: string[];
  endUserProxy?: boolean;
  theme?: { primaryColor?: string | null; mode?: 'light' | 'dark' | 'system'; logoUrl?: string | null };
}

export const themeView = {
  type: 'object',
  additionalProperties: false,
  required: ['primaryColor', 'mode', 'logoUrl'],
  properties: { primaryColor: { type: ['string', 'null'] }, mode: { enum: ['light', 'dark', 'system'] }, logoUrl: { type: ['string', 'null'] } },
} as const;

export const embeddingView = {
  type: 'object',
  additionalProperties: false,
  required: ['allowedOrigins', 'enabledApps', 'endUserProxy', 'updatedOn', 'theme'],
  properties: {
    allowedOrigins: { type: 'array', items: { type: 'string' } },
    enabledApps: { type: 'array', items: { type: 'string' } },
    endUserProxy: { type: 'boolean', description: 'Whether end users may use /v2/end-user/proxy with their own connections (false until set).' },
    updatedOn: { type: ['string', 'null'], format: 'date-time', description: 'null while never set.' },
    theme: themeView,
    warnings: {
      type: 'array',
      description:
        'PUT only: what is saved but will not work as meant. rule oauthNotConfigured: an enabled app signs in only with OAuth and the company has not configured its client (PUT /v2/apps/{slug}/configuration); end users do not see it until then.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['field', 'rule', 'message'],
        properties: { field: { type: 'string' }, rule: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
} as const;
