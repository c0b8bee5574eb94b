import { expect } from 'chai';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

/**
 * A list counts its matches up to 1,000 past the page and stops there: `totalCount` is then that many and
 * `totalCountExact` false (README.md, "The v1 API": `meta.pagination`). Counting every match of a filter a quarter of a million
 * records share cost 20 ms of the database's time a list (docs/benchmarks.md).
 */
describe('list counts stop 1,000 past the page', function () {
  this.timeout(120_000);
  let gw: TestGateway;

  before(async () => {
    gw = await startTestGateway();
    // 1,050 end users: the last 20 in region "ap", the rest in "eu".
    for (let from = 0; from < 1050; from += 25) {
      await Promise.all(
        Array.from({ length: 25 }, (_, i) => {
          const n = from + i;
          return call(gw, 'POST', '/v1/users', { body: { externalId: `count-${n}`, name: `User ${n}`, metadata: { region: n >= 1030 ? 'ap' : 'eu' } } }).then((r) => {
            if (r.status !== 200) throw new Error(`end user ${n}: ${r.status} ${JSON.stringify(r.body)}`);
          });
        }),
      );
    }
  });
  after(() => gw?.stop());

  it('answers totalCount 1,000 past the page, not exact, when more match', async () => {
    const first = await call(gw, 'GET', '/v2/end-users?limit=20');
    expect(first.status).to.equal(200);
    expect(first.body.data).to.have.length(20);
    expect(first.body.meta.pagination).to.deep.equal({ totalCount: 1020, totalCountExact: false, hasNextPage: true, hasPreviousPage: false });
    const later = await call(gw, 'GET', '/v2/end-users?where=metadata.region==eu&limit=5&offset=20');
    // 1,030 in "eu": counted to 20 + 5 + 1,000 = 1,025 and stopped there.
    expect(later.body.meta.pagination).to.deep.equal({ totalCount: 1025, totalCountExact: false, hasNextPage: true, hasPreviousPage: true });
  });

  it('counts exactly while the matches end within 1,000 past the page', async () => {
    const few = await call(gw, 'GET', '/v2/end-users?where=metadata.region==ap&limit=5');
    expect(few.body.meta.pagination).to.deep.equal({ totalCount: 20, totalCountExact: true, hasNextPage: true, hasPreviousPage: false });
    const tail = await call(gw, 'GET', '/v2/end-users?limit=20&offset=1000');
    expect(tail.body.data).to.have.length(20);
    expect(tail.body.meta.pagination).to.deep.equal({ totalCount: 1050, totalCountExact: true, hasNextPage: true, hasPreviousPage: true });
  });
});
