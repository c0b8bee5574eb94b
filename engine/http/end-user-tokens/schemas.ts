/** The JSON Schemas of the token endpoints; the OpenAPI document is built from them. */
export const endUserIdParameter = {
  type: 'string',
  minLength: 1,
  maxLength: 128,
  description: 'The end user id returned by POST /v1/users.',
} as const;

export const endUserTokenResponse = {
  type: 'object',
  additionalProperties: false,
  required: ['token'],
  properties: {
    token: {
      type: 'string',
      pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$',
      description:
        'A JWT (EdDSA/Ed25519, `kid` in the header) for the end user\'s embedded session. Claims: sub (end user id), cid (company id), iss, aud, iat, exp, jti. Verify it with the keys at /.well-known/jwks.json.',
    },
  },
} as const;
