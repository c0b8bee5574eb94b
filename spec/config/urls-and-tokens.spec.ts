import { expect } from 'chai';
import { loadConfig } from '../../engine/config/config.ts';
import { configProblem } from '../helpers/config-problem.ts';


describe('configuration: public URLs and end-user tokens', () => {
  it('defaults the URLs to localhost on PORT, the issuer to the base URL and the audience to the embedded /v1', () => {
    const config = loadConfig({ PORT: '9000' }, '/srv/gw');
    expect(config.publicBaseUrl).to.equal('http://localhost:9000');
    expect(config.embeddedBaseUrl).to.equal('http://localhost:9000');
    expect(config.endUserTokens).to.deep.equal({ issuer: 'http://localhost:9000', audience: 'http://localhost:9000/v1', ttlSeconds: 600, connectAttemptsPerMinute: 10, maxConnections: 1000 });
  });

  it('reads every variable, dropping a trailing slash from URLs', () => {
    const config = loadConfig(
      {
        PUBLIC_BASE_URL: 'https://api.example.com/',
        EMBEDDED_BASE_URL: 'https://embedded.example.com',
        END_USER_TOKEN_ISSUER: 'https://issuer.example.com',
        END_USER_TOKEN_AUDIENCE: 'urn:example:embedded',
        END_USER_TOKEN_TTL_SECONDS: '300',
        END_USER_CONNECT_ATTEMPTS_PER_MINUTE: '30',
        END_USER_MAX_CONNECTIONS: '50',
      },
      '/srv/gw',
    );
    expect(config.publicBaseUrl).to.equal('https://api.example.com');
    expect(config.embeddedBaseUrl).to.equal('https://embedded.example.com');
    expect(config.endUserTokens).to.deep.equal({ issuer: 'https://issuer.example.com', audience: 'urn:example:embedded', ttlSeconds: 300, connectAttemptsPerMinute: 30, maxConnections: 50 });
  });

  it('derives the default audience from EMBEDDED_BASE_URL', () => {
    expect(loadConfig({ EMBEDDED_BASE_URL: 'https://e.example.com' }).endUserTokens.audience).to.equal('https://e.example.com/v1');
  });

  const cases: [string, Record<string, string>, RegExp][] = [
    ['PUBLIC_BASE_URL not a URL', { PUBLIC_BASE_URL: 'example.com' }, /^PUBLIC_BASE_URL must be an http:\/\/ or https:\/\/ URL without query, fragment or credentials \(got "example.com"\)$/],
    ['PUBLIC_BASE_URL with a query', { PUBLIC_BASE_URL: 'https://a.example?x=1' }, /^PUBLIC_BASE_URL must be an http/],
    ['EMBEDDED_BASE_URL of another scheme', { EMBEDDED_BASE_URL: 'ftp://a.example' }, /^EMBEDDED_BASE_URL must be an http/],
    ['END_USER_TOKEN_TTL_SECONDS too short', { END_USER_TOKEN_TTL_SECONDS: '5' }, /^END_USER_TOKEN_TTL_SECONDS must be an integer from 30 to 86400 \(got "5"\)$/],
    ['END_USER_TOKEN_TTL_SECONDS not a number', { END_USER_TOKEN_TTL_SECONDS: '10m' }, /^END_USER_TOKEN_TTL_SECONDS must be an integer from 30 to 86400/],
    ['END_USER_TOKEN_AUDIENCE with a space', { END_USER_TOKEN_AUDIENCE: 'my audience' }, /^END_USER_TOKEN_AUDIENCE must be 1 to 256 printable characters without spaces/],
    ['END_USER_TOKEN_ISSUER empty', { END_USER_TOKEN_ISSUER: ' ' }, /^END_USER_TOKEN_ISSUER is set but empty/],
  ];
  for (const [name, env, message] of cases) {
    it(`rejects ${name}, naming the variable`, () => {
      expect(configProblem(env)).to.match(message);
    });
  }
});
