import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { SCHEMAS_DIR } from '../../../engine/core/definitions/schema-validation.ts';

/** Where a schema deliberately allows any property name: header maps, free key-value objects. */
const OPEN_MAPS = new Set([
  'common.schema.json#/$defs/headers',
  'list.schema.json#/$defs/lookup/properties/actionArguments',
  'auth.schema.json#/$defs/oauth2AuthorizationCode/properties/authorizeParams',
  'auth.schema.json#/$defs/oauth2AuthorizationCode/properties/tokenMetadata',
  'auth.schema.json#/$defs/oauth2AuthorizationCode/properties/callbackMetadata',
  'auth.schema.json#/$defs/oauth2AuthorizationCode/properties/postAuthorization/properties/metadata',
  'auth.schema.json#/$defs/credentialExchange/properties/body',
  'auth.schema.json#/$defs/help/properties/translations',
]);

type Schema = Record<string, unknown>;

function* objectSchemas(node: unknown, at: string): Generator<[string, Schema]> {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const [i, child] of node.entries()) yield* objectSchemas(child, `${at}/${i}`);
    return;
  }
  const schema = node as Schema;
  if (schema.type === 'object' || schema.properties) yield [at, schema];
  for (const [key, child] of Object.entries(schema)) {
    if (key === 'examples' || key === 'default' || key === 'const' || key === 'enum') continue;
    yield* objectSchemas(child, `${at}/${key}`);
  }
}

describe('schemas/', () => {
  const files = fs.readdirSync(SCHEMAS_DIR).filter((f) => f.endsWith('.schema.json'));

  it('has one draft 2020-12 schema per definition kind, plus the shared pieces, each with its $id', () => {
    expect(files.sort()).to.deep.equal(['action', 'api', 'app', 'argument', 'auth', 'common', 'list', 'mapping', 'pagination'].map((k) => `${k}.schema.json`));
    for (const file of files) {
      const schema = JSON.parse(fs.readFileSync(path.join(SCHEMAS_DIR, file), 'utf8'));
      expect([schema.$schema, schema.$id]).to.deep.equal(['https://json-schema.org/draft/2020-12/schema', file]);
    }
  });

  it('describes every property and rejects unknown ones', () => {
    const undescribed: string[] = [];
    const open: string[] = [];
    for (const file of files) {
      const root = JSON.parse(fs.readFileSync(path.join(SCHEMAS_DIR, file), 'utf8'));
      for (const [at, schema] of objectSchemas(root, `${file}#`)) {
        for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
          if (typeof property.description !== 'string' || !property.description) undescribed.push(`${at}/properties/${name}`);
        }
        const closed = schema.additionalProperties === false || schema.unevaluatedProperties === false || Array.isArray(schema.oneOf);
        if (!closed && !OPEN_MAPS.has(at)) open.push(at);
      }
    }
    expect(undescribed, 'properties without a description').to.deep.equal([]);
    expect(open, 'object schemas that allow unknown properties').to.deep.equal([]);
  });
});
