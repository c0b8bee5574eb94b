import { expect } from 'chai';
import type { LookupAddress } from 'node:dns';
import { EgressDeniedError } from '../../../engine/platform/egress/egress-denied.ts';
import { parseEgressAllow } from '../../../engine/platform/egress/allow-list.ts';
import { createEgressPolicy, type LookupFunction } from '../../../engine/platform/egress/policy.ts';
import { request } from 'undici';
import { createOutboundAgent } from '../../../engine/platform/outbound/agent.ts';
import { createHttpClient, type HttpClient } from '../../../engine/platform/outbound/client.ts';
import { DEFAULT_OUTBOUND_SETTINGS } from '../../../engine/platform/outbound/settings.ts';
import { countConnectAttempts, startLocalServer, type LocalServer } from '../outbound/local-server.ts';

/** A resolver that answers every name with the given address and records what it was asked. */
function fakeResolver(address: string | string[], family = 4): { resolve: LookupFunction; asked: string[] } {
  const asked: string[] = [];
  const addresses = Array.isArray(address) ? address : [address];
  const resolve: LookupFunction = (hostname, options, callback) => {
    asked.push(hostname);
    const answer: LookupAddress[] = addresses.map((a) => ({ address: a, family: a.includes(':') ? 6 : family }));
    if (options.all) callback(null, answer);
    else callback(null, answer[0]!.address, answer[0]!.family);
  };
  return { resolve, asked };
}

async function refusal(client: HttpClient, url: string): Promise<{ error: EgressDeniedError; attempts: number }> {
  const { error, attempts } = await countConnectAttempts(() => client.send({ method: 'GET', url }));
  expect(error, `expected ${url} to be refused`).to.be.instanceOf(EgressDeniedError);
  return { error: error as EgressDeniedError, attempts };
}

