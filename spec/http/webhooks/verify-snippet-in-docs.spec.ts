import { expect } from 'chai';
import fs from 'node:fs/promises';
import path from 'node:path';
import { ROOT } from '../../helpers/process.ts';

/**
 * docs/embedding.md shows the webhook verification snippet a customer copies; the specs run
 * examples/webhooks/verify-signature.mjs. The page must show that file word for word, so what
 * customers copy is what is tested.
 */
describe('the webhook verification snippet in docs/embedding.md', () => {
  it('is examples/webhooks/verify-signature.mjs word for word', async () => {
    const page = await fs.readFile(path.join(ROOT, 'docs/embedding.md'), 'utf8');
    const file = await fs.readFile(path.join(ROOT, 'examples/webhooks/verify-signature.mjs'), 'utf8');
    const section = page.slice(page.indexOf('### Verifying the signature'));
    const block = /```js\n([\s\S]*?)```/.exec(section)?.[1];
    expect(block, 'a ```js block under "Verifying the signature"').to.be.a('string');
    expect(block).to.equal(file);
  });
});
