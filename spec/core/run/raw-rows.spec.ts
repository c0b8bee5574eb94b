import { expect } from 'chai';
import { enforceEnvelope, type ActionMeta } from '../../../engine/core/run/envelope.ts';
import { envelopeBytes, envelopeJson, envelopeParts, withJsonText } from '../../../engine/core/run/envelope-json.ts';
import { RawRows, rawRowsOf, rowCount } from '../../../engine/core/run/raw-rows.ts';
import { DeferredJson, deferBody } from '../../../engine/platform/outbound/index.ts';

const LIST: ActionMeta = { id: 'list', slug: 'list', operation: 'list', query: { limit: 3 }, body: null };
const DELETE: ActionMeta = { ...LIST, id: 'delete', slug: 'delete', operation: 'delete' };

function raw(rows: unknown[]): RawRows {
  return new RawRows(Buffer.from(JSON.stringify(rows)), rows.length, rows.some((row) => row !== null && typeof row === 'object' && !Array.isArray(row) && Object.keys(row).length === 0));
}

function facts(status: number, action: ActionMeta, body: unknown = { items: [] }, deletedId?: unknown) {
  return { status, response: { status, headers: { 'content-type': 'application/json' }, body }, action, retries: 0, deletedId };
}

/** The envelope with its rows parsed: what JSON.stringify writes of it is what the answer must be. */
function plain(envelope: ReturnType<typeof enforceEnvelope>): string {
  return JSON.stringify({ ...envelope, data: envelope.data });
}

describe('rows a mapping worker wrote (RawRows) in the envelope', () => {
  const rows = [{ id: 'a', name: 'Zoë' }, { id: 'b', name: 'line\nbreak "quoted"' }, { id: 'c' }];

  it('stay bytes on a success, counted without parsing, and the answer is what JSON.stringify writes of the parsed envelope', () => {
    const envelope = enforceEnvelope({ success: true, data: raw(rows), meta: { cursor: 42 } }, facts(200, LIST));
    expect(rawRowsOf(envelope)?.parsed, 'not parsed by the rules').to.equal(false);
    expect(rowCount(envelope)).to.equal(3);
    const bytes = envelopeBytes(envelope);
    expect(rawRowsOf(envelope)?.parsed, 'not parsed to be written').to.equal(false);
    expect(bytes.toString('utf8')).to.equal(plain(envelope));
    expect(envelopeJson(envelope)).to.equal(plain(envelope));
    expect(Buffer.concat(envelopeParts(envelope)).equals(bytes)).to.equal(true);
    expect(envelope.data).to.deep.equal(rows);
    expect(JSON.parse(bytes.toString('utf8')).meta.cursor).to.equal('42');
  });

  it('writes a cursor the mapping made an object or an array as its JSON text, one the caller can send back, never "[object Object]"', () => {
    expect(enforceEnvelope({ success: true, data: [], meta: { cursor: { page: 2, after: 'x' } } }, facts(200, LIST)).meta.cursor).to.equal('{"page":2,"after":"x"}');
    expect(enforceEnvelope({ success: true, data: [], meta: { cursor: ['a', 1] } }, facts(200, LIST)).meta.cursor).to.equal('["a",1]');
    expect(enforceEnvelope({ success: true, data: [], meta: { cursor: true } }, facts(200, LIST)).meta.cursor).to.equal('true');
  });

  it('splice beside a body left unparsed (deferred-json.ts), both as their bytes, neither parsed', () => {
    const text = JSON.stringify({ items: rows, padding: 'x'.repeat(2000) });
    const deferred = new DeferredJson(Buffer.from(text));
    deferred.learned(true);
    const response = withJsonText(deferBody({ status: 200, headers: { 'content-type': 'application/json' }, body: null as unknown }, deferred), undefined);
    const envelope = enforceEnvelope({ data: raw(rows) }, { status: 200, response, action: LIST, retries: 1, deletedId: undefined });
    const written = envelopeBytes(envelope).toString('utf8');
    expect([deferred.parsed, rawRowsOf(envelope)!.parsed]).to.deep.equal([false, false]);
    expect(written).to.equal(plain(envelope));
    expect(JSON.parse(written).meta.response.body).to.deep.equal(JSON.parse(text));
  });

  it('a failure drops empty rows (parsing them) and keeps rows without any as bytes', () => {
    const withEmpty = enforceEnvelope({ data: raw([{}, { id: 'a' }, {}]) }, facts(500, LIST));
    expect(withEmpty.success).to.equal(false);
    expect(rawRowsOf(withEmpty)).to.equal(undefined);
    expect(withEmpty.data).to.deep.equal([{ id: 'a' }]);
    const without = enforceEnvelope({ data: raw(rows) }, facts(500, LIST));
    expect(rawRowsOf(without)?.parsed).to.equal(false);
    expect(envelopeBytes(without).toString('utf8')).to.equal(plain(without));
  });

  it('a 404 on a listing has no rows; a delete merges its id into rows without one', () => {
    expect(enforceEnvelope({ data: raw(rows) }, facts(404, LIST)).data).to.deep.equal([]);
    const deleted = enforceEnvelope({ data: raw([{ deleted: true }, { id: 'kept' }]) }, facts(200, DELETE, null, 'o1'));
    expect(deleted.data).to.deep.equal([{ id: 'o1', deleted: true }, { id: 'kept' }]);
  });

  it('assigning data replaces the rows (a redaction’s copy is written, not the bytes)', () => {
    const envelope = enforceEnvelope({ data: raw(rows) }, facts(200, LIST));
    envelope.data = [{ id: '[redacted]' }];
    expect(rawRowsOf(envelope)).to.equal(undefined);
    expect(JSON.parse(envelopeBytes(envelope).toString('utf8')).data).to.deep.equal([{ id: '[redacted]' }]);
  });
});
