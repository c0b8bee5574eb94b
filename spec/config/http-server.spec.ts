import { expect } from 'chai';
import { loadConfig } from '../../engine/config/config.ts';
import { configProblem } from '../helpers/config-problem.ts';

describe('configuration: the HTTP server', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({}).server).to.deep.equal({ requestTimeoutMs: 30_000, headersTimeoutMs: 10_000, keepAliveTimeoutMs: 5_000, maxHeaderBytes: 16_384 });
  });

  it('reads every variable', () => {
    const env = { REQUEST_TIMEOUT_MS: '60000', HEADERS_TIMEOUT_MS: '20000', KEEP_ALIVE_TIMEOUT_MS: '1000', MAX_HEADER_BYTES: '32768' };
    expect(loadConfig(env).server).to.deep.equal({ requestTimeoutMs: 60_000, headersTimeoutMs: 20_000, keepAliveTimeoutMs: 1_000, maxHeaderBytes: 32_768 });
  });

  it('lowers the default headers timeout to a smaller REQUEST_TIMEOUT_MS', () => {
    expect(loadConfig({ REQUEST_TIMEOUT_MS: '2000' }).server.headersTimeoutMs).to.equal(2000);
  });

  const cases: [string, Record<string, string>, RegExp][] = [
    ['REQUEST_TIMEOUT_MS of 0 (no timeout)', { REQUEST_TIMEOUT_MS: '0' }, /^REQUEST_TIMEOUT_MS must be an integer from 100 to 3600000 \(got "0"\)$/],
    ['HEADERS_TIMEOUT_MS not a number', { HEADERS_TIMEOUT_MS: 'soon' }, /^HEADERS_TIMEOUT_MS must be an integer from 100 to 3600000 \(got "soon"\)$/],
    ['HEADERS_TIMEOUT_MS over REQUEST_TIMEOUT_MS', { REQUEST_TIMEOUT_MS: '1000', HEADERS_TIMEOUT_MS: '2000' }, /^HEADERS_TIMEOUT_MS must not be more than REQUEST_TIMEOUT_MS \(1000\) \(got "2000"\)$/],
    ['KEEP_ALIVE_TIMEOUT_MS of 0 (no timeout)', { KEEP_ALIVE_TIMEOUT_MS: '0' }, /^KEEP_ALIVE_TIMEOUT_MS must be an integer from 100 to 600000 \(got "0"\)$/],
    ['MAX_HEADER_BYTES too small', { MAX_HEADER_BYTES: '100' }, /^MAX_HEADER_BYTES must be an integer from 1024 to 1048576 \(got "100"\)$/],
  ];
  for (const [name, env, message] of cases) {
    it(`rejects ${name}, naming the variable`, () => {
      expect(configProblem(env)).to.match(message);
    });
  }
});
