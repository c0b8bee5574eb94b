import { expect } from 'chai';
import type { Argument } from '../../../engine/authoring/import/imported-app.ts';
import { detectPagination } from '../../../engine/authoring/import/pagination-detection.ts';
import { responsePlan } from '../../../engine/authoring/import/response-plan.ts';

/** A GET listing with these query parameters answering this schema (or example). */
function detect(params: string[], schema: object | undefined, headers: string[] = [], example?: unknown) {
  const args: Argument[] = params.map((name) => ({ key: name.replace(/_(\w)/g, (_m, c: string) => c.toUpperCase()), externalKey: name, dataType: 'String', location: 'Query' }));
  const response = { description: 'ok', headers: Object.fromEntries(headers.map((h) => [h, { schema: { type: 'string' } }])), content: { 'application/json': { ...(schema ? { schema } : {}), ...(example ? { example } : {}) } } };
  const plan = responsePlan({ operation: { responses: { 200: response } } }, true);
  return detectPagination(args, plan, 'GET');
}

const rows = { type: 'array', items: { type: 'object', properties: { id: { type: 'string' } } } };

describe('import pagination detection', () => {
  it('a next URL in the body, or a Link header: NextUrl', () => {
    expect(detect(['page', 'per_page'], { type: 'object', properties: { droplets: rows, links: { type: 'object', properties: { pages: { type: 'object', properties: { next: { type: 'string' } } } } } } })?.pagination).to.deep.equal({ type: 'NextUrl', next: 'body.links.pages.next' });
    expect(detect(['PageSize'], { type: 'object', properties: { calls: rows, next_page_uri: { type: 'string' } } })?.pagination).to.deep.equal({ type: 'NextUrl', next: 'body.next_page_uri' });
    expect(detect(['per_page'], rows, ['Link'])?.pagination).to.deep.equal({ type: 'NextUrl', from: 'LinkHeader' });
  });

  it('a cursor parameter and a next token: Cursor with next, the parameter left to the engine', () => {
    const slack = detect(['cursor', 'limit'], { type: 'object', properties: { ok: { type: 'boolean' }, channels: rows, response_metadata: { type: 'object', properties: { next_cursor: { type: 'string' } } } } });
    expect(slack?.pagination).to.deep.equal({ type: 'Cursor', location: 'Query', key: 'cursor', next: 'body.response_metadata.next_cursor' });
    expect(slack?.filled).to.equal('cursor');
    const asana = detect(['offset', 'limit'], { type: 'object', properties: { data: rows, next_page: { type: 'object', properties: { offset: { type: 'string' }, uri: { type: 'string' } } } } });
    expect(asana?.pagination).to.deep.equal({ type: 'Cursor', location: 'Query', key: 'offset', next: 'body.next_page.offset' });
  });

  it("has_more and rows with ids: Cursor whose token is the mapping's last id (Stripe)", () => {
    const stripe = detect(['starting_after', 'limit'], { type: 'object', properties: { object: { type: 'string' }, data: rows, has_more: { type: 'boolean' } } });
    expect(stripe?.pagination).to.deep.equal({ type: 'Cursor', location: 'Query', key: 'starting_after' });
    expect(stripe?.mappingCursor).to.equal('body.has_more ? body.data[-1].id');
  });

  it('offset and limit: Offset, with total and more when the body has them; page and a size: Page', () => {
    expect(detect(['offset', 'limit'], { type: 'object', properties: { incidents: rows, total: { type: 'integer' }, more: { type: 'boolean' } } })?.pagination).to.deep.equal({
      type: 'Offset',
      location: 'Query',
      offsetKey: 'offset',
      limitKey: 'limit',
      total: 'body.total',
      last: '$not(body.more)',
    });
    expect(detect(['page', 'per_page'], { type: 'object', properties: { items: rows, total_pages: { type: 'integer' } } })?.pagination).to.deep.equal({ type: 'Page', location: 'Query', pageKey: 'page', sizeKey: 'per_page', totalPages: 'body.total_pages' });
  });

  it('nothing to page by: no pagination', () => {
    expect(detect(['name'], rows)).to.equal(undefined);
    expect(detect(['limit'], { type: 'object', properties: { data: rows } })).to.equal(undefined);
  });
});
