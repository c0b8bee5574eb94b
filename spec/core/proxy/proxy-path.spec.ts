import { expect } from 'chai';
import { proxyTarget } from '../../../engine/core/proxy/proxy-path.ts';
import { pathAllowed, proxyRulesOf } from '../../../engine/core/proxy/proxy-rules.ts';
import { GatewayError } from '../../../engine/platform/errors/index.ts';

const BASE = 'https://api.example.com/v1';

/** A deterministic pseudo-random sequence. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

describe('proxied paths (core/proxy/proxy-path.ts)', () => {
  it('puts the path and the query under the base URL, the escapes as the caller wrote them', () => {
    expect(proxyTarget(BASE, 'users/42/files', 'limit=2&q=a%20b', new Set())).to.deep.equal({ url: 'https://api.example.com/v1/users/42/files?limit=2&q=a%20b', path: '/users/42/files' });
    expect(proxyTarget(BASE, 'groups/a%2Fb', '', new Set()).url).to.equal('https://api.example.com/v1/groups/a%2Fb');
    expect(proxyTarget('https://api.example.com', 'x', '', new Set()).path).to.equal('/x');
  });

  it('leaves out the query parameters the gateway sets, however the caller encodes their name', () => {
    expect(proxyTarget(BASE, 'x', 'api_key=1&a=2&api%5Fkey=3&api_key&b=4', new Set(['api_key'])).url).to.equal('https://api.example.com/v1/x?a=2&b=4');
  });

  it('never answers a URL off the base URL, whatever the path (2,000 made-up hostile paths)', () => {
    const next = random(11);
    const pieces = ['..', '.', '%2e', '%2E', '%2f', '%2F', '/', '//', '\\', '%5c', '@', '%40', ':', '%3a', 'http:', 'evil.com', '%252e', '%25', '?', '#', '%00', '%0a', 'a', 'b', '~', ';', '%', '%zz', 'é', '%e9'];
    for (let i = 0; i < 2000; i++) {
      let raw = '';
      const n = 1 + Math.floor(next() * 8);
      for (let j = 0; j < n; j++) raw += pieces[Math.floor(next() * pieces.length)];
      try {
        const { url } = proxyTarget(BASE, raw.replace(/[?#]/g, encodeURIComponent), '', new Set());
        const parsed = new URL(url);
        expect(parsed.origin, raw).to.equal('https://api.example.com');
        expect(parsed.pathname.startsWith('/v1/'), raw).to.equal(true);
      } catch (error) {
        expect(error, raw).to.be.instanceOf(GatewayError);
        expect((error as GatewayError).code).to.equal('VALIDATION_ERROR');
      }
    }
  });
});

describe("api.yaml's proxy rules (core/proxy/proxy-rules.ts)", () => {
  it('reads absent and true as open, false as off, an object as limits', () => {
    expect(proxyRulesOf({})).to.deep.equal({ enabled: true, paths: null, headers: [] });
    expect(proxyRulesOf({ proxy: true }).enabled).to.equal(true);
    expect(proxyRulesOf({ proxy: false }).enabled).to.equal(false);
    expect(proxyRulesOf({ proxy: { headers: ['Idempotency-Key'] } })).to.deep.equal({ enabled: true, paths: null, headers: ['idempotency-key'] });
  });

  it('matches a path rule at a segment boundary, a trailing / as anything under it, a trailing * as a plain prefix', () => {
    const rules = proxyRulesOf({ proxy: { paths: ['/users', '/files/', '/conversations.*'] } });
    for (const ok of ['/users', '/users/42', '/files/a', '/conversations.list']) expect(pathAllowed(rules, ok), ok).to.equal(true);
    for (const no of ['/users-admin', '/files', '/conversations', '/other', '/']) expect(pathAllowed(rules, no), no).to.equal(false);
  });
});
