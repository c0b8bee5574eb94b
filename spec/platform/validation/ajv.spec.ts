import { expect } from 'chai';
import { httpAjv, toFieldProblems } from '../../../engine/platform/validation/ajv.ts';

describe('validation problems in the product\'s words (engine/platform/validation/ajv.ts)', () => {
  const problems = (schema: object, value: unknown) => {
    const validate = httpAjv.compile(schema);
    expect(validate(value)).to.equal(false);
    return toFieldProblems(validate.errors ?? [], 'body', value);
  };

  it('names one type with its article, and several as a list a reader can say', () => {
    expect(problems({ type: 'object', properties: { n: { type: 'integer' } } }, { n: 'x' })).to.deep.equal([{ field: 'n', rule: 'type', message: 'must be an integer' }]);
    expect(problems({ type: 'object', properties: { tenant: { type: ['string', 'number', 'boolean'] } } }, { tenant: {} })).to.deep.equal([
      { field: 'tenant', rule: 'type', message: 'must be a string, a number or a boolean' },
    ]);
    expect(problems({ type: 'object', properties: { id: { type: ['string', 'null'] } } }, { id: 1 })).to.deep.equal([{ field: 'id', rule: 'type', message: 'must be a string or null' }]);
  });

  it('writes a path as every other problem does: keys by dots, array items by their index in brackets (a key that is digits stays a key)', () => {
    const schema = { type: 'object', properties: { apps: { type: 'array', items: { type: 'object', properties: { connectionId: { type: 'string' } }, required: ['connectionId'] } }, metadata: { type: 'object', additionalProperties: { type: 'string' } } } };
    expect(problems(schema, { apps: [{ connectionId: 'c' }, {}], metadata: { '0': 1 } })).to.deep.equal([
      { field: 'apps[1].connectionId', rule: 'required', message: 'is required' },
      { field: 'metadata.0', rule: 'type', message: 'must be a string' },
    ]);
  });

  it('names the values an enum allows (the first 20 of a long list, and how many there are), and a constant', () => {
    expect(problems({ type: 'object', properties: { events: { type: 'array', items: { enum: ['connection.created', 'connection.deleted'] } } } }, { events: ['connection.made'] })).to.deep.equal([
      { field: 'events[0]', rule: 'enum', message: 'must be one of "connection.created", "connection.deleted"' },
    ]);
    const many = Array.from({ length: 30 }, (_, i) => `v${i}`);
    const [long] = problems({ enum: many }, 'x');
    expect(long!.message).to.equal(`must be one of ${many.slice(0, 20).map((v) => `"${v}"`).join(', ')}, … (30 in all)`);
    expect(problems({ type: 'object', properties: { kind: { const: 'bearer' } } }, { kind: 'basic' })).to.deep.equal([{ field: 'kind', rule: 'const', message: 'must be "bearer"' }]);
  });
});
