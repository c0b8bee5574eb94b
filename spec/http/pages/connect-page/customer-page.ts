import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT } from 'jose';
import { COMPANY_CLAIM } from '../../../../engine/tenancy/end-user-tokens/end-user-tokens.ts';
import { keyRingFor } from '../../../../engine/tenancy/end-user-tokens/key-ring.ts';
import { TOKEN_ALGORITHM } from '../../../../engine/tenancy/end-user-tokens/signing-keys.ts';
import type { TestGateway } from '../../../helpers/gateway.ts';

/**
 * A customer's page on an origin of its own (127.0.0.1 at a free port) that loads the gateway's SDK and opens
 * the real Connect page with it: `openConnect(token, options)` in the page records every message the SDK
 * passes to onEvent in `window.events`, and how open() settled in `window.outcome`. `above` px of the
 * customer's own content come before the container, as on a real product page.
 */
export class CustomerPage {
  private server!: http.Server;
  origin = '';

  constructor(
    private readonly gatewayUrl: string,
    private readonly above = 0,
  ) {}

  async start(): Promise<this> {
    const html = `<!doctype html><html><head><meta charset="utf-8"><title>A customer's product</title>
<style>body { margin: 0; font-family: sans-serif; } #above { height: ${this.above}px; background: #eef; }</style>
<script src="${this.gatewayUrl}/sdk/connect.js"></script></head>
<body><div id="above">The customer's own page</div><div id="connect-frame"></div><p>Footer</p>
<script>
window.events = [];
window.outcome = null;
window.openConnect = (token, options = {}) => GatewayConnect.open({ gatewayUrl: ${JSON.stringify(this.gatewayUrl)}, token, mode: 'iframe', container: '#connect-frame', onEvent: (e) => window.events.push(e), ...options })
  .then((result) => (window.outcome = { ok: true, result }), (error) => (window.outcome = { ok: false, code: error.code }));
</script></body></html>`;
    this.server = http.createServer((req, res) => {
      if (req.url === '/') {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
        res.end(html);
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * An end-user token signed with the gateway's own key, as GET /v1/users/{id}/token issues it, that the gateway
 * accepts for `validForMs` more (its exp set so, counting the gateway's 30 s clock tolerance): a session that
 * runs out while the end user is busy. Answers the token and the moment it stops being accepted.
 */
export async function tokenRunningOut(gw: TestGateway, endUserId: string, validForMs: number): Promise<{ token: string; refusedFrom: number }> {
  const { services } = gw.gateway;
  const { kid, key } = await keyRingFor(services.store, services.keyring).signingKey();
  const now = Date.now();
  const exp = Math.floor((now + validForMs) / 1000) - 30;
  const token = await new SignJWT({ [COMPANY_CLAIM]: (await services.store.endUsers.findOne({ id: endUserId }))!.companyId })
    .setProtectedHeader({ alg: TOKEN_ALGORITHM, typ: 'JWT', kid })
    .setSubject(endUserId)
    .setIssuer(services.config.endUserTokens.issuer)
    .setAudience(services.config.endUserTokens.audience)
    .setIssuedAt(Math.floor(now / 1000))
    .setExpirationTime(exp)
    .setJti(`running-out-${now}`)
    .sign(key);
  // Refused once now - 30 s >= exp (jose: exp <= now - tolerance), with a second's margin.
  return { token, refusedFrom: (exp + 30) * 1000 + 1000 };
}
