import {
  OpenApiBuilder,
  type InfoObject,
  type OpenAPIObject,
  type OperationObject,
  type ParameterObject,
  type ResponseObject,
  type ResponsesObject,
  type SecurityRequirementObject,
  type SchemaObject,
  type ServerObject,
} from 'openapi3-ts/oas31';
import { ERROR_STATUS, type KnownErrorCode } from '../../platform/errors/index.ts';
import { errorResponseSchema } from '../../platform/errors/schema.ts';
import { refusesUnknownQuery, type Endpoint } from './endpoint.ts';

/** Real answers by operationId, status and example name. */
export type Examples = Record<string, Record<string, Record<string, unknown>>>;

/**
 * An OpenAPI 3.1 document of these endpoints, assembled from the same JSON
 * Schemas the handlers validate requests with and answer with, so the
 * description cannot drift from the code. The v1 and v2 documents are both
 * built here: one way to describe an operation.
 */
export function buildDocument(info: InfoObject, servers: ServerObject[], endpoints: readonly Endpoint[], examples: Examples = {}): OpenAPIObject {
  const builder = OpenApiBuilder.create().addOpenApiVersion('3.1.0').addInfo(info);
  for (const server of servers) builder.addServer(server);
  const schemes = new Set(endpoints.flatMap((e) => (e.security === 'apiKeyOrEndUserToken' ? ['apiKey', 'endUserToken'] : e.security ? [e.security] : [])));
  if (schemes.has('apiKey')) {
    builder.addSecurityScheme('apiKey', { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API_KEY>. Keep the key on your server.' });
  }
  if (schemes.has('endUserToken')) {
    builder.addSecurityScheme('endUserToken', {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description: 'Authorization: Bearer <END_USER_TOKEN>, the JWT from GET /v1/users/{userId}/token.',
    });
  }
  builder.addSchema('Error', errorResponseSchema as unknown as SchemaObject).addResponse('Error', {
    description: 'The request failed; error.code says why (see the README for codes and statuses).',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  });
  for (const tag of new Set(endpoints.map((e) => e.tag))) builder.addTag({ name: tag });

  const paths = new Map<string, Record<string, OperationObject>>();
  for (const endpoint of endpoints) {
    const item = paths.get(endpoint.path) ?? {};
    item[endpoint.method] = operation(endpoint, examples[endpoint.operationId] ?? {});
    paths.set(endpoint.path, item);
  }
  for (const [path, item] of paths) builder.addPath(path, item);
  return builder.getSpec();
}

function operation(endpoint: Endpoint, examples: Examples[string]): OperationObject {
  const parameters: ParameterObject[] = [
    ...Object.entries(endpoint.pathParameters ?? {}).map(([name, schema]) => parameter(name, 'path', schema, true)),
    ...Object.entries(endpoint.headers ?? {}).map(([name, schema]) => parameter(name, 'header', schema, false)),
    ...Object.entries(endpoint.query?.properties ?? {}).map(([name, schema]) =>
      parameter(name, 'query', schema, endpoint.query?.required?.includes(name) ?? false),
    ),
  ];
  const security: SecurityRequirementObject[] =
    endpoint.security === 'apiKeyOrEndUserToken' ? [{ apiKey: [] }, { endUserToken: [] }] : endpoint.security ? [{ [endpoint.security]: [] }] : [];
  const op: OperationObject = {
    operationId: endpoint.operationId,
    tags: [endpoint.tag],
    summary: endpoint.summary,
    description: endpoint.description,
    security,
    responses: endpoint.passthrough ? passthroughResponses(endpoint, endpoint.passthrough.response) : responses(endpoint, examples),
  };
  if (parameters.length) op.parameters = parameters;
  if (endpoint.body) {
    op.requestBody = { required: endpoint.bodyRequired ?? true, content: { 'application/json': { schema: endpoint.body as SchemaObject } } };
  }
  if (endpoint.passthrough?.request) op.requestBody = { required: false, description: endpoint.passthrough.request, content: { '*/*': { schema: {} } } };
  return op;
}

/** The header on every answer that is the app's own (RFC 9209), never on the gateway's refusals. */
const PROXY_STATUS = {
  'Proxy-Status': { description: "On the app's own answers only: `integration-gateway; received-status=<the app's status>`.", schema: { type: 'string' } },
} as const;

/**
 * A passthrough operation's answers: any status in each class is the app's
 * own (any type, Proxy-Status set); the statuses the gateway refuses with
 * carry either its error shape (no Proxy-Status) or the app's answer.
 */
function passthroughResponses(endpoint: Endpoint, appAnswer: string): ResponsesObject {
  const anyBody = endpoint.method === 'head' ? {} : { content: { '*/*': { schema: {} } } };
  const out: ResponsesObject = {};
  for (const range of ['2XX', '3XX', '4XX', '5XX']) out[range] = { description: appAnswer, headers: PROXY_STATUS, ...anyBody };
  const byStatus = new Map<string, KnownErrorCode[]>();
  for (const code of endpoint.errorCodes) byStatus.set(String(ERROR_STATUS[code]), [...(byStatus.get(String(ERROR_STATUS[code])) ?? []), code]);
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a.localeCompare(b))) {
    out[status] = {
      description: `The gateway refused or failed (no Proxy-Status): the error shape, ${codes.join(', ')} (see the README for when). Or the app's own ${status} (Proxy-Status names it), as it came.`,
      headers: PROXY_STATUS,
      // A HEAD answer has no body, the gateway's refusals included.
      ...(endpoint.method === 'head' ? {} : { content: { 'application/json': { schema: errorSchema(codes) }, '*/*': { schema: {} } } }),
    };
  }
  out.default = { $ref: '#/components/responses/Error' };
  return out;
}

