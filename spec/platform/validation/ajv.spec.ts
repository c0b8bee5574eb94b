import { expect } from 'chai';
import { httpAjv, toFieldProblems } from '../../../engine/platform/validation/ajv.ts';

describe('validation problems in the product\'s words (engine/platform/validation/ajv.ts)', () => {
  const problems = (schema: object, value: unknown) => {
    const validate = httpAjv.compile(schema);
    expect(validate(value)).to.equal(false);
    return toFieldProblems(validate.errors ?? [], 'body');
  };

  it('names one type with its article, and several as a list a reader can say', () => {
    expect(problems({ type: 'object', properties: { n: { type: 'integer' } } }, { n: 'x' })).to.deep.equal([{ field: 'n', rule: 'type', message: 'must be an integer' }]);
    expect(problems({ type: 'object', properties: { tenant: { type: ['string', 'number', 'boolean'] } } }, { tenant: {} })).to.deep.equal([
      { field: 'tenant', rule: 'type', message: 'must be a string, a number or a boolean' },
    ]);
    expect(problems({ type: 'object', properties: { id: { type: ['string', 'null'] } } }, { id: 1 })).to.deep.equal([{ field: 'id', rule: 'type', message: 'must be a string or null' }]);
  });
});
