import type { AppVersion } from '../../core/definitions/index.ts';
import { proxyRulesOf } from '../../core/proxy/proxy-rules.ts';
import type { ToolAnnotations } from './annotations.ts';
import type { ObjectSchema } from './input-schema.ts';
import { toolName } from './tool-name.ts';

/** The methods the request tool sends (the proxy's, less HEAD: an agent wants the body). */
export const REQUEST_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
/** The request tool's arguments, in the order its schema lists them. */
export const REQUEST_ARGUMENTS = ['method', 'path', 'query', 'headers', 'body'] as const;

/** The tool of one app that sends a request of the agent's own through the proxy: its parts before a scope names the accounts. */
export interface RequestToolBase {
  name: string;
  title: string;
  summary: string;
  inputSchema: ObjectSchema;
  annotations: ToolAnnotations;
}

/**
 * `<app>_request`, for an app whose API allows the proxy (api.yaml `proxy`,
 * on unless `false`): any endpoint of the app, for what no action covers.
 * The description gives the base URL the path goes under and the path
 * prefixes api.yaml limits it to. Null when the API does not allow the
 * proxy. When an action of the app is itself slugged `request`, the tool is
 * `<app>_proxy-request`, so the action keeps its name; when that is an
 * action's too, `<app>_proxy-request-2`, `-3`... the first no action has, so
 * the tool is always there (an API key's scope always has it).
 */
export function requestToolOf(version: AppVersion, taken: (name: string) => boolean, baseUrl = version.api.definition.baseUrl): RequestToolBase | null {
  const rules = proxyRulesOf(version.api.definition);
  if (!rules.enabled) return null;
  const app = version.app.name;
  const name = requestToolName(version.app.slug, taken);
  const where = rules.paths === null ? 'any path under it' : `only paths under ${rules.paths.join(', ')}`;
  const summary =
    `Sends one HTTP request of your own to the ${app} API, for what its other tools do not cover: the gateway adds the account's credentials ` +
    `(never send them yourself) and answers the app's status, headers and body. The API's base URL is ${baseUrl}; ` +
    `path is ${where}. Prefer the app's own tools where one fits: they check arguments and shape the answer.`;
  const title = `${app}: any API request`;
  return {
    name,
    title,
    summary,
    inputSchema: {
      type: 'object',
      properties: {
        method: { type: 'string', enum: [...REQUEST_METHODS], description: 'The HTTP method.' },
        path: { type: 'string', minLength: 1, maxLength: 2048, description: 'The path under the API base URL, e.g. /users/42; a query string after ? is kept.' },
        query: { type: 'object', additionalProperties: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] }, description: 'Query parameters, added to the path\'s.' },
        headers: {
          type: 'object',
          additionalProperties: { type: 'string' },
          description: 'Request headers: Accept, Content-Type, If-* and the ones the app names pass; credentials and the rest are left out.',
        },
        body: {
          anyOf: [{ type: 'object', additionalProperties: true }, { type: 'array' }, { type: 'string' }, { type: 'number' }, { type: 'boolean' }],
          description: 'The request body (POST, PUT, PATCH, DELETE): JSON, sent as application/json; a string is sent as it is, with your Content-Type.',
        },
      },
      required: ['method', 'path'],
      additionalProperties: false,
    },
    annotations: { title, readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  };
}

/** `<app>_request`, else `<app>_proxy-request`, else `<app>_proxy-request-2`, `-3`...: the first name no action's tool has. */
export function requestToolName(appSlug: string, taken: (name: string) => boolean): string {
  for (const slug of ['request', 'proxy-request']) {
    const name = toolName(appSlug, slug);
    if (!taken(name)) return name;
  }
  for (let n = 2; ; n++) {
    const name = toolName(appSlug, `proxy-request-${n}`);
    if (!taken(name)) return name;
  }
}
