/** The JSON Schema of GET /v1/users; the OpenAPI document is built from it. */
export const listMembersResponse = {
  type: 'object',
  additionalProperties: false,
  required: ['success', 'data'],
  properties: {
    success: { const: true },
    data: {
      type: 'array',
      description: 'Every member of the company, oldest first; no pagination.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['userId', 'name', 'email'],
        properties: {
          userId: { type: 'string', description: 'The person, the same in every company they belong to.' },
          name: { type: 'string' },
          email: { type: 'string', format: 'email' },
        },
      },
    },
  },
} as const;
