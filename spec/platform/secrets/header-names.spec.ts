import { expect } from 'chai';
import { redactedHeaderName, redactHeaderNames } from '../../../engine/platform/secrets/header-names.ts';

describe('secrets in header names (header-names.ts)', () => {
  const forms = ['Upstream-Secret-ABCdef9876'];

  it('finds a secret in a name in any letter case, and writes the name lower-cased with [redacted] in its place', () => {
    expect(redactedHeaderName('x-echo-upstream-secret-abcdef9876', forms)).to.equal('x-echo-[redacted]');
    expect(redactedHeaderName('X-Echo-UPSTREAM-SECRET-ABCDEF9876-tail', forms)).to.equal('x-echo-[redacted]-tail');
    expect(redactedHeaderName('x-plain', forms)).to.equal(null);
    expect(redactedHeaderName('x-echo-upstream-secret-abcdef9876', [])).to.equal(null);
  });

  it('keeps the same headers object when no name holds one; joins two names that redact to one as HTTP joins a repeated header', () => {
    const clean = { 'x-plain': 'kept' };
    expect(redactHeaderNames(clean, forms)).to.equal(clean);
    expect(redactHeaderNames({ 'x-plain': 'kept', 'x-a-upstream-secret-abcdef9876': '1', 'x-a-UPSTREAM-secret-abcdef9876': '2', __proto__x: 'n' }, forms)).to.deep.equal({ 'x-plain': 'kept', 'x-a-[redacted]': '1, 2', __proto__x: 'n' });
  });
});
