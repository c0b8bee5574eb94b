import { expect } from 'chai';
import { providerText, PROVIDER_TEXT_MAX } from '../../../engine/platform/secrets/provider-text.ts';

describe("a provider's text made safe for a message, a log line or a redirect (providerText)", () => {
  const secret = "s3cret/+ !'()~*";

  it('redacts a secret as sent, percent-encoded and form-encoded', () => {
    const form = new URLSearchParams({ client_secret: secret }).toString();
    const text = providerText(`raw ${secret} uri ${encodeURIComponent(secret)} form ${form}`, [secret]);
    expect(text).to.equal('raw [redacted] uri [redacted] form client_secret=[redacted]');
  });

  it('redacts before cutting, so a secret at the cut is never half-shown, and cuts with an ellipsis', () => {
    const text = providerText(`${'a'.repeat(PROVIDER_TEXT_MAX - 4)}${secret}${'b'.repeat(50)}`, [secret]);
    expect(text).to.equal(`${'a'.repeat(PROVIDER_TEXT_MAX - 4)}[red…`);
    expect(text).not.to.include('s3cr');
    expect(providerText('short', [])).to.equal('short');
  });

  it('turns line breaks and other control characters into spaces, and takes non-strings as JSON', () => {
    expect(providerText('one\r\ntwo\u0000three', [])).to.equal('one two three');
    expect(providerText({ error: `x ${secret}` }, [secret])).to.equal('{"error":"x [redacted]"}');
  });

  it('leaves values too short to be told from ordinary text alone', () => {
    expect(providerText('a b c', ['a', 'b'])).to.equal('a b c');
  });
});
