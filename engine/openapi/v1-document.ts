import { OpenApiBuilder, type OpenAPIObject, type OperationObject, type ParameterObject, type SchemaObject } from 'openapi3-ts/oas31';
import type { Config } from '../config/config.ts';
import { errorResponseSchema } from '../errors/schema.ts';
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
    responses: {
      '200': { description: endpoint.response.description, content: { 'application/json': { schema: endpoint.response.schema as SchemaObject } } },
      ...(endpoint.errors ? { default: { $ref: '#/components/responses/Error' } } : {}),
    },
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
