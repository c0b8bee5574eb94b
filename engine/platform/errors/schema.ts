/**
 * The JSON Schema of every failure's body, `{ success: false, error }`: the
 * `default` response of each documented endpoint.
 */
export const errorResponseSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['success', 'error'],
  properties: {
    success: { const: false },
    error: {
      type: 'object',
      additionalProperties: false,
      required: ['code', 'message'],
      properties: {
        code: {
          type: 'string',
          description: 'A stable code; the README lists them with their HTTP status.',
          examples: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'NOT_FOUND'],
        },
        message: { type: 'string', description: 'What went wrong, for a person to read.' },
        details: {
          type: 'object',
          description: 'More about the failure: VALIDATION_ERROR carries one problem per field; others say more (UPSTREAM_TIMEOUT its phase, MAPPING_ERROR where and why).',
          additionalProperties: { description: 'Any JSON value.' },
          properties: {
            problems: {
              type: 'array',
              items: {
                type: 'object',
                additionalProperties: false,
                required: ['field', 'rule', 'message'],
                properties: {
                  field: { type: 'string', description: 'The field or parameter, e.g. metadata or where.' },
                  rule: { type: 'string', description: 'The rule it broke, e.g. type, required, rsql.' },
                  message: { type: 'string' },
                },
              },
            },
          },
        },
      },
    },
  },
} as const;
