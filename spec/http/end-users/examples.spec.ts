import { expect } from 'chai';
import path from 'node:path';
import { EXAMPLE_END_USER_ID, EXAMPLE_TIME } from '../../../engine/http/end-users/examples.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { documentedCall, V2_DOCUMENT } from '../../helpers/openapi.ts';
import { ROOT } from '../../helpers/process.ts';

/** An answer with the end user's random id and the clock pinned to the values the examples show. */
function pinned(value: unknown, id: string): unknown {
  return JSON.parse(
    JSON.stringify(value)
      .replaceAll(id, EXAMPLE_END_USER_ID)
      .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g, EXAMPLE_TIME),
  );
}

describe('the examples of the end-user operations (v2 document)', () => {
  let gw: TestGateway;
  let id: string;
  type Answer = { status: number; body: unknown };
  let producers: Record<string, Record<string, Record<string, () => Promise<Answer>>>>;
  before(async () => {
    gw = await startTestGateway({ DEFINITIONS_DIR: path.join(ROOT, 'spec/fixtures/connections') });
    id = (await documentedCall(gw, 'POST', '/v1/users', { body: { externalId: 'user-42', name: 'Ada Lovelace', email: 'ada@example.com', metadata: { region: 'eu' } } })).body.data.userId;
    // What the delete example deletes with the end user: one connection, used by one installation.
    const connection = await documentedCall(gw, 'POST', '/v2/connections', { body: { appSlug: 'acme-crm', endUserId: id, credentials: { apiKey: 'k' }, metadata: { region: 'eu' } } });
    const installation = await documentedCall(gw, 'POST', '/v2/installations', { body: { endUserId: id, apps: [{ appSlug: 'acme-crm', connectionId: connection.body.data.id }] } });
    expect([connection.status, installation.status]).to.deep.equal([201, 201]);
    producers = {
      listEndUsers: {
        '200': { page: () => documentedCall(gw, 'GET', '/v2/end-users?where=metadata.region==eu&sort=-createdOn&fields=id,externalId,name&limit=20') },
        '400': { VALIDATION_ERROR: () => documentedCall(gw, 'GET', '/v2/end-users?sort=password') },
      },
      getEndUser: {
        '200': { endUser: () => documentedCall(gw, 'GET', `/v2/end-users/${id}`) },
        '404': { NOT_FOUND: () => documentedCall(gw, 'GET', '/v2/end-users/eu_missing') },
      },
      updateEndUser: {
        '200': { updated: () => documentedCall(gw, 'PATCH', `/v2/end-users/${id}`, { body: { email: 'Ada@Example.com', isTestUser: true, metadata: { region: 'us' } } }) },
        '400': { VALIDATION_ERROR: () => documentedCall(gw, 'PATCH', `/v2/end-users/${id}`, { body: { email: 'not an email', externalId: 'user-43' } }) },
      },
      deleteEndUser: {
        '200': { deleted: () => documentedCall(gw, 'DELETE', `/v2/end-users/${id}`) },
        '404': { NOT_FOUND: () => documentedCall(gw, 'DELETE', '/v2/end-users/eu_missing') },
      },
    };
  });
  after(async () => {
    await gw.stop();
  });

  it('shows real answers: each produced by the gateway (in this order) and equal to what the document shows', async () => {
    const shown: string[] = [];
    const produced: Record<string, unknown> = {};
    for (const [operationId, byStatus] of Object.entries(producers)) {
      for (const [status, named] of Object.entries(byStatus)) {
        for (const [name, produce] of Object.entries(named)) {
          const answer = await produce();
          expect(answer.status, `${operationId} ${status} ${name}`).to.equal(Number(status));
          produced[`${operationId} ${status} ${name}`] = pinned(answer.body, id);
        }
      }
    }
    for (const item of Object.values<any>(V2_DOCUMENT.paths)) {
      for (const op of Object.values<any>(item)) {
        if (!(op.operationId in producers)) continue;
        for (const [status, response] of Object.entries<any>(op.responses)) {
          for (const [name, example] of Object.entries<any>(response.content?.['application/json']?.examples ?? {})) {
            const key = `${op.operationId} ${status} ${name}`;
            shown.push(key);
            expect(example.value, key).to.deep.equal(produced[key]);
          }
        }
      }
    }
    expect(shown.sort(), JSON.stringify(produced, null, 2)).to.deep.equal(Object.keys(produced).sort());
  });
});
