import { expect } from 'chai';
import fc from 'fast-check';
import { COMPANY_FIELDS } from '../../../engine/tenancy/companies/company-fields.ts';
import { GatewayError } from '../../../engine/platform/errors/index.ts';
import { rsqlToFilter } from '../../../engine/platform/query/rsql-filter.ts';

/**
 * Whatever a client writes in `where`, the answer is a filter or a 400: never
 * an internal error. Built from RSQL's own alphabet so the inputs reach deep
 * into the parser and the position finder, not only its first character.
 */
const pieces = [
  'name', 'memberCount', 'createdOn', 'settings.locale', 'isDeleted', 'description', 'nope',
  '==', '!=', '<', '<=', '>', '>=', '=in=', '=out=', '=like=', '=lt=', '=x=',
  'pro', '12', '1.5', 'true', 'null', '2026-01-01', '2026-01-01T00:00:00Z', '"a b"', "'c;d'", '"\\""', '*', 'a*b',
  ';', ',', '(', ')', ' ', ' and ', ' or ', '=', '!', '~', '"', "'",
];

describe('RSQL where: any input is a filter or a 400', () => {
  it('never throws anything but VALIDATION_ERROR', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 14 }), (parts) => {
        const where = parts.join('');
        try {
          const filter = rsqlToFilter(where, COMPANY_FIELDS);
          expect(filter).to.be.an('object');
        } catch (error) {
          expect(error, `${where}: ${String(error)}`).to.be.instanceOf(GatewayError);
          expect((error as GatewayError).code).to.equal('VALIDATION_ERROR');
        }
      }),
      { numRuns: 3000, seed: 20260101 },
    );
  });

  it('finds the right position for each comparison, wherever quotes and operators are', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('plan==pro', 'name=="x;y,(z)"', "name=in=('a','b c')", 'memberCount>=1'), { maxLength: 6 }), fc.constantFrom(';', ',', ' and ', ' or '), (valid, joiner) => {
        const where = [...valid, 'memberCount==bad'].join(joiner);
        try {
          rsqlToFilter(where, COMPANY_FIELDS);
          expect.fail('expected a rejection');
        } catch (error) {
          const position = where.length - 'bad'.length + 1;
          expect((error as Error).message).to.equal(`where: memberCount must be an integer (got "bad") at position ${position}`);
        }
      }),
      { numRuns: 300, seed: 20260102 },
    );
  });
});