describe('egress policy', () => {
  let upstream: LocalServer;
  before(async () => {
    upstream = await startLocalServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  });
  after(() => upstream.close());

  describe('with an empty allow-list', () => {
    const client = createHttpClient({ policy: createEgressPolicy(parseEgressAllow(undefined)) });
    after(() => client.close());

    const literals: [string, string, RegExp][] = [
      ['loopback 127.0.0.1', 'http://127.0.0.1:9/x', /^127\.0\.0\.1 is a loopback address; add it to EGRESS_ALLOW to permit it$/],
      ['private 10.0.0.1', 'http://10.0.0.1/x', /^10\.0\.0\.1 is a private address/],
      ['cloud metadata 169.254.169.254', 'http://169.254.169.254/latest/meta-data/', /^169\.254\.169\.254 is a cloud metadata address/],
      ['IPv4-mapped loopback [::ffff:127.0.0.1]', 'http://[::ffff:127.0.0.1]:9/', /^::ffff:7f00:1 \(IPv4-mapped form of 127\.0\.0\.1\) is a loopback address/],
      ['IPv6 cloud metadata [fd00:ec2::254]', 'http://[fd00:ec2::254]/', /^fd00:ec2::254 is a cloud metadata address/],
      ['IPv6 loopback [::1]', 'http://[::1]:9/', /^::1 is a loopback address/],
      ['unspecified 0.0.0.0', 'http://0.0.0.0:9/', /^0\.0\.0\.0 is an unspecified address/],
      ['carrier-grade NAT 100.64.0.1', 'http://100.64.0.1/', /carrier-grade NAT address/],
      ['link-local 169.254.1.1', 'http://169.254.1.1/', /link-local address/],
      ['unique-local [fd12:3456::1]', 'http://[fd12:3456::1]/', /unique-local address/],
      ['a loopback written as 127.1', 'http://127.1:9/', /^127\.0\.0\.1 is a loopback address/],
      ['a private address in NAT64 form', 'http://[64:ff9b::a00:1]/', /NAT64 form of 10\.0\.0\.1\) is a private address/],
      ['a loopback address in Teredo form (client inverted)', 'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', /\(Teredo client form of 127\.0\.0\.1\) is a loopback address/],
      ['a loopback address in SIIT form', 'http://[::ffff:0:7f00:1]:9/', /\(SIIT form of 127\.0\.0\.1\) is a loopback address/],
      ['local-use NAT64 [64:ff9b:1::a00:1]', 'http://[64:ff9b:1::a00:1]/', /^64:ff9b:1::a00:1 is a local-use NAT64 address/],
      ['documentation 203.0.113.9', 'http://203.0.113.9/', /^203\.0\.113\.9 is a documentation address/],
      ['documentation [2001:db8::1]', 'http://[2001:db8::1]/', /^2001:db8::1 is a documentation address/],
    ];
    for (const [name, url, message] of literals) {
      it(`refuses ${name} with EGRESS_DENIED before connecting`, async () => {
        const { error, attempts } = await refusal(client, url);
        expect(error.code).to.equal('EGRESS_DENIED');
        expect(error.message).to.match(message);
        expect(attempts, 'socket connect attempts').to.equal(0);
      });
    }

    it('is enforced by the outbound Agent itself, not only by send()', async () => {
      const agent = createOutboundAgent(DEFAULT_OUTBOUND_SETTINGS, createEgressPolicy());
      try {
        for (const url of ['http://10.0.0.1/', 'http://169.254.169.254/', 'http://[::ffff:127.0.0.1]:9/', `${upstream.url}/direct`]) {
          const { error, attempts } = await countConnectAttempts(() => request(url, { dispatcher: agent }));
          expect(error, url).to.be.instanceOf(EgressDeniedError);
          expect(attempts, url).to.equal(0);
        }
      } finally {
        await agent.close();
      }
    });

    it('refuses a non-http scheme', async () => {
      const { error } = await refusal(client, 'file:///etc/passwd');
      expect(error.message).to.match(/file: URLs are not allowed/);
    });

    it('refuses the local server itself, though it is listening', async () => {
      const { error, attempts } = await refusal(client, `${upstream.url}/x`);
      expect(error.message).to.match(/^127\.0\.0\.1 is a loopback address/);
      expect(attempts).to.equal(0);
      expect(upstream.requests).to.have.length(0);
    });
  });

  describe('names, checked when they resolve', () => {
    it('refuses a name that resolves to a private address, naming the host, the address and the class', async () => {
      const { resolve, asked } = fakeResolver('10.0.0.1');
      const client = createHttpClient({ policy: createEgressPolicy(parseEgressAllow(undefined), { resolve }) });
      try {
        const { error } = await refusal(client, 'http://api.example.test/v1/items?token=secret');
        expect(error.message).to.equal('api.example.test resolved to 10.0.0.1, a private address; add it to EGRESS_ALLOW to permit it');
        expect(error.message).not.to.include('secret');
        expect(asked).to.deep.equal(['api.example.test']);
      } finally {
        await client.close();
      }
    });

    it('refuses a name that resolves to the metadata address in IPv6-mapped form', async () => {
      const { resolve } = fakeResolver('::ffff:169.254.169.254', 6);
      const client = createHttpClient({ policy: createEgressPolicy(parseEgressAllow(undefined), { resolve }) });
      try {
        const { error } = await refusal(client, 'http://metadata.example.test/');
        expect(error.message).to.match(/^metadata\.example\.test resolved to ::ffff:169\.254\.169\.254 \(IPv4-mapped form of 169\.254\.169\.254\), a cloud metadata address/);
      } finally {
        await client.close();
      }
    });

    it('admits a name that resolves to an allow-listed address (the local server)', async () => {
      const { resolve } = fakeResolver('127.0.0.1');
      const client = createHttpClient({ policy: createEgressPolicy(parseEgressAllow('127.0.0.1/32'), { resolve }) });
      try {
        const response = await client.send({ method: 'GET', url: `http://api.example.test:${upstream.port}/named` });
        expect(response.status).to.equal(200);
        expect(upstream.requests.at(-1)).to.include({ url: '/named' });
        expect(upstream.requests.at(-1)!.headers.host).to.equal(`api.example.test:${upstream.port}`);
      } finally {
        await client.close();
      }
    });

    it('connects only to the admitted addresses of an answer that mixes refused and admitted ones', async () => {
      const { resolve } = fakeResolver(['10.0.0.1', '::1', '127.0.0.1']);
      const client = createHttpClient({ policy: createEgressPolicy(parseEgressAllow('127.0.0.1/32'), { resolve }) });
      try {
        const response = await client.send({ method: 'GET', url: `http://mixed.example.test:${upstream.port}/mixed` });
        expect(response.status).to.equal(200);
        expect(upstream.requests.at(-1)).to.include({ url: '/mixed' });
      } finally {
        await client.close();
      }
    });

    it('refuses an answer with no admitted address, naming the first refused one', async () => {
      const { resolve } = fakeResolver(['10.0.0.1', '169.254.169.254']);
      const client = createHttpClient({ policy: createEgressPolicy(parseEgressAllow('127.0.0.1/32'), { resolve }) });
      try {
        const { error } = await refusal(client, 'http://internal.example.test/');
        expect(error.message).to.match(/^internal\.example\.test resolved to 10\.0\.0\.1, a private address/);
      } finally {
        await client.close();
      }
    });

    it('admits a host name listed in EGRESS_ALLOW whatever it resolves to', async () => {
      const { resolve } = fakeResolver('127.0.0.1');
      const client = createHttpClient({ policy: createEgressPolicy(parseEgressAllow('*.internal.test'), { resolve }) });
      try {
        const response = await client.send({ method: 'GET', url: `http://billing.internal.test:${upstream.port}/by-name` });
        expect(response.status).to.equal(200);
      } finally {
        await client.close();
      }
    });
  });

  describe('with 127.0.0.1 allow-listed', () => {
    const client = createHttpClient({ policy: createEgressPolicy(parseEgressAllow('127.0.0.1/32,::1/128')) });
    after(() => client.close());

    it('admits 127.0.0.1 (a local server)', async () => {
      const response = await client.send({ method: 'GET', url: `${upstream.url}/allowed` });
      expect(response.status).to.equal(200);
      expect(response.body).to.deep.equal({ ok: true });
    });

    it('still refuses 10.0.0.1 and 169.254.169.254', async () => {
      for (const url of ['http://10.0.0.1/', 'http://169.254.169.254/']) {
        const { error, attempts } = await refusal(client, url);
        expect(error.code).to.equal('EGRESS_DENIED');
        expect(attempts).to.equal(0);
      }
    });

    it('refuses a redirect from the allowed server to a denied address, re-checking the hop', async () => {
      const redirecting = await startLocalServer((req, res) => {
        const target = req.url === '/to-metadata' ? 'http://169.254.169.254/latest/meta-data/' : 'http://10.0.0.1/internal';
        res.writeHead(302, { location: target }).end();
      });
      try {
        const { error, attempts } = await refusal(client, `${redirecting.url}/to-private`);
        expect(error.message).to.match(/^10\.0\.0\.1 is a private address/);
        expect(attempts, 'only the connection to the allowed server').to.equal(1);
        const second = await refusal(client, `${redirecting.url}/to-metadata`);
        expect(second.error.message).to.match(/^169\.254\.169\.254 is a cloud metadata address/);
        expect(redirecting.requests.map((r) => r.url)).to.deep.equal(['/to-private', '/to-metadata']);
      } finally {
        await redirecting.close();
      }
    });

    it('refuses a redirect to a name that resolves to a private address', async () => {
      const { resolve, asked } = fakeResolver('10.0.0.1');
      const policy = createEgressPolicy(parseEgressAllow('127.0.0.1/32'), { resolve });
      const named = createHttpClient({ policy });
      const redirecting = await startLocalServer((_req, res) => res.writeHead(307, { location: 'http://internal.example.test/' }).end());
      try {
        const { error } = await refusal(named, `${redirecting.url}/hop`);
        expect(error.message).to.match(/^internal\.example\.test resolved to 10\.0\.0\.1, a private address/);
        expect(asked).to.deep.equal(['internal.example.test']);
      } finally {
        await redirecting.close();
        await named.close();
      }
    });
  });
});

