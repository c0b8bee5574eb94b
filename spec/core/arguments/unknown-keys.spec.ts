import { expect } from 'chai';
import { unknownKeys } from '../../../engine/core/arguments/build-request.ts';
import { argumentTree } from '../../../engine/core/arguments/argument-tree.ts';
import type { ActionEntry } from '../../../engine/core/definitions/snapshot.ts';
import { problemsNotListed, validationError } from '../../../engine/platform/errors/index.ts';

describe('unknown argument keys: the first 100 are built as problems, the rest counted', () => {
  const action = { id: 'list-orders', arguments: [{ key: 'status', dataType: 'String', location: 'Query' }] } as unknown as ActionEntry;
  const nodes = argumentTree(action.arguments);
  const keys = ['status', ...Array.from({ length: 85_000 }, (_, i) => `k${i}`)];

  it('85,000 unknown keys make 100 problems and a count of 84,900 (a problem was built for each, to list 100)', () => {
    const { problems, notBuilt } = unknownKeys(action, nodes, keys, false);
    expect(problems).to.have.length(100);
    expect(problems[0]).to.deep.equal({ field: 'k0', rule: 'unknown', message: 'is not an argument of action list-orders (its arguments: status)' });
    expect(problems[99]!.field).to.equal('k99');
    expect(notBuilt).to.equal(84_900);
  });

  it('the VALIDATION_ERROR lists those and counts the rest, as when every problem was built', () => {
    const { problems, notBuilt } = unknownKeys(action, nodes, keys, false);
    const error = validationError([...problems, { field: 'status', rule: 'option', message: 'must be one of open, paid' }], notBuilt);
    expect(error.message).to.match(/^k0: is not an argument of action list-orders \(its arguments: status\); k1: /);
    expect(error.message).to.match(/; k99: is not an argument of action list-orders \(its arguments: status\); and 84901 more problems \(the first 100 are listed\)$/);
    expect((error.details as { problems: unknown[] }).problems).to.have.length(100);
    expect(problemsNotListed(error)).to.equal(84_901);
    expect(problemsNotListed(validationError(problems.slice(0, 3)))).to.equal(0);
  });
});
