import { expect } from 'chai';
import { camelKey, documentation, humanised, kebabId } from '../../../engine/authoring/import/naming.ts';

describe('import naming', () => {
  it('makes argument keys in camelCase from the names APIs use', () => {
    const keys = ['per_page', 'AccountSid', 'userID', 'created[gte]', 'X-Request-Id', '$filter', 'OAuth2', '123abc'].map(camelKey);
    expect(keys).to.deep.equal(['perPage', 'accountSid', 'userId', 'createdGte', 'xRequestId', 'filter', 'oauth2', 'n123Abc']);
    for (const key of keys) expect(key).to.match(/^[a-z][a-zA-Z0-9]*$/);
  });

  it('makes kebab-case ids from operation ids, at most 100 characters cut at a word', () => {
    expect(['chat_postMessage', 'droplets_list', 'ListAccount', 'registry_list_repositoriesV2', 'OAuth2'].map((n) => kebabId(n))).to.deep.equal([
      'chat-post-message',
      'droplets-list',
      'list-account',
      'registry-list-repositories-v2',
      'oauth2',
    ]);
    const long = kebabId(`get_${'very_'.repeat(30)}long`);
    expect(long.length).to.be.at.most(100);
    expect(long).to.match(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });

  it('writes display names as people read them', () => {
    expect(['listUsers', 'api_key', 'BotToken', 'OAuth2'].map(humanised)).to.deep.equal(['List users', 'API key', 'Bot token', 'OAuth2']);
  });

  it('carries descriptions over without HTML, cut at a sentence within the schema limit', () => {
    expect(documentation('<p>Lists pets.</p><br/>Paged &amp; sorted.')).to.equal('Lists pets.\n\nPaged & sorted.');
    const long = documentation(`${'One sentence. '.repeat(500)}`)!;
    expect(long.length).to.be.at.most(5000);
    expect(long.endsWith('.…')).to.equal(true);
  });
});
