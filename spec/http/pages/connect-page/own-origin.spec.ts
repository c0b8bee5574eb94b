import { expect } from 'chai';
import { loadConfig } from '../../../../engine/config/config.ts';
import { gatewayOrigins, isOwnReturnPage } from '../../../../engine/http/pages/connect-page/own-origin.ts';

describe("the gateway's own origins (its /connect/oauth-return page is a returnUrl without any setting)", () => {
  it('with PUBLIC_BASE_URL set: its origin (and EMBEDDED_BASE_URL\'s), never the origin a request names in its Host', () => {
    const config = loadConfig({ PUBLIC_BASE_URL: 'https://gateway.example.com/base', EMBEDDED_BASE_URL: 'https://embed.example.com' });
    const own = gatewayOrigins(config, 'http://attacker.example', 8080);
    expect(own).to.deep.equal(['https://gateway.example.com', 'https://embed.example.com']);
    expect(isOwnReturnPage('https://gateway.example.com/connect/oauth-return', own)).to.equal(true);
    expect(isOwnReturnPage('http://attacker.example/connect/oauth-return', own)).to.equal(false);
  });

  it('with PUBLIC_BASE_URL unset (a developer\'s machine): also the origin the request came to, on the port it is listening on', () => {
    const config = loadConfig({ PORT: '4100' });
    expect(gatewayOrigins(config, 'http://127.0.0.1:4100', 4100)).to.deep.equal(['http://localhost:4100', 'http://127.0.0.1:4100']);
    expect(gatewayOrigins(config, 'http://[::1]:4100', 4100)).to.deep.equal(['http://localhost:4100', 'http://[::1]:4100']);
    const picked = loadConfig({ PORT: '0' });
    expect(gatewayOrigins(picked, 'http://127.0.0.1:41234', 41234), 'PORT=0: the port it was given').to.deep.equal(['http://localhost:0', 'http://127.0.0.1:41234']);
  });

  it('with PUBLIC_BASE_URL unset, a Host naming another port of this machine is not an own origin (another program there would get the connection id)', () => {
    const config = loadConfig({ PORT: '4100' });
    for (const other of ['http://127.0.0.1:4101', 'http://localhost:1', 'http://[::1]:65535', 'http://127.0.0.1']) {
      expect(gatewayOrigins(config, other, 4100), other).to.deep.equal(['http://localhost:4100']);
    }
    expect(gatewayOrigins(loadConfig({ PORT: '80' }), 'http://127.0.0.1', 80), 'the default port of http: is port 80').to.deep.equal(['http://localhost', 'http://127.0.0.1']);
  });

  it('with PUBLIC_BASE_URL unset, a Host naming anything but this machine is not an own origin (no open redirect through a forged Host)', () => {
    const config = loadConfig({ PORT: '4100' });
    for (const forged of ['http://attacker.example', 'https://attacker.example:4100', 'http://10.0.0.5:4100', 'http://localhost.attacker.example:4100']) {
      expect(gatewayOrigins(config, forged, 4100), forged).to.deep.equal(['http://localhost:4100']);
    }
  });

  it('only the return page itself, not any path of the gateway, nor a URL with credentials', () => {
    const own = ['https://gateway.example.com'];
    expect(isOwnReturnPage('https://gateway.example.com/connect/oauth-return?x=1', own)).to.equal(true);
    expect(isOwnReturnPage('https://gateway.example.com/connect', own)).to.equal(false);
    expect(isOwnReturnPage('https://gateway.example.com/connect/oauth-return/../../v2', own)).to.equal(false);
    expect(isOwnReturnPage('https://user:pw@gateway.example.com/connect/oauth-return', own)).to.equal(false);
    expect(isOwnReturnPage('not a url', own)).to.equal(false);
  });
});
