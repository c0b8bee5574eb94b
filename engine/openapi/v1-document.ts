import {
  OpenApiBuilder,
  type OpenAPIObject,
  type OperationObject,
  type ParameterObject,
  type ResponseObject,
  type ResponsesObject,
  type SchemaObject,
} from 'openapi3-ts/oas31';
import type { Config } from '../config/config.ts';
import { ERROR_STATUS, type KnownErrorCode } from '../errors/index.ts';
import { errorResponseSchema } from '../errors/schema.ts';
import { V1_EXAMPLES } from './v1-examples.ts';
import { V1_ENDPOINTS, type V1Endpoint } from './v1-endpoints.ts';

/**
 * The OpenAPI 3.1 document of the v1 surface, assembled from the same JSON
 * Schemas the handlers validate requests with and tests check responses
 * against, so the description cannot drift from the code.
 */
export function buildV1Document(config: Pick<Config, 'publicBaseUrl' | 'embeddedBaseUrl'>): OpenAPIObject {
  const builder = OpenApiBuilder.create()
    .addOpenApiVersion('3.1.0')
    .addInfo({
      title: 'Integration gateway v1',
      version: '1.0.0',
      description:
        'Embedded end users and their session tokens, company members and profiles, and running app actions with an installation\'s credentials. ' +
        'Every failure answers { success: false, error: { code, message } }.',
    })
    .addServer({ url: config.publicBaseUrl, description: 'Base URL' })
    .addServer({ url: config.embeddedBaseUrl, description: 'Embedded URL: the same /v1 paths for embedded sessions' })
    .addSecurityScheme('apiKey', {
      type: 'http',
      scheme: 'bearer',
      description: 'Authorization: Bearer <API_KEY>. Keep the key on your server.',
    })
    .addSecurityScheme('endUserToken', {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description: 'Authorization: Bearer <END_USER_TOKEN>, the JWT from GET /v1/users/{userId}/token.',
    })
    .addSchema('Error', errorResponseSchema as unknown as SchemaObject)
    .addResponse('Error', {
      description: 'The request failed; error.code says why (see the README for codes and statuses).',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    });
  for (const tag of new Set(V1_ENDPOINTS.map((e) => e.tag))) builder.addTag({ name: tag });

  const paths = new Map<string, Record<string, OperationObject>>();
  for (const endpoint of V1_ENDPOINTS) {
    const item = paths.get(endpoint.path) ?? {};
    item[endpoint.method] = operation(endpoint);
    paths.set(endpoint.path, item);
  }
  for (const [path, item] of paths) builder.addPath(path, item);
  return builder.getSpec();
}

function operation(endpoint: V1Endpoint): OperationObject {
  const parameters: ParameterObject[] = [
    ...Object.entries(endpoint.pathParameters ?? {}).map(([name, schema]) => parameter(name, 'path', schema, true)),
    ...Object.entries(endpoint.query?.properties ?? {}).map(([name, schema]) =>
      parameter(name, 'query', schema, endpoint.query?.required?.includes(name) ?? false),
    ),
  ];
  const op: OperationObject = {
    operationId: endpoint.operationId,
    tags: [endpoint.tag],
    summary: endpoint.summary,
    description: endpoint.description,
    security: endpoint.security ? [{ [endpoint.security]: [] }] : [],
    responses: responses(endpoint),
  };
  if (parameters.length) op.parameters = parameters;
  if (endpoint.body) op.requestBody = { required: true, content: { 'application/json': { schema: endpoint.body as SchemaObject } } };
  return op;
}

/** A parameter takes its description from its schema, where the handler's validation keeps it too. */
function parameter(name: string, location: 'path' | 'query', schema: Record<string, unknown>, required: boolean): ParameterObject {
  const { description, ...rest } = schema as { description?: string };
  return { name, in: location, required, ...(description ? { description } : {}), schema: rest as SchemaObject };
}

/**
 * Every status the operation answers, each with the body it really sends:
 * 200; the envelope where the run answers it (429, and 502 alongside the
 * error shape); the error shape, `error.code` limited to that status's codes;
 * and `default`, the error shape, for anything else.
 */
function responses(endpoint: V1Endpoint): ResponsesObject {
  const examples = V1_EXAMPLES[endpoint.operationId] ?? {};
  const byStatus = new Map<string, KnownErrorCode[]>();
  for (const code of endpoint.errorCodes) {
    const status = String(ERROR_STATUS[code]);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const statuses = [...new Set(['200', ...byStatus.keys(), ...Object.keys(endpoint.envelopeStatuses ?? {})])].sort();
  const out: ResponsesObject = {};
  for (const status of statuses) {
    const codes = byStatus.get(status);
    const envelope = endpoint.envelopeStatuses?.[status];
    const errorShape = codes ? errorSchema(codes) : undefined;
    let schema: SchemaObject;
    let description: string;
    if (status === '200') {
      schema = endpoint.response.schema as SchemaObject;
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
    const response: ResponseObject = {
      description,
      content: { 'application/json': { schema, ...(named ? { examples: Object.fromEntries(Object.entries(named).map(([name, value]) => [name, { value }])) } : {}) } },
    };
    out[status] = response;
  }
  if (endpoint.errorCodes.length) out.default = { $ref: '#/components/responses/Error' };
  return out;
}

/** The error shape with `error.code` limited to the given codes (written out whole, so a generator types code as their union). */
function errorSchema(codes: readonly string[]): SchemaObject {
  const shape = structuredClone(errorResponseSchema) as unknown as { properties: { error: { properties: { code: Record<string, unknown> } } } };
  const { examples: _examples, ...code } = shape.properties.error.properties.code;
  shape.properties.error.properties.code = { ...code, enum: [...codes] };
  return shape as unknown as SchemaObject;
}