/** A parameter takes its description from its schema, where the handler's validation keeps it too. */
function parameter(name: string, location: 'path' | 'query' | 'header', schema: Record<string, unknown>, required: boolean): ParameterObject {
  const { description, ...rest } = schema as { description?: string };
  return { name, in: location, required, ...(description ? { description } : {}), schema: rest as SchemaObject };
}

/** The error codes answered with a Retry-After header (errors middleware: details.retryAfterSeconds), and when. */
const RETRY_AFTER = new Map<KnownErrorCode, string>([
  ['UPSTREAM_BUSY', 'always'],
  ['AUTH_PROVIDER_UNAVAILABLE', 'when the provider sent one'],
  ['RATE_LIMITED', 'always'],
]);

/** When a run's envelope 429 carries Retry-After (run-action.ts: RunOutcome.retryAfterSeconds). */
const RUN_RATE_LIMITED_WAIT = "when the app said how long to wait (its Retry-After, or the reset header api.yaml's retry declares), in whole seconds rounded up";

/**
 * Every status the operation answers, each with the body it really sends:
 * its success status; the envelope where a run answers it (429, and 502
 * alongside the error shape); the error shape, `error.code` limited to that
 * status's codes; and `default`, the error shape, for anything else.
 */
function responses(endpoint: Endpoint, examples: Examples[string]): ResponsesObject {
  const success = endpoint.response.status ?? '200';
  const byStatus = new Map<string, KnownErrorCode[]>();
  // An operation's codes are gathered from shared lists (JSON_BODY, RUN, …) that overlap: each code once.
  // An operation that refuses a query parameter it does not declare answers 400 VALIDATION_ERROR for it (known-query.ts).
  for (const code of new Set([...endpoint.errorCodes, ...(refusesUnknownQuery(endpoint) ? (['VALIDATION_ERROR'] as const) : [])])) {
    const status = String(ERROR_STATUS[code]);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const statuses = [...new Set([success, ...byStatus.keys(), ...Object.keys(endpoint.envelopeStatuses ?? {})])].sort();
  const out: ResponsesObject = {};
  for (const status of statuses) {
    const codes = byStatus.get(status);
    const envelope = endpoint.envelopeStatuses?.[status];
    const errorShape = codes ? errorSchema(codes) : undefined;
    let schema: SchemaObject | undefined;
    let description: string;
    if (status === success) {
      schema = endpoint.response.schema as SchemaObject | undefined;
      description = endpoint.response.description;
    } else if (envelope && errorShape) {
      schema = {
        description: 'Either the envelope (it has data and meta; meta.error.code is MAPPING_ERROR) or the error shape (it has error instead): exactly one matches.',
        oneOf: [endpoint.response.schema as SchemaObject, errorShape],
      };
      description = `${envelope} Otherwise the error shape: ${codes!.join(', ')}.`;
    } else if (envelope) {
      schema = endpoint.response.schema as SchemaObject;
      description = envelope;
    } else {
      schema = errorShape!;
      description = `The error shape: ${codes!.join(', ')} (see the README for when).`;
    }
    const named = examples[status];
    const response: ResponseObject = { description };
    const waits = (codes?.filter((code) => RETRY_AFTER.has(code)) ?? []).map((code) => `${code} ${RETRY_AFTER.get(code)}`);
    // A run's envelope 429 (rate-limit retries gave up) passes on the wait the app asked for.
    if (envelope && status === '429') waits.push(RUN_RATE_LIMITED_WAIT);
    if (waits.length) {
      response.headers = { 'Retry-After': { description: `Seconds to wait before trying again: ${waits.join('; ')}.`, schema: { type: 'integer', minimum: 0 } } };
    }
    if (schema) {
      const mediaType = status === success ? (endpoint.response.mediaType ?? 'application/json') : 'application/json';
      response.content = {
        [mediaType]: { schema, ...(named ? { examples: Object.fromEntries(Object.entries(named).map(([name, value]) => [name, { value }])) } : {}) },
      };
    } else if (success === '302') {
      response.headers = { Location: { description: 'Where the browser goes next.', required: true, schema: { type: 'string' } } };
    }
    out[status] = response;
  }
  if (endpoint.errorCodes.length || refusesUnknownQuery(endpoint)) out.default = { $ref: '#/components/responses/Error' };
  return out;
}

/** The error shape with `error.code` limited to the given codes (written out whole, so a generator types code as their union). */
function errorSchema(codes: readonly string[]): SchemaObject {
  const shape = structuredClone(errorResponseSchema) as unknown as { properties: { error: { properties: { code: Record<string, unknown> } } } };
  const { examples: _examples, ...code } = shape.properties.error.properties.code;
  shape.properties.error.properties.code = { ...code, enum: [...codes] };
  return shape as unknown as SchemaObject;
}
