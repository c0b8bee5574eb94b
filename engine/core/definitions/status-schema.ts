/** One located problem (or warning) as the status route shows it. */
const problemSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['file', 'line', 'column', 'code', 'message'],
  properties: { file: { type: 'string' }, line: { type: 'integer' }, column: { type: 'integer' }, code: { type: 'string' }, message: { type: 'string' } },
} as const;

/** JSON Schema of GET /v2/definitions/status's data (DefinitionsStatus). */
export const definitionsStatusSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['hash', 'loadedAt', 'appCount', 'apps', 'errors', 'errorCount', 'warnings', 'warningCount', 'lastAttempt'],
  properties: {
    hash: { type: ['string', 'null'], description: "The live snapshot's content hash; null until one loads." },
    loadedAt: { type: ['string', 'null'], format: 'date-time' },
    appCount: { type: 'integer', minimum: 0 },
    apps: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'slug', 'published', 'versions', 'draft'],
        properties: {
          id: { type: 'string' },
          slug: { type: 'string' },
          published: { type: ['integer', 'null'] },
          versions: { type: 'array', items: { type: 'integer' } },
          draft: { type: 'boolean' },
        },
      },
    },
    errors: {
      type: 'array',
      description: 'The problems of the latest load attempt (the first 200); empty when it succeeded.',
      items: problemSchema,
    },
    errorCount: { type: 'integer', minimum: 0, description: 'How many problems the latest load attempt had in all.' },
    warnings: {
      type: 'array',
      description: 'The warnings of the latest load attempt (the first 200): located like problems, but they never refuse a load.',
      items: problemSchema,
    },
    warningCount: { type: 'integer', minimum: 0 },
    lastAttempt: {
      type: ['object', 'null'],
      additionalProperties: false,
      required: ['at', 'reason', 'ok', 'hash'],
      properties: { at: { type: 'string', format: 'date-time' }, reason: { type: 'string' }, ok: { type: 'boolean' }, hash: { type: 'string' } },
    },
  },
} as const;
