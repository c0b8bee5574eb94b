import { expect } from 'chai';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { checkJsonDepth, checkJsonTextDepth, JSON_MAX_DEPTH, METADATA_MAX_BYTES, parseJsonParameter } from '../../../engine/platform/validation/json-limits.ts';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { ROOT } from '../../helpers/process.ts';

const DEFINITIONS_DIR = path.join(ROOT, 'spec/fixtures/connections');

/** `levels` arrays nested in each other around a 1, as JSON text: `[[1]]` for 2. */
const arrays = (levels: number) => '['.repeat(levels) + '1' + ']'.repeat(levels);
/** The JSON path of the array at `level` (1-based) inside `field`: `metadata.d[0][0]` for level 3 under metadata.d. */
const indexPath = (field: string, level: number) => field + '[0]'.repeat(level - 1);

function expectDepthRefused(response: { status: number; body: any }, field: string): void {
  expect(response.status, JSON.stringify(response.body).slice(0, 300)).to.equal(400);
  expect(response.body.error.code).to.equal('VALIDATION_ERROR');
  expect(response.body.error.details.problems).to.deep.equal([
    { field, rule: 'maxDepth', message: `is nested too deep: JSON may nest objects and arrays at most ${JSON_MAX_DEPTH} levels` },
  ]);
  expect(response.body.error.message).to.equal(`${field}: is nested too deep: JSON may nest objects and arrays at most ${JSON_MAX_DEPTH} levels`);
}

/** 400 VALIDATION_ERROR naming `field` and rule wellFormed, as a user sees it. */
function expectNotWellFormed(response: { status: number; body: any }, field: string, message: string): void {
  expect(response.status, JSON.stringify(response.body).slice(0, 300)).to.equal(400);
  expect(response.body).to.deep.equal({
    success: false,
    error: { code: 'VALIDATION_ERROR', message: `${field}: ${message}`, details: { problems: [{ field, rule: 'wellFormed', message }] } },
  });
}

function expectNoDepthProblem(response: { status: number; body: any }): void {
  expect(response.status).to.not.equal(500);
  const problems: { rule: string }[] = response.body?.error?.details?.problems ?? [];
  expect(problems.map((p) => p.rule)).to.not.include('maxDepth');
}

