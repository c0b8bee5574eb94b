import { expect } from 'chai';
import { Writable } from 'node:stream';
import { createLogger } from '../../../engine/platform/log/logger.ts';
import { requestLineLogger } from '../../../engine/http/server/middleware/request-log.ts';
import { directStream, isoTime, num, requestLine, type RequestLineFields } from '../../../engine/http/server/middleware/request-line.ts';
import { shownPath } from '../../../engine/http/proxy/shown-path.ts';
import type { RunFacts } from '../../../engine/core/run/run-facts.ts';

/** What pino writes for the line's fields, as the request log wrote them before (its child logger's info()). */
function pinoLine(f: RequestLineFields, now: number): string {
  let written = '';
  const logger = requestLineLogger(createLogger('info', new Writable({ write: (chunk, _e, done) => ((written += String(chunk)), done()) })));
  const realNow = Date.now;
  Date.now = () => now;
  try {
    const run = f.run;
    logger.info(
      run
        ? { reqId: f.reqId, method: f.method, path: f.path, status: f.status, durationMs: f.durationMs, companyId: run.companyId, app: run.app, action: run.action, version: run.version, connectionId: run.connectionId, upstreamStatus: run.upstreamStatus, upstreamMs: run.upstreamMs, retries: run.retries, outcome: run.outcome }
        : { reqId: f.reqId, method: f.method, path: f.path, status: f.status, durationMs: f.durationMs },
      'request',
    );
  } finally {
    Date.now = realNow;
  }
  return written;
}

const RUN: RunFacts = { companyId: 'cmp_0123', app: 'github', action: 'list-issues', version: '2', connectionId: 'con_9', upstreamStatus: 200, upstreamMs: 12.34, retries: 1, outcome: 'success' };
const BASE: RequestLineFields = { reqId: 'f0e1d2c3-b4a5-4697-8879-6a5b4c3d2e1f', method: 'POST', path: '/v2/universal/apps/github/actions/list-issues/run', status: 200, durationMs: 3.21, run: RUN };

describe('the request line written out', () => {
  const cases: [string, RequestLineFields][] = [
    ['a run', BASE],
    ['a run that got no answer from its app (no upstream status or time) and no outcome yet', { ...BASE, run: { ...RUN, upstreamStatus: undefined, upstreamMs: undefined, outcome: undefined } as RunFacts }],
    ['a request that is no run', { ...BASE, run: undefined, path: '/health', method: 'GET' }],
    ['a path with quotes, backslashes, controls and non-ASCII', { ...BASE, run: undefined, path: '/v2/"x"\\y\u0001/é/\u2028' }],
    ['a duration that is not finite', { ...BASE, durationMs: Number.NaN }],
  ];
  for (const [name, fields] of cases) {
    it(`is the line pino writes: ${name}`, () => {
      const now = Date.UTC(2026, 10, 29, 3, 4, 5, 678);
      expect(requestLine(fields, now)).to.equal(pinoLine(fields, now));
    });
  }

  it("is handed to the logger's own destination, unless that wants pino's metadata with each line", () => {
    const plain = new Writable({ write: (_c, _e, done) => done() });
    expect(directStream(requestLineLogger(createLogger('info', plain)))).to.equal(plain);
    const multi = Object.assign(new Writable({ write: (_c, _e, done) => done() }), { [Symbol.for('pino.metadata')]: true });
    expect(directStream(requestLineLogger(createLogger('info', multi)))).to.equal(null);
  });

  it('writes every number as String() does (null when not finite): durations in hundredths, and any other double', () => {
    const values = [0, -0, 1, 200, 3.21, 12.34, 0.05, 0.5, 0.1 + 0.2, 1e-7, 123456.78, -4.2, -0.07, 2 ** 31 / 100 - 0.01, 2 ** 31 / 100 + 0.5, 1e21, Number.MAX_VALUE, Number.EPSILON];
    for (let i = 0; i < 20_000; i++) values.push(Math.round((Math.random() - 0.2) * 1e8) / 100, Math.random() * 1000, Math.round(Math.random() * 1e6) / 1e3);
    for (const value of values) expect(num(value), String(value)).to.equal(String(value));
    for (const value of [Number.NaN, Infinity, -Infinity]) expect(num(value)).to.equal('null');
  });

  it('writes the time as toISOString does, second after second, backwards, and outside the usual years', () => {
    const times: number[] = [];
    for (let t = Date.UTC(2026, 10, 29, 3, 4, 4, 990); t < Date.UTC(2026, 10, 29, 3, 4, 6, 10); t += 7) times.push(t);
    times.push(Date.UTC(2026, 10, 29, 3, 4, 5, 0), Date.UTC(2025, 0, 1), -1, -1001, -62198755200000, 253402300800000, 1_700_000_000_000.5);
    for (let i = 0; i < 5_000; i++) times.push(Math.floor(Math.random() * 4e12) - 1e12);
    for (const now of times) expect(isoTime(now), String(now)).to.equal(new Date(now).toISOString());
  });

  it('shows a proxied path up to its connection, and every other path whole', () => {
    expect(shownPath('/v2/proxy/con_1/repos/octo/issues')).to.equal('/v2/proxy/con_1/…');
    expect(shownPath('/v2/end-user/proxy/con_1/me')).to.equal('/v2/end-user/proxy/con_1/…');
    for (const path of ['/v2/proxy/con_1', '/v2/proxy/con_1/', '/v2/universal/apps/github/actions/list-issues/run', '/v1/proxy/con_1/x', '/health']) {
      expect(shownPath(path)).to.equal(path);
    }
  });
});
