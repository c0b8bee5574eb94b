import { expect } from 'chai';
import { enforceEnvelope, type ActionMeta } from '../../../engine/runtime/run/envelope.ts';
import { envelopeJson, SPLICE_FROM_CHARS, withJsonText } from '../../../engine/runtime/run/envelope-json.ts';

const action: ActionMeta = { id: 'list-orders', slug: 'list-orders', operation: 'list', query: { status: 'open' }, body: null };

function envelopeOver(text: string | undefined, body: unknown, proposal: Record<string, unknown> = { data: [{ id: 'o1' }] }) {
  const response = withJsonText({ status: 200, headers: { 'content-type': 'application/json' }, body }, text);
  return enforceEnvelope(proposal, { status: 200, response, action, retries: 0, deletedId: undefined });
}

describe('envelopeJson', () => {
  const compact = JSON.stringify({ result: { orders: [{ id: 'o1', total: 5.5, tags: ['a'], pad: 'x'.repeat(SPLICE_FROM_CHARS) }], next: null } });

  it('writes what JSON.stringify writes when the app sent compact JSON', () => {
    const envelope = envelopeOver(compact, JSON.parse(compact), { data: [{ id: 'o1' }], meta: { cursor: 'c2', note: undefined, nested: { a: [1, null] } } });
    envelope.meta.error = { code: 'MAPPING_ERROR', message: 'added after the rules, as a failed run does' };
    expect(envelopeJson(envelope)).to.equal(JSON.stringify(envelope));
  });

  it('writes what JSON.stringify writes for a body that was not parsed from JSON (text, null)', () => {
    expect(envelopeJson(envelopeOver(undefined, '<html>oops</html>'))).to.equal(JSON.stringify(envelopeOver(undefined, '<html>oops</html>')));
    expect(envelopeJson(envelopeOver(undefined, null))).to.equal(JSON.stringify(envelopeOver(undefined, null)));
  });

  it("carries the app's JSON text in meta.response.body as it came: the same value, its own spacing and digits", () => {
    const text = `{ "id": "o1",\n  "total": 12345678901234567890, "note": "caf\\u00e9", "pad": "${'x'.repeat(SPLICE_FROM_CHARS)}" }\n`;
    const envelope = envelopeOver(text, JSON.parse(text));
    const json = envelopeJson(envelope);
    const placeholder = JSON.stringify({ ...envelope, meta: { ...envelope.meta, response: { ...envelope.meta.response, body: '__BODY__' } } });
    expect(json).to.equal(placeholder.replace('"__BODY__"', text));
    expect(JSON.parse(json)).to.deep.equal(JSON.parse(JSON.stringify(envelope)));
  });

  it('serialises a body that is no longer the value its text parsed to, and a short one', () => {
    const short = '{ "a": 1 }';
    expect(envelopeJson(envelopeOver(short, JSON.parse(short)))).to.equal(JSON.stringify(envelopeOver(undefined, JSON.parse(short))));
    const text = `{ "a": "${'x'.repeat(SPLICE_FROM_CHARS)}" }`;
    const envelope = envelopeOver(text, JSON.parse(text));
    envelope.meta.response.body = { a: 2 };
    expect(envelopeJson(envelope)).to.equal(JSON.stringify(envelope));
  });

  it('splices any JSON value', () => {
    for (const text of [`"${'x'.repeat(SPLICE_FROM_CHARS)}"`, `[${'1,'.repeat(SPLICE_FROM_CHARS)}2]`, `${' '.repeat(SPLICE_FROM_CHARS)}null`]) {
      const envelope = envelopeOver(text, JSON.parse(text));
      const placeholder = JSON.stringify({ ...envelope, meta: { ...envelope.meta, response: { ...envelope.meta.response, body: '__BODY__' } } });
      expect(envelopeJson(envelope)).to.equal(placeholder.replace('"__BODY__"', text));
      expect(JSON.parse(envelopeJson(envelope))).to.deep.equal(JSON.parse(JSON.stringify(envelope)));
    }
  });
});
