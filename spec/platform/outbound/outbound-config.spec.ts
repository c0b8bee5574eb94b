import { expect } from 'chai';
import v8 from 'node:v8';
import { loadConfig } from '../../../engine/config/config.ts';
import { configProblem } from '../../helpers/config-problem.ts';


describe('configuration of outbound calls, egress and mappings', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({}, '/srv/gw');
    expect(config.outbound).to.deep.equal({
      connectTimeoutMs: 5000,
      headersTimeoutMs: 30000,
      bodyTimeoutMs: 30000,
      totalTimeoutMs: 60000,
      maxResponseBytes: 10485760,
      maxRedirects: 5,
      connectionsPerOrigin: 0,
      maxBufferedBytes: Math.floor(v8.getHeapStatistics().heap_size_limit / 4),
    });
    expect(config.appCalls).to.deep.equal({ queueLength: 100 });
    expect(config.egressAllow.entries).to.deep.equal([]);
    expect(config.mapping).to.deep.equal({ timeoutMs: 500, maxDepth: 200, maxSequence: 100000, maxString: 1048576, maxResultBytes: 16777216 });
  });

  it('reads every variable', () => {
    const config = loadConfig(
      {
        OUTBOUND_CONNECT_TIMEOUT_MS: '100',
        OUTBOUND_HEADERS_TIMEOUT_MS: '200',
        OUTBOUND_BODY_TIMEOUT_MS: '300',
        OUTBOUND_TOTAL_TIMEOUT_MS: '400',
        OUTBOUND_MAX_RESPONSE_BYTES: '1024',
        OUTBOUND_MAX_REDIRECTS: '0',
        OUTBOUND_CONNECTIONS_PER_ORIGIN: '4',
        OUTBOUND_MAX_BUFFERED_BYTES: '65536',
        OUTBOUND_QUEUE_LENGTH: '7',
        EGRESS_ALLOW: '127.0.0.1/32,::1/128',
        MAPPING_TIMEOUT_MS: '50',
        MAPPING_MAX_DEPTH: '40',
        MAPPING_MAX_SEQUENCE: '10',
        MAPPING_MAX_STRING: '1000',
        MAPPING_MAX_RESULT_BYTES: '5000',
      },
      '/srv/gw',
    );
    expect(config.outbound).to.deep.equal({
      connectTimeoutMs: 100,
      headersTimeoutMs: 200,
      bodyTimeoutMs: 300,
      totalTimeoutMs: 400,
      maxResponseBytes: 1024,
      maxRedirects: 0,
      connectionsPerOrigin: 4,
      maxBufferedBytes: 65536,
    });
    expect(config.appCalls).to.deep.equal({ queueLength: 7 });
    expect(config.egressAllow.entries).to.deep.equal(['127.0.0.1/32', '::1/128']);
    expect(config.mapping).to.deep.equal({ timeoutMs: 50, maxDepth: 40, maxSequence: 10, maxString: 1000, maxResultBytes: 5000 });
  });

  const cases: [string, Record<string, string>, RegExp][] = [
    ['a timeout of 0', { OUTBOUND_HEADERS_TIMEOUT_MS: '0' }, /^OUTBOUND_HEADERS_TIMEOUT_MS must be an integer from 1 to 600000 \(got "0"\)$/],
    ['a size that is not a number', { OUTBOUND_MAX_RESPONSE_BYTES: '10MB' }, /^OUTBOUND_MAX_RESPONSE_BYTES must be an integer/],
    ['too many redirects', { OUTBOUND_MAX_REDIRECTS: '50' }, /^OUTBOUND_MAX_REDIRECTS must be an integer from 0 to 20/],
    ['a bad EGRESS_ALLOW entry', { EGRESS_ALLOW: '127.0.0.1/32,10.0.0.0/40' }, /^EGRESS_ALLOW entry "10\.0\.0\.0\/40" is not a valid CIDR/],
    ['an empty EGRESS_ALLOW', { EGRESS_ALLOW: ' ' }, /^EGRESS_ALLOW is set but empty/],
    ['a mapping depth below 10', { MAPPING_MAX_DEPTH: '5' }, /^MAPPING_MAX_DEPTH must be an integer from 10 to 100000/],
    ['a mapping string limit past what V8 can add up', { MAPPING_MAX_STRING: '300000000' }, /^MAPPING_MAX_STRING must be an integer from 1 to 268435456/],
    ['a mapping result limit of 0', { MAPPING_MAX_RESULT_BYTES: '0' }, /^MAPPING_MAX_RESULT_BYTES must be an integer from 1 to 1073741824/],
  ];
  for (const [name, env, message] of cases) {
    it(`rejects ${name}, naming the variable`, () => {
      expect(configProblem(env)).to.match(message);
    });
  }
});