describe('JSON depth and size limits (every body, JSON query parameters)', () => {
  let gw: TestGateway;
  let endUserId: string;
  let connectionId: string;
  before(async () => {
    gw = await startTestGateway({ DEFINITIONS_DIR });
    // The OAuth returnUrl must be on an allowed origin.
    await call(gw, 'PUT', '/v2/embedding', { body: { allowedOrigins: ['https://app.example.test'], enabledApps: [] } });
    endUserId = (await call(gw, 'POST', '/v1/users', { body: { externalId: 'ada' } })).body.data.userId;
    connectionId = (await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'acme-crm', credentials: { apiKey: 'k' }, metadata: { region: 'eu' } } })).body.data.id;
    const configured = await call(gw, 'PUT', '/v2/apps/oauthy/configuration', { body: { clientId: 'client-1', clientSecret: 'secret-1' } });
    expect(configured.status).to.equal(200);
  });
  after(async () => {
    await gw.stop();
  });

  describe('POST /v1/users metadata', () => {
    // {"metadata":{"d": <arrays>}}: 2 levels of objects, then the arrays.
    it(`accepts ${JSON_MAX_DEPTH} levels and stores them as given`, async () => {
      const response = await call(gw, 'POST', '/v1/users', { body: `{"metadata":{"d":${arrays(JSON_MAX_DEPTH - 2)}}}` });
      expect(response.status, JSON.stringify(response.body)).to.equal(200);
      const stored = await gw.gateway.services.store.endUsers.findOne({ id: response.body.data.userId });
      expect(JSON.stringify(stored!.metadata)).to.equal(`{"d":${arrays(JSON_MAX_DEPTH - 2)}}`);
    });

    it(`refuses ${JSON_MAX_DEPTH + 1} levels with 400 VALIDATION_ERROR naming the path and the limit`, async () => {
      const response = await call(gw, 'POST', '/v1/users', { body: `{"metadata":{"d":${arrays(JSON_MAX_DEPTH - 1)}}}` });
      expectDepthRefused(response, indexPath('metadata.d', JSON_MAX_DEPTH - 1));
    });

    it('answers a body 100,000 levels deep with 400, not 500', async () => {
      const response = await call(gw, 'POST', '/v1/users', { body: `{"metadata":{"d":${arrays(100_000)}}}` });
      expectDepthRefused(response, indexPath('metadata.d', JSON_MAX_DEPTH - 1));
    });

    it('stores arrays nested 26 deep (70 bytes) at once: the store does not walk them exponentially', async function () {
      this.timeout(60_000);
      // Before the fix the embedded store visited 2^26 values here (10+ s on the event loop); now it is a few ms.
      const t0 = performance.now();
      const response = await call(gw, 'POST', '/v1/users', { body: `{"metadata":{"d":${arrays(26)}}}` });
      const ms = performance.now() - t0;
      expect(response.status).to.equal(200);
      expect(ms, 'a generous bound: the old code takes 10+ s').to.be.below(3000);
      const stored = await gw.gateway.services.store.endUsers.findOne({ id: response.body.data.userId });
      expect(JSON.stringify(stored!.metadata)).to.equal(`{"d":${arrays(26)}}`);
    });

    it('refuses a lone surrogate in metadata (a value or a key) and in text fields with 400, not 500 or U+FFFD', async () => {
      const count = async () => (await gw.gateway.services.store.endUsers.find({})).length;
      const before = await count();
      expectNotWellFormed(await call(gw, 'POST', '/v1/users', { body: '{"externalId":"s1","metadata":{"a":"\\ud800"}}' }), 'metadata.a', 'must be well-formed Unicode text (a lone surrogate \\ud800 is not)');
      expectNotWellFormed(await call(gw, 'POST', '/v1/users', { body: '{"externalId":"s2","metadata":{"\\ud800":1}}' }), 'metadata.\\ud800', 'must be a key of well-formed Unicode text (a lone surrogate \\ud800 is not)');
      expectNotWellFormed(await call(gw, 'POST', '/v1/users', { body: '{"externalId":"\\ud800zz1"}' }), 'externalId', 'must be well-formed Unicode text (a lone surrogate \\ud800 is not)');
      expectNotWellFormed(await call(gw, 'POST', '/v1/users', { body: '{"externalId":"s3","name":"\\udbff"}' }), 'name', 'must be well-formed Unicode text (a lone surrogate \\udbff is not)');
      expect(await count()).to.equal(before);
      const emoji = await call(gw, 'POST', '/v1/users', { body: '{"externalId":"\\ud83d\\ude00zz1","metadata":{"\\ud83d\\ude00":"\\ud83d\\ude00"}}' });
      expect(emoji.status, JSON.stringify(emoji.body)).to.equal(200);
      const stored = await gw.gateway.services.store.endUsers.findOne({ id: emoji.body.data.userId });
      expect(stored!.metadata).to.deep.equal({ '😀': '😀' });
    });

    it('keeps the metadata size limit (16 KiB as JSON)', async () => {
      const response = await call(gw, 'POST', '/v1/users', { body: { metadata: { big: 'x'.repeat(16 * 1024) } } });
      expect(response.status).to.equal(400);
      expect(response.body.error.details.problems).to.deep.include({ field: 'metadata', rule: 'maxBytes', message: 'must be at most 16384 bytes as JSON' });
    });
  });

  describe('POST /v2/connections metadata and credentials', () => {
    const body = (metadata: string, credentials = '{"apiKey":"k"}') => `{"appSlug":"acme-crm","credentials":${credentials},"metadata":${metadata}}`;

    it('refuses metadata over the depth limit, naming the path', async () => {
      const response = await call(gw, 'POST', '/v2/connections', { body: body(`{"region":"eu","d":${arrays(JSON_MAX_DEPTH - 1)}}`) });
      expectDepthRefused(response, indexPath('metadata.d', JSON_MAX_DEPTH - 1));
    });

    it('checks metadata at the depth limit by its own rules (host variables are text, numbers or booleans)', async () => {
      const response = await call(gw, 'POST', '/v2/connections', { body: body(`{"region":"eu","d":${arrays(JSON_MAX_DEPTH - 2)}}`) });
      expect(response.status).to.equal(400);
      expectNoDepthProblem(response);
      expect(response.body.error.message).to.include('metadata.d');
    });

    it('refuses credentials over the depth limit, naming the path', async () => {
      const response = await call(gw, 'POST', '/v2/connections', { body: body('{"region":"eu"}', `{"apiKey":"k","x":${arrays(JSON_MAX_DEPTH - 1)}}`) });
      expectDepthRefused(response, indexPath('credentials.x', JSON_MAX_DEPTH - 1));
    });

    it('checks credentials at the depth limit by their own rules', async () => {
      const response = await call(gw, 'POST', '/v2/connections', { body: body('{"region":"eu"}', `{"apiKey":"k","x":${arrays(JSON_MAX_DEPTH - 2)}}`) });
      expect(response.status).to.equal(400);
      expectNoDepthProblem(response);
      expect(response.body.error.message).to.include('credentials.x: is not an argument of this auth');
    });

    it('refuses metadata over 16 KiB and credentials over 64 KiB as JSON', async () => {
      const bigMetadata = await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'acme-crm', credentials: { apiKey: 'k' }, metadata: { region: 'eu', note: 'x'.repeat(16 * 1024) } } });
      expect(bigMetadata.status).to.equal(400);
      expect(bigMetadata.body.error.details.problems).to.deep.equal([{ field: 'metadata', rule: 'maxBytes', message: 'must be at most 16384 bytes as JSON' }]);
      const bigCredentials = await call(gw, 'POST', '/v2/connections', { body: { appSlug: 'acme-crm', credentials: { apiKey: 'k'.repeat(64 * 1024) }, metadata: { region: 'eu' } } });
      expect(bigCredentials.status).to.equal(400);
      expect(bigCredentials.body.error.details.problems).to.deep.equal([{ field: 'credentials', rule: 'maxBytes', message: 'must be at most 65536 bytes as JSON' }]);
    });
  });

  describe('POST /v2/installations metadata', () => {
    const body = (metadata: string) => `{"endUserId":"${endUserId}","apps":[{"appSlug":"acme-crm","connectionId":"${connectionId}"}],"metadata":${metadata}}`;

    it('refuses metadata over the depth limit, naming the path', async () => {
      const response = await call(gw, 'POST', '/v2/installations', { body: body(`{"d":${arrays(JSON_MAX_DEPTH - 1)}}`) });
      expectDepthRefused(response, indexPath('metadata.d', JSON_MAX_DEPTH - 1));
    });

    it('checks metadata at the depth limit by its own rules', async () => {
      const response = await call(gw, 'POST', '/v2/installations', { body: body(`{"d":${arrays(JSON_MAX_DEPTH - 2)}}`) });
      expect(response.status).to.equal(400);
      expectNoDepthProblem(response);
      expect(response.body.error.message).to.include('metadata.d');
    });

    it('refuses metadata over 16 KiB as JSON', async () => {
      const response = await call(gw, 'POST', '/v2/installations', { body: body(JSON.stringify({ note: 'x'.repeat(16 * 1024) })) });
      expect(response.status).to.equal(400);
      expect(response.body.error.details.problems).to.deep.equal([{ field: 'metadata', rule: 'maxBytes', message: 'must be at most 16384 bytes as JSON' }]);
    });
  });

  describe('GET /v2/connect/{appSlug}/authorize metadata (JSON in a query parameter)', () => {
    const authorize = (metadata: string) =>
      call(gw, 'GET', `/v2/connect/oauthy/authorize?returnUrl=${encodeURIComponent('https://app.example.test/back')}&metadata=${encodeURIComponent(metadata)}`);

    it(`accepts ${JSON_MAX_DEPTH} levels, arrays 26 deep at once, and keeps them for the connection`, async function () {
      this.timeout(60_000);
      const atLimit = await authorize(`{"d":${arrays(JSON_MAX_DEPTH - 1)}}`);
      expect(atLimit.status, JSON.stringify(atLimit.body)).to.equal(200);
      const t0 = performance.now();
      const deep = await authorize(`{"d":${arrays(26)}}`);
      expect(deep.status).to.equal(200);
      expect(performance.now() - t0, 'a generous bound: the old code takes 10+ s').to.be.below(3000);
      const pending = await gw.gateway.services.store.pendingAuthorizations.find({});
      expect(pending.map((p) => JSON.stringify(p.metadata))).to.include.members([`{"d":${arrays(JSON_MAX_DEPTH - 1)}}`, `{"d":${arrays(26)}}`]);
    });

    it('refuses metadata over the depth limit with 400 naming the parameter and the path', async () => {
      expectDepthRefused(await authorize(`{"d":${arrays(JSON_MAX_DEPTH)}}`), indexPath('metadata.d', JSON_MAX_DEPTH));
      expectDepthRefused(await authorize(`{"d":${arrays(2000)}}`), indexPath('metadata.d', JSON_MAX_DEPTH));
    });

    it('refuses a lone surrogate (a value or a key) and a number too large to hold with 400 naming the parameter and the path, and takes a surrogate pair', async () => {
      expectNotWellFormed(await authorize('{"a":"\\ud800"}'), 'metadata.a', 'must be well-formed Unicode text (a lone surrogate \\ud800 is not)');
      expectNotWellFormed(await authorize('{"a":{"\\uDC00":"x"}}'), 'metadata.a.\\udc00', 'must be a key of well-formed Unicode text (a lone surrogate \\udc00 is not)');
      expectNotWellFormed(await authorize('{"a":["ok","\\ud800x"]}'), 'metadata.a[1]', 'must be well-formed Unicode text (a lone surrogate \\ud800 is not)');
      // The same walk refuses a number too large to hold, as in a body (it was stored as null).
      const big = await authorize('{"big":1e400}');
      expect(big.status).to.equal(400);
      expect(big.body.error.details.problems).to.deep.equal([{ field: 'metadata.big', rule: 'range', message: 'is a number too large to hold (beyond ±1.7976931348623157e308)' }]);
      const pair = await authorize('{"emoji":"\\ud83d\\ude00"}');
      expect(pair.status, JSON.stringify(pair.body)).to.equal(200);
      const pending = await gw.gateway.services.store.pendingAuthorizations.find({});
      expect(pending.map((p) => p.metadata)).to.deep.include({ emoji: '😀' });
    });

    // Node's own limit on a request line and headers (16 KiB) comes first over HTTP; the parameter's holds whatever that limit is.
    it('refuses metadata over 16 KiB before reading it', () => {
      const big = JSON.stringify({ note: 'x'.repeat(16 * 1024) });
      expect(() => parseJsonParameter(big, 'metadata', METADATA_MAX_BYTES, 'of host variables')).to.throw('metadata: must be at most 16384 bytes of JSON');
      expect(() => parseJsonParameter('[1]', 'metadata', METADATA_MAX_BYTES, 'of host variables')).to.throw('metadata: must be a JSON object of host variables');
    });
  });

  describe('POST /v2/universal/.../run arguments', () => {
    const run = (args: string) => call(gw, 'POST', '/v2/universal/apps/acme-crm/actions/create-contact/run', { body: `{"connectionId":"con_none","arguments":${args}}` });

    it('refuses arguments over the depth limit, naming the path', async () => {
      expectDepthRefused(await run(`{"address":{"x":${arrays(JSON_MAX_DEPTH - 2)}}}`), indexPath('arguments.address.x', JSON_MAX_DEPTH - 2));
    });

    it('takes arguments at the depth limit on to the run (here: the unknown connection)', async () => {
      const response = await run(`{"address":{"x":${arrays(JSON_MAX_DEPTH - 3)}}}`);
      expectNoDepthProblem(response);
      expect(response.status).to.equal(404);
      expect(response.body.error.code).to.equal('NOT_FOUND');
    });
  });

  describe('checkJsonDepth', () => {
    it('walks 1,000,000 levels without the call stack, naming the first level over the limit', () => {
      let deep: unknown = 1;
      for (let i = 0; i < 1_000_000; i++) deep = [deep];
      expect(() => checkJsonDepth({ a: deep }, 'x')).to.throw(`x.a${'[0]'.repeat(JSON_MAX_DEPTH - 1)}: is nested too deep`);
    });

    it('names keys and indexes in the path, and the body itself when it has no field', () => {
      expect(() => checkJsonDepth({ list: [{ ok: 1 }, { deeper: [[1]] }] }, '', 4)).to.throw('list[1].deeper[0]: is nested too deep');
      expect(() => checkJsonDepth([[1]], '', 1)).to.throw('body[0]: is nested too deep');
      expect(() => checkJsonDepth({ a: { b: 1 } }, '', 2)).to.not.throw();
    });
  });

  describe('checkJsonTextDepth (the text of a body, before it is parsed)', () => {
    const refusal = (check: () => void): string | undefined => {
      try {
        check();
        return undefined;
      } catch (error) {
        return (error as { details?: { problems: { field: string }[] } }).details!.problems[0]!.field;
      }
    };

    it('names the same path as checkJsonDepth: keys (escaped, spaced, with brackets in strings) and indexes', () => {
      const cases: [unknown, number][] = [
        [{ list: [{ ok: 1 }, { deeper: [[1]] }] }, 4],
        [[[1]], 1],
        [{ 'a "quoted" [key]': { 'b\\': [{}, ['[', '{', ']']] } }, 3],
        [{ 'ünï': [1, 2, '3,4', { x: { y: [] } }] }, 4],
      ];
      for (const [value, limit] of cases) {
        const expected = refusal(() => checkJsonDepth(value, 'f', limit));
        expect(expected, JSON.stringify(value)).to.be.a('string');
        expect(refusal(() => checkJsonTextDepth(JSON.stringify(value), 'f', limit))).to.equal(expected);
        expect(refusal(() => checkJsonTextDepth(JSON.stringify(value, null, 2), 'f', limit))).to.equal(expected);
      }
    });

    it('refuses exactly what checkJsonDepth refuses, on any JSON', () => {
      fc.assert(
        fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 1, max: 8 }), (value, limit) => {
          const text = JSON.stringify(value);
          expect(refusal(() => checkJsonTextDepth(text, '', limit)) !== undefined).to.equal(refusal(() => checkJsonDepth(value, '', limit)) !== undefined);
        }),
        { numRuns: 2000 },
      );
    });

    it('answers a 1 MiB body of nested arrays with 400 naming the first level over the limit', async () => {
      const levels = 512 * 1024 - 16;
      const response = await call(gw, 'POST', '/v1/users', { body: `{"metadata":{"d":${arrays(levels)}}}` });
      expectDepthRefused(response, indexPath('metadata.d', JSON_MAX_DEPTH - 1));
    });
  });
});
