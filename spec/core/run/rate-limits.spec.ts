import { expect } from 'chai';
import path from 'node:path';
import { parseReset } from '../../../engine/core/run/rate-limit.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { documentedCall, V1_DOCUMENT, V2_DOCUMENT } from '../../helpers/openapi.ts';
import { ROOT } from '../../helpers/process.ts';
import { definitionsFor, Upstream, type Reply } from '../../helpers/upstream.ts';

const FIXTURE = path.join(ROOT, 'spec/fixtures/rate-limit');
const REQUEST_TIMEOUT_MS = 2500;

/**
 * The API-level rate-limit declaration (api.yaml `retry`): which answers
 * are rate limits (`when`), which are not worth retrying (`giveUpWhen`),
 * where the wait comes from (Retry-After, else `resetHeader`), and the
 * bound on a whole run's waiting (`budgetMs`, never beyond REQUEST_TIMEOUT_MS).
 * Apps in spec/fixtures/rate-limit: limited (as GitHub), daily (as HubSpot),
 * budget (as Slack).
 */
describe('rate limits declared by the API (api.yaml retry)', function () {
  this.timeout(30_000);
  const upstream = new Upstream();
  let gw: TestGateway;
  let cleanupDefs: () => Promise<void>;
  const connections: Record<string, string> = {};
  const run = (app: string, action = 'list-things') =>
    documentedCall(gw, 'POST', `/v2/universal/apps/${app}/actions/${action}/run`, { body: { connectionId: connections[app], arguments: {} } });
  const unixSeconds = (fromNowMs: number) => String(Math.ceil((Date.now() + fromNowMs) / 1000));

  before(async () => {
    await upstream.start();
    const defs = await definitionsFor(FIXTURE, upstream.url);
    cleanupDefs = defs.cleanup;
    gw = await startTestGateway({ DEFINITIONS_DIR: defs.dir, EGRESS_ALLOW: '127.0.0.1/32', REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) });
    for (const app of ['limited', 'daily', 'budget', 'broken', 'broken-giveup']) {
      connections[app] = (await documentedCall(gw, 'POST', '/v2/connections', { body: { appSlug: app, credentials: { apiKey: 'k' } } })).body.data.id;
    }
  });
  after(async () => {
    await gw.stop();
    await upstream.stop();
    await cleanupDefs();
  });
  afterEach(() => upstream.reset());

  describe('when: which answers are rate limits', () => {
    it('retries a 403 with x-ratelimit-remaining 0, the API says so once for every action, waiting until x-ratelimit-reset', async () => {
      let calls = 0;
      let retriedAt = 0;
      const reset = unixSeconds(1000);
      upstream.on('GET /api/limited/things', () => {
        if (++calls === 1) return { status: 403, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset }, body: { message: 'API rate limit exceeded' } };
        retriedAt = Date.now();
        return { body: [{ id: 1 }] };
      });
      const { status, body } = await run('limited');
      expect(status).to.equal(200);
      expect(body).to.deep.include({ success: true, data: [{ id: 1 }] });
      expect(body.meta.retries).to.equal(1);
      // The wait came from the reset time (one to two seconds away), not from delayMs (10 ms).
      expect(retriedAt).to.be.at.least(Number(reset) * 1000 - 50);
    });

    it('does not retry a 403 that is no rate limit (a permission error): the failure is answered at once, with its appError', async () => {
      upstream.on('GET /api/limited/things', () => ({ status: 403, headers: { 'x-ratelimit-remaining': '4999' }, body: { message: 'Resource not accessible by integration' } }));
      const { status, body } = await run('limited');
      expect(status).to.equal(200);
      expect(body.success).to.equal(false);
      expect(body.meta).to.include({ retries: 0 });
      expect(body.meta.tooManyRequests).to.not.equal(true);
      expect(body.meta.appError).to.deep.equal({ status: 403, code: 'HTTP_403', message: 'Resource not accessible by integration' });
      expect(upstream.calls('GET /api/limited/things')).to.have.length(1);
    });

    it("adds an action mapping's meta.tooManyRequests true to the API's when, and a mapping's false does not stop a declared rate limit", async () => {
      // The mapping's own signal (slowDown in a 200) is a rate limit the API's when does not know.
      let calls = 0;
      upstream.on('GET /api/limited/things', () => (++calls === 1 ? { status: 200, body: { slowDown: true } } : { status: 200, body: [{ id: 't1' }] }));
      const flagged = await run('limited', 'list-flagged');
      expect(flagged.body).to.deep.include({ success: true, data: [{ id: 't1' }] });
      expect(flagged.body.meta.retries).to.equal(1);
      upstream.reset();
      // Its false on a 403 with no requests left (the API's when) does not veto the retry: the flag is computed for slowDown, not for this.
      calls = 0;
      upstream.on('GET /api/limited/things', () => (++calls === 1 ? { status: 403, headers: { 'x-ratelimit-remaining': '0' }, body: { message: 'API rate limit exceeded' } } : { status: 200, body: [{ id: 't2' }] }));
      const declared = await run('limited', 'list-flagged');
      expect(declared.body).to.deep.include({ success: true, data: [{ id: 't2' }] });
      expect(declared.body.meta.retries).to.equal(1);
    });
  });

  describe('where the wait comes from', () => {
    it('gives up at once (429) when the reset is further away than retryAfterCapMs, rather than wait', async () => {
      upstream.on('GET /api/limited/things', () => ({ status: 403, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': unixSeconds(3_600_000) }, body: { message: 'API rate limit exceeded' } }));
      const started = Date.now();
      const { status, headers, body } = await run('limited');
      expect(status).to.equal(429);
      // The reset the app named, as a wait in whole seconds the caller can honour.
      expect(Number(headers.get('retry-after'))).to.be.within(3598, 3601);
      expect(body.success).to.equal(false);
      expect(body.meta).to.include({ tooManyRequests: true, retries: 0 });
      expect(body.meta.appError).to.deep.equal({ status: 403, code: 'HTTP_403', message: 'API rate limit exceeded' });
      expect(upstream.calls('GET /api/limited/things')).to.have.length(1);
      expect(Date.now() - started).to.be.below(1000);
    });

    it("answers the app's Retry-After (seconds, rounded up) as its own when it gives up because the wait is beyond retryAfterCapMs", async () => {
      upstream.on('GET /api/limited/things', () => ({ status: 429, headers: { 'retry-after': '119.2' }, body: { message: 'slow down' } }));
      const { status, headers, body } = await run('limited');
      expect(status).to.equal(429);
      expect(headers.get('retry-after')).to.equal('120');
      expect(body.meta).to.include({ tooManyRequests: true, retries: 0 });
      expect(body.meta.response.headers['retry-after']).to.equal('119.2');
    });

    it("declares that Retry-After on every run's 429 in the OpenAPI documents", () => {
      for (const [document, path] of [
        [V2_DOCUMENT, '/v2/universal/apps/{appSlug}/actions/{actionSlug}/run'],
        [V2_DOCUMENT, '/v2/end-user/apps/{appSlug}/actions/{actionSlug}/run'],
        [V1_DOCUMENT, '/v1/installation/apps/{appId}/{appVersion}/action/{actionId}/run'],
      ]) {
        const header = document.paths[path].post.responses['429'].headers?.['Retry-After'];
        expect(header, path).to.deep.equal({
          description: "Seconds to wait before trying again: when the app said how long to wait (its Retry-After, or the reset header api.yaml's retry declares), in whole seconds rounded up.",
          schema: { type: 'integer', minimum: 0 },
        });
      }
    });

    it('answers no Retry-After when the app named no wait', async () => {
      upstream.on('GET /api/daily/things', () => ({ status: 429, body: { status: 'error', message: 'You have reached your daily limit.', errorType: 'RATE_LIMIT', policyName: 'DAILY' } }));
      const { status, headers } = await run('daily');
      expect(status).to.equal(429);
      expect(headers.get('retry-after')).to.equal(null);
    });

    it('takes Retry-After over the reset header (a secondary limit), and a reset in the past means retry now', async () => {
      let calls = 0;
      upstream.on('GET /api/limited/things', (): Reply => {
        calls++;
        if (calls === 1) return { status: 403, headers: { 'retry-after': '0', 'x-ratelimit-reset': unixSeconds(3_600_000) }, body: { message: 'You have exceeded a secondary rate limit.' } };
        if (calls === 2) return { status: 429, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': unixSeconds(-60_000) }, body: { message: 'API rate limit exceeded' } };
        return { body: [] };
      });
      const started = Date.now();
      const { status, body } = await run('limited');
      expect(status).to.equal(200);
      expect(body).to.deep.include({ success: true, data: [] });
      expect(body.meta.retries).to.equal(2);
      expect(Date.now() - started).to.be.below(1000);
    });

    it('reads a reset header in each format: UnixSeconds, UnixMilliseconds, Seconds, HttpDate', () => {
      const now = Date.UTC(2026, 0, 1, 12, 0, 0);
      const headers = (value: string) => ({ 'x-reset': value });
      expect(parseReset({ name: 'x-reset', format: 'UnixSeconds' }, headers(String(now / 1000 + 30)), now)).to.equal(30_000);
      expect(parseReset({ name: 'x-reset', format: 'UnixMilliseconds' }, headers(String(now + 1500)), now)).to.equal(1500);
      expect(parseReset({ name: 'x-reset', format: 'Seconds' }, headers('12'), now)).to.equal(12_000);
      expect(parseReset({ name: 'x-reset', format: 'HttpDate' }, headers('Thu, 01 Jan 2026 12:01:00 GMT'), now)).to.equal(60_000);
      expect(parseReset({ name: 'x-reset', format: 'UnixSeconds' }, headers(String(now / 1000 - 30)), now)).to.equal(0);
      expect(parseReset({ name: 'x-reset', format: 'UnixSeconds' }, headers('soon'), now)).to.equal(null);
      expect(parseReset({ name: 'x-reset', format: 'UnixSeconds' }, {}, now)).to.equal(null);
    });
  });

  it("tells the author when the API's retry.when fails (file, line, reason), and lets a 429 be the rate limit, as documented", async () => {
    let calls = 0;
    upstream.on('GET /api/broken/things', () => (++calls === 1 ? { status: 429, body: {} } : { body: [{ id: 1 }] }));
    const { status, body } = await run('broken');
    expect(status).to.equal(200);
    expect(body.meta.retries).to.equal(1);
    const warned = gw.logs().split('\n').filter((line) => line.includes('api.yaml retry.when failed'));
    expect(warned.length).to.be.at.least(1);
    expect(JSON.parse(warned[0]!)).to.deep.include({ app: 'broken', file: 'broken/versions/1/api.yaml', msg: 'api.yaml retry.when failed: a 429 is the rate limit instead' });
  });

  it("tells the author when the API's retry.giveUpWhen fails (file, line, reason), and retries the rate limit, as documented", async () => {
    let calls = 0;
    upstream.on('GET /api/broken-giveup/things', () => (++calls === 1 ? { status: 429, body: {} } : { body: [{ id: 1 }] }));
    const { status, body } = await run('broken-giveup');
    expect(status).to.equal(200);
    expect(body.meta.retries).to.equal(1);
    const warned = gw.logs().split('\n').filter((line) => line.includes('api.yaml retry.giveUpWhen failed'));
    expect(warned.length).to.be.at.least(1);
    expect(JSON.parse(warned[0]!)).to.deep.include({ app: 'broken-giveup', file: 'broken-giveup/versions/1/api.yaml', msg: 'api.yaml retry.giveUpWhen failed: the rate limit is retried' });
  });

  describe('giveUpWhen: rate limits not worth retrying', () => {
    it("answers HubSpot's daily limit (policyName DAILY) at once: 429, tooManyRequests, its appError, one call", async () => {
      upstream.on('GET /api/daily/things', () => ({
        status: 429,
        body: { status: 'error', message: 'You have reached your daily limit.', errorType: 'RATE_LIMIT', correlationId: 'c033cdaa-2c40-4a64-ae48-b4cec88dad24', policyName: 'DAILY' },
      }));
      const { status, body } = await run('daily');
      expect(status).to.equal(429);
      expect(body.success).to.equal(false);
      expect(body.meta).to.include({ tooManyRequests: true, retries: 0 });
      expect(body.meta.appError).to.deep.equal({ status: 429, code: 'RATE_LIMIT', message: 'You have reached your daily limit.', details: { policyName: 'DAILY' } });
      expect(upstream.calls('GET /api/daily/things')).to.have.length(1);
    });

    it('still retries the ten-secondly limit', async () => {
      let calls = 0;
      upstream.on('GET /api/daily/things', () =>
        ++calls === 1 ? { status: 429, body: { status: 'error', message: 'You have reached your ten_secondly_rolling limit.', errorType: 'RATE_LIMIT', policyName: 'TEN_SECONDLY_ROLLING' } } : { body: [] },
      );
      const { status, body } = await run('daily');
      expect(status).to.equal(200);
      expect(body.meta.retries).to.equal(1);
    });
  });

  describe('budgetMs: the waiting of a whole run', () => {
    it('gives up (429) once the next wait would pass the budget, though attempts and the cap allow it', async () => {
      upstream.on('GET /api/budget/things', () => ({ status: 429, headers: { 'retry-after': '1' }, body: {} }));
      const started = Date.now();
      const { status, headers, body } = await run('budget');
      expect(status).to.equal(429);
      expect(headers.get('retry-after')).to.equal('1');
      expect(body.meta).to.include({ tooManyRequests: true, retries: 1 });
      expect(upstream.calls('GET /api/budget/things')).to.have.length(2);
      expect(Date.now() - started).to.be.below(1500 + 1000);
    });

    it("never waits beyond the gateway's REQUEST_TIMEOUT_MS, whatever budgetMs says (default 60 s)", async () => {
      upstream.on('GET /api/limited/things', () => ({ status: 429, headers: { 'retry-after': '2' }, body: { message: 'slow down' } }));
      const { status, body } = await run('limited');
      expect(status).to.equal(429);
      expect(body.meta).to.include({ tooManyRequests: true, retries: 1 });
      expect(upstream.calls('GET /api/limited/things')).to.have.length(2);
    });
  });
});
