import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { expect } from 'chai';
import { loadConfig } from '../../engine/config/config.ts';
import { buildV1Document } from '../../engine/openapi/v1-document.ts';
import { call, type TestGateway } from './gateway.ts';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** The v1 document as the gateway serves it (servers aside, they depend on config). */
export const V1_DOCUMENT = buildV1Document(loadConfig({})) as any;

// The document's own schemas, loaded once: responses are checked against exactly what it says.
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(V1_DOCUMENT, 'openapi.json');

const pointer = (...segments: string[]) => segments.map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** The documented path template a concrete path matches, e.g. /v1/users/eu_1/token -> /v1/users/{userId}/token. */
export function documentedPath(path: string): string | null {
  const bare = path.split('?')[0]!;
  for (const template of Object.keys(V1_DOCUMENT.paths)) {
    const pattern = new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (pattern.test(bare)) return template;
  }
  return null;
}

/**
 * Fails unless this response's status is one the document declares for that
 * operation (`default` does not count: every status a test meets must be
 * named) and its body matches that status's schema, 2xx or not.
 */
export function expectDocumented(method: string, path: string, response: { status: number; body: unknown }): void {
  const template = documentedPath(path);
  expect(template, `${method} ${path} is not in the OpenAPI document`).to.be.a('string');
  const op = V1_DOCUMENT.paths[template!][method.toLowerCase()];
  expect(op, `${method} ${template} is not in the OpenAPI document`).to.be.an('object');
  const code = String(response.status);
  let at = ['paths', template!, method.toLowerCase(), 'responses', code];
  let declared = op.responses[code];
  expect(declared, `${method} ${template} does not declare ${response.status} (answered ${JSON.stringify(response.body).slice(0, 300)})`).to.be.an('object');
  if (declared.$ref) {
    at = declared.$ref.slice(2).split('/');
    declared = at.reduce((node: any, key: string) => node[key], V1_DOCUMENT);
  }
  const validate = ajv.getSchema(`openapi.json#/${pointer(...at, 'content', 'application/json', 'schema')}`)!;
  const valid = validate(response.body);
  expect(valid, `${method} ${path} ${response.status} does not match the document: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(response.body).slice(0, 500)}`).to.equal(true);
}

/** `call`, then the check that the answer is documented: how the v1 specs talk to the gateway. */
export async function documentedCall(...args: Parameters<typeof call>): ReturnType<typeof call> {
  const response = await call(...args);
  expectDocumented(args[1], args[2], response);
  return response;
}

export type { TestGateway };
