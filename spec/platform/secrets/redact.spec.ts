import { expect } from 'chai';
import { redactionForms, redactText as redactTextStream } from '../../../engine/platform/secrets/redacting-stream.ts';
import { jsonTextMayHold, MIN_REDACTED_LENGTH, NO_SECRETS, REDACTED, redactBytes, redactJson, redactText, secretForms } from '../../../engine/platform/secrets/redact.ts';

const KEY = 'sk_live_0123456789abcdef';

describe('redacting secret values (engine/platform/secrets/redact.ts)', () => {
  it('finds each secret of a connection\'s credentials, in the forms it travels in, longest first', () => {
    const forms = secretForms({ arguments: { apiKey: KEY, region: 'eu' }, accessToken: 'tok en+with/odd=chars' });
    expect(forms.plain).to.include.members([KEY, 'tok en+with/odd=chars', 'tok%20en%2Bwith%2Fodd%3Dchars', 'tok+en%2Bwith%2Fodd%3Dchars']);
    expect(forms.plain, 'a short value is no secret worth breaking a body for').not.to.include('eu');
    expect(forms.plain.map((f) => f.length)).to.deep.equal([...forms.plain.map((f) => f.length)].sort((a, b) => b - a));
    expect(secretForms('x'.repeat(MIN_REDACTED_LENGTH - 1))).to.equal(NO_SECRETS);
    expect(secretForms('x'.repeat(MIN_REDACTED_LENGTH)).plain).to.deep.equal(['x'.repeat(MIN_REDACTED_LENGTH)]);
  });

  it('finds a secret percent-encoded in lowercase hex and in RFC 3986\'s strict form (!\'()* encoded too), as other encoders write it', () => {
    const token = "sekret-TOKEN/abc+1*(x)!'";
    const strict = "sekret-TOKEN%2Fabc%2B1%2A%28x%29%21%27";
    for (const echoed of [strict, strict.toLowerCase().replace('sekret-token', 'sekret-TOKEN'), encodeURIComponent(token).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())]) {
      expect(redactText(`token=${echoed}`, secretForms(token)), echoed).to.equal(`token=${REDACTED}`);
      expect(redactTextStream(`token=${echoed}`, redactionForms(token)), echoed).to.equal(`token=${REDACTED}`);
    }
  });

  it('replaces every exact occurrence in text, and nothing else', () => {
    const forms = secretForms(KEY);
    expect(redactText(`bad key ${KEY}; again: ${KEY}.`, forms)).to.equal(`bad key ${REDACTED}; again: ${REDACTED}.`);
    expect(redactText('sk_live_0123 is not it', forms)).to.equal('sk_live_0123 is not it');
    expect(redactText(`?api_key=${encodeURIComponent('a b/c+d=e&f')}`, secretForms('a b/c+d=e&f'))).to.equal(`?api_key=${REDACTED}`);
  });

  it('redacts a JSON value\'s strings and keys into a copy, leaving the value as it was; the same value when there is nothing', () => {
    const forms = secretForms(KEY);
    const body = { error: `bad key ${KEY}`, nested: [{ [KEY]: 1, list: ['ok', KEY] }], n: 5, flag: true, none: null };
    const redacted = redactJson(body, forms);
    expect(redacted).to.deep.equal({ error: `bad key ${REDACTED}`, nested: [{ [REDACTED]: 1, list: ['ok', REDACTED] }], n: 5, flag: true, none: null });
    expect(body.error, 'the original is untouched').to.equal(`bad key ${KEY}`);
    const clean = { a: [1, 'two', { b: 'three' }] };
    expect(redactJson(clean, forms)).to.equal(clean);
    expect(redactJson(`text ${KEY}`, forms)).to.equal(`text ${REDACTED}`);
    expect(redactJson(body, NO_SECRETS)).to.equal(body);
  });

  it('keeps a "__proto__" key a member, never the prototype', () => {
    const body = JSON.parse(`{"__proto__": {"polluted": "${KEY}"}}`);
    const redacted = redactJson(body, secretForms(KEY));
    expect(Object.getPrototypeOf(redacted)).to.equal(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(redacted, '__proto__')!.value).to.deep.equal({ polluted: REDACTED });
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
  });

  it('walks a body nested deeper than the call stack without crashing', () => {
    let deep: unknown = [KEY];
    for (let i = 0; i < 200_000; i++) deep = [deep];
    let node = redactJson(deep, secretForms(KEY)) as unknown[];
    for (let i = 0; i < 200_000; i++) node = node[0] as unknown[];
    expect(node).to.deep.equal([REDACTED]);
  });

  it('says whether a JSON text may hold a secret: found as a JSON string writes it, or hidden in \\u escapes; no otherwise', () => {
    const slashy = secretForms('abc/def"ghi\\jkl');
    expect(jsonTextMayHold(JSON.stringify({ e: 'abc/def"ghi\\jkl' }), slashy)).to.equal(true);
    expect(jsonTextMayHold('{"e":"abc\\/def\\"ghi\\\\jkl"}', slashy), 'with / escaped as \\/').to.equal(true);
    expect(jsonTextMayHold(`{"e":"${KEY.replace('s', '\\u0073')}"}`, secretForms(KEY)), 'a \\u escape may spell it').to.equal(true);
    expect(jsonTextMayHold(Buffer.from(`{"e":"${KEY}"}`), secretForms(KEY)), 'bytes too').to.equal(true);
    expect(jsonTextMayHold('{"e":"nothing to see","n":[1,2,3]}', secretForms(KEY))).to.equal(false);
    expect(jsonTextMayHold(`{"e":"${KEY}"}`, NO_SECRETS)).to.equal(false);
  });

  it('redacts raw bytes, in plain and JSON-escaped forms, without touching the UTF-8 around them', () => {
    const secret = 'päss/wörd-0123';
    const raw = Buffer.from(`{"a":"ünïcode ${secret}","b":"${JSON.stringify(secret).slice(1, -1).replace(/\//g, '\\/')}"} and ${encodeURIComponent(secret)}`, 'utf8');
    expect(redactBytes(raw, secretForms(secret)).toString('utf8')).to.equal(`{"a":"ünïcode ${REDACTED}","b":"${REDACTED}"} and ${REDACTED}`);
    const clean = Buffer.from('{"a":"nothing"}');
    expect(redactBytes(clean, secretForms(secret))).to.equal(clean);
  });
});
