import { expect } from 'chai';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

/**
 * A NUL character (U+0000) in an id of a path, a filter's value or a field a route looks a record up by: the
 * answer is the one any other unknown value gets (404, an empty page, a 400 naming the field), never a 500.
 * PostgreSQL takes no NUL in a text parameter; the store compares such a value as what it is (no text column
 * holds one) and never sends it (spec/platform/store/contract.spec.ts).
 */
describe('NUL in ids, filters and lookups', function () {
  this.timeout(60_000);
  let gw: TestGateway;

  before(async () => {
    gw = await startTestGateway();
  });
  after(() => gw?.stop());

  it('an id holding NUL in a path is unknown: 404 with the id', async () => {
    for (const path of ['/v2/end-users/%00', '/v2/connections/a%00b', '/v2/installations/%00', '/v2/webhooks/%00', '/v1/users/%00/token']) {
      const answer = await call(gw, 'GET', path);
      expect(answer.status, path).to.equal(404);
      expect(answer.body.success, path).to.equal(false);
      expect(answer.body.error.code, path).to.equal('NOT_FOUND');
    }
  });

  it('a filter value holding NUL matches no text field, and matches a metadata value holding it', async () => {
    const ada = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'nul-ada', name: 'Ada', metadata: { code: 'a\u0000b' } } })).body.data.userId;
    await call(gw, 'POST', '/v1/users', { body: { externalId: 'nul-bob', name: 'Bob', metadata: { code: 'ab' } } });
    const ids = async (where: string) => {
      const answer = await call(gw, 'GET', `/v2/end-users?where=${encodeURIComponent(where)}`);
      expect(answer.status, where).to.equal(200);
      return answer.body.data.map((u: { id: string }) => u.id);
    };
    expect(await ids('name=="Ada\u0000"')).to.deep.equal([]);
    expect(await ids('name=like=*\u0000*')).to.deep.equal([]);
    expect(await ids('id=in=("\u0000")')).to.deep.equal([]);
    expect(await ids('metadata.code=="a\u0000b"')).to.deep.equal([ada]);
  });

  it('a lookup field holding NUL: a 400 naming it on a write, a 404 naming the id on a read', async () => {
    const created = await call(gw, 'POST', '/v1/users', { body: { externalId: '\u0000' } });
    expect(created.status).to.equal(400);
    expect(created.body.error.code).to.equal('VALIDATION_ERROR');
    expect(created.body.error.message).to.include('externalId');
    expect(created.body.error.message).to.include('NUL');
    const token = await call(gw, 'GET', '/v1/users/a%00b/token');
    expect(token.status).to.equal(404);
    expect(token.body.error.message).to.equal('no end user a\u0000b in your company');
  });
});
