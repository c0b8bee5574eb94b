import fs from 'node:fs/promises';
import { expect } from 'chai';
import { GENERATED_FILE, generateDefinitionTypes } from '../../../scripts/gen-types.ts';

describe('generated definition types', () => {
  it('are current with schemas/ (run `npm run gen:types` after changing a schema)', async () => {
    const committed = await fs.readFile(GENERATED_FILE, 'utf8');
    expect(committed === (await generateDefinitionTypes()), 'engine/core/definitions/generated/definition-types.ts is stale: run npm run gen:types').to.equal(true);
  });
});
