import { expect } from 'chai';
import { DefinitionsLoader } from '../../../engine/core/definitions/loader.ts';
import { sourceFile } from '../../../engine/core/definitions/source-files.ts';

const AUTHS: Record<string, string> = {
  code: `type: OAuth2AuthorizationCode
id: code
authorizeUrl: https://auth.example/authorize
tokenUrl: https://auth.example/token
scopes: [read, write]
pkce: true
authorizeParams: { access_type: offline }
refresh: { enabled: true, url: https://auth.example/refresh }
`,
  machine: `type: OAuth2ClientCredentials
id: machine
tokenUrl: https://{{tenant}}.auth.example/token
clientAuthentication: Body
`,
  key: `type: ApiKey
id: key
in: Query
parameterName: api_key
value: "{{apiKey}}"
arguments: [{ key: apiKey, dataType: String, required: true }]
`,
  basic: `type: Basic
id: basic
username: "{{apiKey}}"
password: ""
arguments: [{ key: apiKey, dataType: String, required: true }]
`,
  bearer: `type: Bearer
id: bearer
token: "{{token}}"
arguments: [{ key: token, dataType: String, required: true }]
`,
  exchange: `type: CredentialExchange
id: exchange
method: POST
url: https://{{tenant}}.auth.example/exchange
body: { user: "{{metadata.email}}", audience: gateway }
response: |
  { "accessToken": body.token, "expiresIn": body.expires_in }
`,
};

function version(auths: Record<string, string>) {
  return [
    sourceFile('x/app.yaml', 'id: x\nslug: x\nname: X\npublished: 1\n'),
    sourceFile(
      'x/versions/1/api.yaml',
      `baseUrl: https://{{tenant}}.api.example\nauths: [${Object.keys(auths).join(', ')}]\narguments: [{ key: tenant, dataType: String, required: true }]\n`,
    ),
    ...Object.entries(auths).map(([id, text]) => sourceFile(`x/versions/1/auths/${id}.yaml`, text)),
  ];
}

describe('auth kinds', () => {
  it('accepts every kind, resolves them in the order api.yaml lists them, and compiles the exchange mapping', async () => {
    const result = new DefinitionsLoader().load(version(AUTHS));
    expect(result.problems).to.deep.equal([]);
    const api = result.snapshot!.apps.get('x')!.versions.get(1)!.api;
    expect(api.auths.map((a) => a.type)).to.deep.equal(['OAuth2AuthorizationCode', 'OAuth2ClientCredentials', 'ApiKey', 'Basic', 'Bearer', 'CredentialExchange']);
    const exchange = api.auths.at(-1)!;
    expect(await exchange.exchangeResponse!.expression.evaluate({ body: { token: 't', expires_in: 60 } })).to.deep.equal({ accessToken: 't', expiresIn: 60 });
  });

  it('checks the properties of the kind named by type, and only those', () => {
    const result = new DefinitionsLoader().load(version({ key: 'type: ApiKey\nid: key\nin: Header\nvalue: x\ntokenUrl: https://a.example\n' }));
    expect(result.problems.map((p) => `${p.line}:${p.column} ${p.code} ${p.message}`)).to.deep.equal([
      '1:1 SCHEMA_REQUIRED the auth definition is missing required property "parameterName"',
      '5:1 SCHEMA_UNKNOWN_PROPERTY property "tokenUrl" is not allowed in the auth definition (allowed: type, id, name, description, help, arguments, in, parameterName, value, verify)',
    ]);
  });

  it('takes help (text, an https link, translations) on every kind, and refuses a link that is not plain https', () => {
    const help = 'help:\n  text: Create a key under Settings, API.\n  url: https://docs.example.com/keys\n  translations: { de: "Erstellen Sie einen Schlüssel unter Einstellungen, API." }\n';
    const withHelp = Object.fromEntries(Object.entries(AUTHS).map(([id, text]) => [id, text.replace(/^(id: .*\n)/m, `$1${help}`)]));
    const result = new DefinitionsLoader().load(version(withHelp));
    expect(result.problems).to.deep.equal([]);
    const key = result.snapshot!.apps.get('x')!.versions.get(1)!.auths.get('key')!;
    expect((key.definition as { help?: unknown }).help).to.deep.equal({ text: 'Create a key under Settings, API.', url: 'https://docs.example.com/keys', translations: { de: 'Erstellen Sie einen Schlüssel unter Einstellungen, API.' } });

    for (const url of ['http://docs.example.com/keys', 'javascript:alert(1)', 'https://docs.example.com@evil.example/keys', '//docs.example.com/keys']) {
      const refused = new DefinitionsLoader().load(version({ key: AUTHS.key!.replace(/^(id: .*\n)/m, `$1help: { text: Where, url: "${url}" }\n`) }));
      expect(refused.problems.map((p) => p.code), url).to.deep.equal(['SCHEMA_PATTERN']);
      expect(refused.problems[0]!.message, url).to.include('an absolute https URL, without a user name');
    }
    const bad = new DefinitionsLoader().load(version({ key: AUTHS.key!.replace(/^(id: .*\n)/m, `$1help: { text: Where, translations: { German: x } }\n`) }));
    expect(bad.problems.map((p) => p.code)).to.have.length.above(0);
  });

  it('names the kinds there are when type is unknown', () => {
    const result = new DefinitionsLoader().load(version({ key: 'type: Digest\nid: key\n' }));
    expect(result.problems.map((p) => `${p.line}:${p.column} ${p.code} ${p.message}`)).to.deep.equal([
      '1:7 SCHEMA_ENUM type must be one of OAuth2AuthorizationCode, OAuth2ClientCredentials, ApiKey, Basic, Bearer, CredentialExchange (got "Digest")',
    ]);
  });
});
