import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { expect } from 'chai';
import { loadConfig } from '../../engine/config/config.ts';
import { buildV1Document } from '../../engine/http/openapi/v1-document.ts';
import { buildV2Document } from '../../engine/http/openapi/v2-document.ts';
import { templatePattern } from '../../engine/http/openapi/path-pattern.ts';
import { call, type TestGateway } from './gateway.ts';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** The v1 document as the gateway serves it (servers aside, they depend on config). */
export const V1_DOCUMENT = buildV1Document(loadConfig({})) as any;
/** The v2 document: everything else. A path is checked against the document that describes its prefix. */
export const V2_DOCUMENT = buildV2Document(loadConfig({})) as any;

// The document's own schemas, loaded once: responses are checked against exactly what it says.
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(V1_DOCUMENT, 'v1.json');
ajv.addSchema(V2_DOCUMENT, 'v2.json');

const documentOf = (path: string) => (path.startsWith('/v2/') ? { doc: V2_DOCUMENT, id: 'v2.json' } : { doc: V1_DOCUMENT, id: 'v1.json' });

const pointer = (...segments: string[]) => segments.map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** The documented path template a concrete path matches, e.g. /v1/users/eu_1/token -> /v1/users/{userId}/token. */
export function documentedPath(path: string): string | null {
  const bare = path.split('?')[0]!;
  // Literal paths first: /v2/connect/callback is not /v2/connect/{appSlug}/... and a template never shadows a literal.
  const templates = Object.keys(documentOf(bare).doc.paths).sort((a, b) => Number(a.includes('{')) - Number(b.includes('{')));
  for (const template of templates) if (templatePattern(template).test(bare)) return template;
  return null;
}

/**
 * Fails unless this response's status is one the document declares for that
 * operation (`default` does not count: every status a test meets must be
 * named) and its body matches that status's schema, 2xx or not.
 */
export function expectDocumented(method: string, path: string, response: { status: number; body: unknown; headers?: unknown }): void {
  const template = documentedPath(path);
  expect(template, `${method} ${path} is not in the OpenAPI document`).to.be.a('string');
  const { doc, id } = documentOf(path);
  const op = doc.paths[template!][method.toLowerCase()];
  expect(op, `${method} ${template} is not in the OpenAPI document`).to.be.an('object');
  const code = String(response.status);
  // A passthrough operation (the proxy) declares the app's answers by class: 2XX, 4XX...
  const range = `${code[0]}XX`;
  const key = op.responses[code] ? code : op.responses[range] ? range : code;
  let at = ['paths', template!, method.toLowerCase(), 'responses', key];
  let declared = op.responses[key];
  expect(declared, `${method} ${template} does not declare ${response.status} (answered ${String(JSON.stringify(response.body)).slice(0, 300)})`).to.be.an('object');
  if (declared.$ref) {
    at = declared.$ref.slice(2).split('/');
    declared = at.reduce((node: any, key: string) => node[key], doc);
  }
  // The app's own answer through the proxy (Proxy-Status set), or any answer to a HEAD: whatever the app sent.
  const proxied = proxyStatusOf(response.headers) !== undefined;
  if (declared.content?.['*/*'] && (proxied || !declared.content['application/json'])) {
    expect(proxied, `${method} ${path} ${response.status}: an answer of the app carries Proxy-Status`).to.equal(true);
    return;
  }
  if (method.toUpperCase() === 'HEAD') {
    expect(declared.content, `${method} ${template} ${key} declares a body`).to.equal(undefined);
    return;
  }
  if (!declared.content) {
    // A redirect: no body to check.
    expect(response.body, `${method} ${path} ${response.status} sends a body the document does not declare`).to.satisfy((b: unknown) => b === undefined || b === null || b === '' || typeof b === 'string');
    return;
  }
  // A body of another media type (an SVG icon) is text: the schema says it is a string.
  const mediaType = Object.keys(declared.content)[0]!;
  const validate = ajv.getSchema(`${id}#/${pointer(...at, 'content', mediaType, 'schema')}`)!;
  const valid = validate(response.body);
  expect(valid, `${method} ${path} ${response.status} does not match the document: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(response.body).slice(0, 500)}`).to.equal(true);
}

/**
 * The check `call` makes of every answer (spec/helpers/gateway.ts): an
 * answer to an operation one of the documents describes must be documented,
 * status and body. Paths and methods no document describes (`/health`, a 405
 * to an undocumented method) are left to the spec that sent them.
 */
export function expectDocumentedIfDescribed(method: string, path: string, response: { status: number; body: unknown; headers?: unknown }): void {
  const template = documentedPath(path);
  if (!template || !documentOf(path).doc.paths[template][method.toLowerCase()]) return;
  expectDocumented(method, path, response);
}

/** `call`, which checks every described answer, and the check that this path and method are described at all (in the v1 or the v2 document, by the path). */
export async function documentedCall(...args: Parameters<typeof call>): ReturnType<typeof call> {
  const response = await call(...args);
  expectDocumented(args[1], args[2], response);
  return response;
}

/** Every object schema in the document, with where it is. */
export function objectSchemas(node: unknown, at: string[] = [], out: [string, any][] = []): [string, any][] {
  if (Array.isArray(node)) node.forEach((item, i) => objectSchemas(item, [...at, String(i)], out));
  else if (node && typeof node === 'object') {
    const n = node as any;
    // An example's value is data, not a schema.
    if (at[at.length - 2] === 'examples' || at[at.length - 1] === 'examples') return out;
    const type = n.type;
    if (type === 'object' || (Array.isArray(type) && type.includes('object'))) out.push([at.join('/'), n]);
    for (const [key, value] of Object.entries(n)) objectSchemas(value, [...at, key], out);
  }
  return out;
}

export type { TestGateway };

/** The Proxy-Status header of an answer (fetch's Headers or Node's headers object), if any. */
function proxyStatusOf(headers: unknown): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get('proxy-status') ?? undefined;
  const value = (headers as Record<string, unknown>)['proxy-status'];
  return typeof value === 'string' ? value : undefined;
}
