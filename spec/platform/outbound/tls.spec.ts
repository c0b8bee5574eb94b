import { expect } from 'chai';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseEgressAllow } from '../../../engine/platform/egress/allow-list.ts';
import { createEgressPolicy, type LookupFunction } from '../../../engine/platform/egress/policy.ts';
import { createHttpClient, type HttpClient } from '../../../engine/platform/outbound/client.ts';
import { OutboundError } from '../../../engine/platform/outbound/outbound-error.ts';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
const cert = fs.readFileSync(path.join(FIXTURES, 'api.example.test.crt'), 'utf8');
const key = fs.readFileSync(path.join(FIXTURES, 'api.example.test.key'), 'utf8');

/** Every name resolves to 127.0.0.1, where the HTTPS server below listens. */
const toLocal: LookupFunction = (_hostname, options, callback) => {
  if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
};

describe('outbound HTTPS through the egress-checked connector', () => {
  let server: https.Server;
  let port: number;
  const servernames: (string | false)[] = [];
  const clients: HttpClient[] = [];
  const client = (tls: { ca?: string } = { ca: cert }) => {
    const made = createHttpClient({ policy: createEgressPolicy(parseEgressAllow('127.0.0.1/32'), { resolve: toLocal }), tls });
    clients.push(made);
    return made;
  };

  before(async () => {
    server = https.createServer({ cert, key }, (req, res) => {
      servernames.push((req.socket as unknown as { servername: string | false }).servername);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"secure":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('connects by name: the checked address is used, SNI and the certificate are checked against the name', async () => {
    const response = await client().send({ method: 'GET', url: `https://api.example.test:${port}/secure` });
    expect(response.body).to.deep.equal({ secure: true });
    expect(servernames.at(-1)).to.equal('api.example.test');
  });

  it('refuses a certificate for another name: UPSTREAM_UNREACHABLE', async () => {
    const error = await client().send({ method: 'GET', url: `https://other.example.test:${port}/` }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(OutboundError);
    expect(error).to.include({ code: 'UPSTREAM_UNREACHABLE', message: `other.example.test:${port} presented a TLS certificate for another name` });
  });

  it('refuses a certificate no trusted authority signed', async () => {
    const error = await client({}).send({ method: 'GET', url: `https://api.example.test:${port}/` }).catch((e: unknown) => e);
    expect(error).to.include({ code: 'UPSTREAM_UNREACHABLE', message: `api.example.test:${port} presented a self-signed TLS certificate` });
  });
});