describe('EGRESS_ALLOW parsing', () => {
  it('reads CIDRs, addresses, names and *.suffixes', () => {
    const list = parseEgressAllow(' 127.0.0.1/32, ::1 ,10.20.0.0/16,billing.internal,*.corp.example ');
    expect(list.entries).to.deep.equal(['127.0.0.1/32', '::1', '10.20.0.0/16', 'billing.internal', '*.corp.example']);
    const policy = createEgressPolicy(list);
    expect(policy.checkHost('10.20.3.4')).to.equal(null);
    expect(policy.checkHost('::ffff:127.0.0.1'), 'mapped form of an allowed address').to.equal(null);
    expect(policy.checkHost('10.21.0.1')).to.be.instanceOf(EgressDeniedError);
    expect(() => policy.checkAddress('x.corp.example', '10.9.9.9')).not.to.throw();
    expect(() => policy.checkAddress('corp.example', '10.9.9.9')).to.throw(EgressDeniedError);
    expect(() => policy.checkAddress('example.com', '93.184.216.34')).not.to.throw();
  });

  it('answers the same for a host asked about again and again, past the hosts it remembers', () => {
    const policy = createEgressPolicy(parseEgressAllow('10.20.0.0/16'));
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 1_100; i++) expect(policy.checkHost(`10.20.${i >> 8}.${i & 255}`)).to.equal(null);
      expect(policy.checkHost('api.example.com')).to.equal(null);
      const first = policy.checkHost('10.21.0.1');
      const again = policy.checkHost('10.21.0.1');
      expect(first).to.be.instanceOf(EgressDeniedError);
      expect(again).to.be.instanceOf(EgressDeniedError);
      expect(again).not.to.equal(first);
      expect(policy.checkHost('169.254.169.254')!.message).to.include('cloud metadata');
    }
  });

  for (const bad of ['10.0.0.0/33', 'not a host', '300.1.1.1/8', '*.']) {
    it(`rejects "${bad}", naming the entry`, () => {
      expect(() => parseEgressAllow(bad)).to.throw(`entry "${bad}"`);
    });
  }
});
