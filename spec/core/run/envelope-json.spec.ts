import { expect } from 'chai';
import { enforceEnvelope, type ActionMeta } from '../../../engine/core/run/envelope.ts';
import { envelopeBytes, envelopeJson, SPLICE_FROM_CHARS, withJsonText } from '../../../engine/core/run/envelope-json.ts';

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

  it("keeps a short body's numbers as the app wrote them when a double cannot hold them (an id of 16+ digits, an exponent of 3): spliced, not serialised again", () => {
    for (const text of ['{"id":9007199254740993}', '{"big":1e400,"tiny":1e-400}']) {
      const json = envelopeJson(envelopeOver(text, JSON.parse(text)));
      expect(json).to.include(`"body":${text}`);
    }
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

describe('envelopeBytes', () => {
  const pad = 'x'.repeat(SPLICE_FROM_CHARS);
  const bytesOf = (text: string, body: unknown, received: { bytes: Buffer; utf8: boolean }) => {
    const response = withJsonText({ status: 200, headers: { 'content-type': 'application/json' }, body }, text, received);
    return enforceEnvelope({ data: [{ id: 'o1', name: 'Zoë' }] }, { status: 200, response, action, retries: 0, deletedId: undefined });
  };

  it("copies the app's UTF-8 bytes into the answer as they came, and the answer is envelopeJson's text in UTF-8", () => {
    const text = `{ "name": "Zoë 東京 🎉",\n  "total": 12345678901234567890, "pad": "${pad}" }`;
    const received = Buffer.from(text, 'utf8');
    const envelope = bytesOf(text, JSON.parse(text), { bytes: received, utf8: true });
    const bytes = envelopeBytes(envelope);
    expect(bytes.equals(Buffer.from(envelopeJson(envelope), 'utf8'))).to.equal(true);
    expect(bytes.includes(received)).to.equal(true);
    expect(JSON.parse(bytes.toString('utf8'))).to.deep.equal(JSON.parse(JSON.stringify(envelope)));
  });

  it('writes the decoded text, not the bytes, when they differ: a byte order mark, invalid UTF-8, another charset', () => {
    const text = `{ "name": "Zoë", "pad": "${pad}" }`;
    const cases: { bytes: Buffer; utf8: boolean; decoded: string }[] = [
      // a decoder drops the mark
      { bytes: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]), utf8: true, decoded: text },
      // a decoder replaces the invalid byte with U+FFFD
      { bytes: Buffer.concat([Buffer.from(text.slice(0, -3)), Buffer.from([0xff]), Buffer.from('" }')]), utf8: true, decoded: `${text.slice(0, -3)}\ufffd" }` },
      // latin1: the same characters, other bytes
      { bytes: Buffer.from(text, 'latin1'), utf8: false, decoded: text },
    ];
    for (const c of cases) {
      const envelope = bytesOf(c.decoded, JSON.parse(c.decoded), { bytes: c.bytes, utf8: c.utf8 });
      const bytes = envelopeBytes(envelope);
      expect(bytes.equals(Buffer.from(envelopeJson(envelope), 'utf8'))).to.equal(true);
      expect(bytes.includes(c.bytes)).to.equal(false);
      expect(JSON.parse(bytes.toString('utf8'))).to.deep.equal(JSON.parse(JSON.stringify(envelope)));
    }
  });

  it('is JSON.stringify in UTF-8 when nothing is spliced (a short body, a body changed since it was parsed)', () => {
    const short = '{ "a": "é" }';
    const envelope = bytesOf(short, JSON.parse(short), { bytes: Buffer.from(short), utf8: true });
    expect(envelopeBytes(envelope).equals(Buffer.from(JSON.stringify(envelope)))).to.equal(true);
    const text = `{ "a": "${pad}" }`;
    const changed = bytesOf(text, JSON.parse(text), { bytes: Buffer.from(text), utf8: true });
    changed.meta.response.body = { a: 'é' };
    expect(envelopeBytes(changed).equals(Buffer.from(JSON.stringify(changed)))).to.equal(true);
  });
});
